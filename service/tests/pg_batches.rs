//! The PostgreSQL store's group commit, against a real database: concurrent changes of
//! different matches are written together (fewer transactions than changes), each is
//! acknowledged only for itself (a stale one is refused alone, the rest of its batch
//! written), and concurrent loads are each answered with their own match.

mod common;

use cardhouse_server::store::pg::PgStore;
use cardhouse_server::store::{
    Change, MatchStore, Newer, STORED_FORMAT, SharedStore, StoreError, StoredMatch,
};
use common::postgres::TestDb;

fn stored(id: &str, state: &[u8]) -> StoredMatch {
    StoredMatch {
        format: STORED_FORMAT,
        id: id.to_owned(),
        state: state.to_vec(),
        seed: 7,
        seats: vec![1, 2],
        seat_tokens: vec!["t".into(), String::new()],
        status: 1,
        ..StoredMatch::default()
    }
}

fn id(i: usize) -> String {
    format!("{i:032x}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_share_commits_and_are_answered_each_for_itself() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = PgStore::open(&db.url, 4, false).await.expect("the store");
    const N: usize = 60;
    for i in 0..=N {
        store
            .submit_create(&stored(&id(i), b"start"), 0, false, 1000)
            .expect("queued")
            .wait()
            .await
            .expect("created");
    }
    // Every change queued before any is waited for: they meet in batches. The last one is
    // made on a version its match is not at.
    let mut acks = Vec::new();
    for i in 0..=N {
        let m = stored(&id(i), format!("moved {i}").as_bytes());
        let change = Change {
            id: &m.id,
            version: if i == N { 3 } else { 0 },
            from: 0,
            actions: &[5, 6],
            snapshot: false,
            stored: &|| m.clone(),
            driving: false,
        };
        acks.push(store.submit_change(&change).expect("queued"));
    }
    for (i, ack) in acks.into_iter().enumerate() {
        match ack.wait().await {
            Ok(()) => assert!(i < N, "the stale change was written"),
            Err(StoreError::Conflict) => assert_eq!(i, N, "change {i} refused"),
            Err(e) => panic!("change {i}: {e}"),
        }
    }
    // Each written match holds its own new state at version 1; the stale one is untouched.
    for i in 0..=N {
        let Ok(Newer::Changed(loaded)) = store.load(&id(i), None).await else {
            panic!("match {i} did not load");
        };
        let (want_version, want_state) = if i == N {
            (0, b"start".to_vec())
        } else {
            (1, format!("moved {i}").into_bytes())
        };
        assert_eq!(loaded.version, want_version, "match {i}");
        assert_eq!(loaded.stored.state, want_state, "match {i}");
    }
    // Fewer transactions than changes: rows written by one statement share its `xmin`.
    let client = db.client().await;
    let row = client
        .query_one(
            "SELECT count(DISTINCT xmin::text) FROM matches WHERE version = 1",
            &[],
        )
        .await
        .expect("the transactions");
    let transactions: i64 = row.get(0);
    assert!(
        transactions < (N as i64) / 2,
        "{N} changes in {transactions} transactions"
    );

    // Concurrent loads and revalidations, each answered for its own match and version.
    let loads = (0..=N + 1).map(|i| {
        let store = &store;
        async move {
            let known = (i % 2 == 0).then_some(1);
            (i, known, store.load(&id(i), known).await)
        }
    });
    for (i, known, got) in futures_util::future::join_all(loads).await {
        match (got.expect("a load"), i, known) {
            (Newer::Gone, i, _) if i == N + 1 => {}
            (Newer::Same, i, Some(1)) if i < N => {}
            (Newer::Changed(l), i, None) if i < N => {
                assert_eq!(l.stored.state, format!("moved {i}").into_bytes());
            }
            (Newer::Changed(l), i, _) if i == N => assert_eq!(l.version, 0),
            (other, i, known) => panic!("match {i} known {known:?}: {other:?}"),
        }
    }
    store.close().await;
}
