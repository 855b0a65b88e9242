//! The PostgreSQL store's write path, against a real database: concurrent changes of
//! different matches are written together (fewer transactions than changes), each is
//! acknowledged only for itself (a stale one is refused alone, the rest of its batch
//! written), a change of actions alone is appended to the match's tail and a snapshot
//! replaces its state, and concurrent loads are each answered with their own whole match;
//! with an outbox (`--events`), a change's events are written by its own statement exactly
//! when it applies, and handed out in commit order until relayed.

mod common;

use cardhouse_server::store::pg::{PgConfig, PgStore};
use cardhouse_server::store::{
    Change, MatchStore, Newer, OutboxEvent, STORED_FORMAT, SharedStore, StoreError, StoredMatch,
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

/// The state bytes of a Jass match whose history is `history` (the store does not replay
/// it: the match service does).
fn state_with(history: &[u32]) -> Vec<u8> {
    let game = cardhouse::new_game("jass", &cardhouse::Options::new()).unwrap();
    let mut record = cardhouse::codec::Record::from_bytes(&game.new_initial_state().to_bytes())
        .expect("a record");
    record.history = history.to_vec();
    record.to_bytes()
}

/// What match `i` holds after its change: even ones appended two actions, odd ones wrote a
/// snapshot.
fn after_change(i: usize) -> Vec<u8> {
    if i.is_multiple_of(2) {
        state_with(&[5, 6])
    } else {
        state_with(&[9, i as u32, 9])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_share_commits_and_are_answered_each_for_itself() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = PgStore::open(&PgConfig {
        pool_size: 4,
        notices: false,
        ..PgConfig::new(db.url.clone())
    })
    .await
    .expect("the store");
    const N: usize = 60;
    for i in 0..=N {
        store
            .submit_create(&stored(&id(i), &state_with(&[])), 0, false, 1000, &[])
            .expect("queued")
            .wait()
            .await
            .expect("created");
    }
    // Every change queued before any is waited for: they meet in batches. The last one is
    // made on a version its match is not at.
    let mut acks = Vec::new();
    for i in 0..=N {
        let m = stored(&id(i), &after_change(i));
        let change = Change {
            id: &m.id,
            version: if i == N { 3 } else { 0 },
            from: 0,
            actions: &[5, 6],
            snapshot: !i.is_multiple_of(2),
            stored: &|| m.clone(),
            driving: false,
            events: &[],
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
            (0, state_with(&[]))
        } else {
            (1, after_change(i))
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
            (Newer::Changed(l), i, None) if i < N => assert_eq!(l.stored.state, after_change(i)),
            (Newer::Changed(l), i, _) if i == N => assert_eq!(l.version, 0),
            (other, i, known) => panic!("match {i} known {known:?}: {other:?}"),
        }
    }
    // In the rows: appended actions in the tail (4 bytes each), snapshots with none.
    for i in [0, 1] {
        let row = client
            .query_one("SELECT state, tail FROM matches WHERE id = $1", &[&id(i)])
            .await
            .expect("the row");
        let (state, tail): (Vec<u8>, Vec<u8>) = (row.get(0), row.get(1));
        if i == 0 {
            assert_eq!(
                (state, tail),
                (state_with(&[]), vec![0, 0, 0, 5, 0, 0, 0, 6])
            );
        } else {
            assert_eq!((state, tail), (after_change(1), vec![]));
        }
    }
    // A change that crosses a multiple of 128 moves folds the tail into a snapshot.
    let long: Vec<u32> = (0..200).collect();
    let mut history = vec![5, 6];
    history.extend(&long);
    let m = stored(&id(0), &state_with(&history));
    let change = Change {
        id: &m.id,
        version: 1,
        from: 2,
        actions: &long,
        snapshot: false,
        stored: &|| m.clone(),
        driving: false,
        events: &[],
    };
    store.submit_change(&change).unwrap().wait().await.unwrap();
    let row = client
        .query_one("SELECT state, tail FROM matches WHERE id = $1", &[&id(0)])
        .await
        .expect("the row");
    let (state, tail): (Vec<u8>, Vec<u8>) = (row.get(0), row.get(1));
    assert_eq!((state, tail), (state_with(&history), vec![]));
    store.close().await;
}

/// A tail that is not whole actions is reported as damage of that match, with the row.
/// Changes waited for one at a time (each a batch of one, written by the single-row
/// statement) behave as batched ones: actions appended, a snapshot written whole, a stale
/// version refused without touching the row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_one_at_a_time_append_snapshot_and_refuse_alike() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = PgStore::open(&PgConfig {
        pool_size: 2,
        notices: false,
        ..PgConfig::new(db.url.clone())
    })
    .await
    .expect("the store");
    let m = stored(&id(7), &state_with(&[]));
    store
        .submit_create(&m, 0, false, 10, &[])
        .unwrap()
        .wait()
        .await
        .unwrap();
    let steps: [(u64, &[u32], bool, &[u32]); 3] = [
        (0, &[5, 6], false, &[5, 6]),
        (1, &[7], false, &[5, 6, 7]),
        (2, &[8], true, &[5, 6, 7, 8]),
    ];
    for (version, actions, snapshot, history) in steps {
        let after = stored(&m.id, &state_with(history));
        let change = Change {
            id: &m.id,
            version,
            from: history.len() as u64 - actions.len() as u64,
            actions,
            snapshot,
            stored: &|| after.clone(),
            driving: false,
            events: &[],
        };
        store.submit_change(&change).unwrap().wait().await.unwrap();
        let Ok(Newer::Changed(loaded)) = store.load(&m.id, None).await else {
            panic!("the row did not load");
        };
        assert_eq!(
            (loaded.version, &loaded.stored.state),
            (version + 1, &after.state)
        );
    }
    let (tail, state): (Vec<u8>, Vec<u8>) = {
        let row = db
            .client()
            .await
            .query_one("SELECT tail, state FROM matches WHERE id = $1", &[&m.id])
            .await
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert!(tail.is_empty(), "the snapshot emptied the tail");
    assert_eq!(state, state_with(&[5, 6, 7, 8]));
    let stale = stored(&m.id, &state_with(&[9]));
    let change = Change {
        id: &m.id,
        version: 1,
        from: 0,
        actions: &[9],
        snapshot: false,
        stored: &|| stale.clone(),
        driving: false,
        events: &[],
    };
    match store.submit_change(&change).unwrap().wait().await {
        Err(StoreError::Conflict) => {}
        other => panic!("a stale change: {other:?}"),
    }
    let Ok(Newer::Changed(loaded)) = store.load(&m.id, None).await else {
        panic!("the row did not load");
    };
    assert_eq!(loaded.version, 3);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_tail_is_damage_of_its_match() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = PgStore::open(&PgConfig {
        pool_size: 2,
        notices: false,
        ..PgConfig::new(db.url.clone())
    })
    .await
    .expect("the store");
    store
        .submit_create(&stored(&id(1), &state_with(&[])), 0, false, 10, &[])
        .unwrap()
        .wait()
        .await
        .unwrap();
    db.client()
        .await
        .execute(
            "UPDATE matches SET tail = '\\x000005' WHERE id = $1",
            &[&id(1)],
        )
        .await
        .expect("edit the row");
    match store.load(&id(1), None).await {
        Err(StoreError::Damaged(d)) => {
            assert!(d.place.contains("table matches"), "{d}");
            assert!(d.what.contains("3 bytes"), "{d}");
        }
        other => panic!("{other:?}"),
    }
    store.close().await;
}

/// A row as schema version 1 wrote it (the whole state, no tail) reads as the same match
/// after the migration to version 2, and takes appended changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_of_schema_version_1_reads_as_before() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = PgStore::open(&PgConfig {
        pool_size: 2,
        notices: false,
        ..PgConfig::new(db.url.clone())
    })
    .await
    .expect("the store");
    let m = stored(&id(5), &state_with(&[1, 2, 3]));
    let header = {
        let mut h = m.clone();
        h.id.clear();
        h.state.clear();
        h.status = 0;
        prost::Message::encode_to_vec(&h)
    };
    // Version 1's INSERT, column for column (no `tail`).
    db.client()
        .await
        .execute(
            "INSERT INTO matches (id, header, state, version, move_number, status, \
             resigned_seat, ended_at_ms, touched_ms, driving) \
             VALUES ($1, $2, $3, 4, 3, 1, NULL, 0, 0, false)",
            &[&m.id, &header, &m.state],
        )
        .await
        .expect("a version 1 row");
    let Ok(Newer::Changed(loaded)) = store.load(&m.id, None).await else {
        panic!("the row did not load");
    };
    assert_eq!((loaded.version, &loaded.stored.state), (4, &m.state));
    let after = stored(&m.id, &state_with(&[1, 2, 3, 4]));
    let change = Change {
        id: &m.id,
        version: 4,
        from: 3,
        actions: &[4],
        snapshot: false,
        stored: &|| after.clone(),
        driving: false,
        events: &[],
    };
    store.submit_change(&change).unwrap().wait().await.unwrap();
    let Ok(Newer::Changed(loaded)) = store.load(&m.id, Some(4)).await else {
        panic!("the row did not load");
    };
    assert_eq!((loaded.version, &loaded.stored.state), (5, &after.state));
    store.close().await;
}

/// The batch statements reach `matches` through its primary key even on a new, empty table
/// that was never analyzed, under the generic plans the store's connections use: a plan that
/// scans the whole table would be kept by every pooled connection as the table grows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_statements_use_the_primary_key_on_a_new_table() {
    use cardhouse_server::store::pg::sql::{LOAD_MANY, UPDATE_MANY, UPDATE_ONE};
    let Some(db) = TestDb::create().await else {
        return;
    };
    let store = PgStore::open(&PgConfig {
        pool_size: 1,
        notices: false,
        ..PgConfig::new(db.url.clone())
    })
    .await
    .expect("the store");
    let client = db.client().await;
    client
        .batch_execute("SET plan_cache_mode = force_generic_plan")
        .await
        .unwrap();
    for (name, sql, params) in [
        ("load_many", LOAD_MANY, 2),
        ("update_many", UPDATE_MANY, 12),
        ("update_one", UPDATE_ONE, 12),
    ] {
        client
            .batch_execute(&format!("PREPARE {name} AS {sql}"))
            .await
            .expect("prepare");
        let nulls = vec!["NULL"; params].join(", ");
        let plan: Vec<String> = client
            .query(&format!("EXPLAIN EXECUTE {name}({nulls})"), &[])
            .await
            .expect("explain")
            .iter()
            .map(|row| row.get(0))
            .collect();
        let plan = plan.join("\n");
        assert!(plan.contains("matches_pkey"), "{name}:\n{plan}");
        assert!(!plan.contains("Seq Scan on matches"), "{name}:\n{plan}");
    }
    store.close().await;
}

/// Event `seq` of match `id`, for the outbox.
fn event(id: &str, seq: u64) -> OutboxEvent {
    OutboxEvent {
        match_id: id.to_owned(),
        seq,
        subject: format!("cardhouse.match.jass.{id}"),
        payload: vec![seq as u8; 3],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_outbox_a_changes_events_are_written_exactly_when_it_applies() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let config = PgConfig {
        pool_size: 4,
        notices: false,
        ..PgConfig::new(db.url.clone())
    };
    let store = PgStore::open_with(&config, true).await.expect("the store");
    for i in 0..3 {
        store
            .submit_create(
                &stored(&id(i), &state_with(&[])),
                0,
                false,
                10,
                &[event(&id(i), 1)],
            )
            .expect("queued")
            .wait()
            .await
            .expect("created");
    }
    // Queued together: actions appended (match 0), a snapshot with notices (match 1), a
    // change on a version its match is not at (match 2).
    let m0 = stored(&id(0), &state_with(&[5, 6]));
    let mut m1 = stored(&id(1), &state_with(&[9]));
    m1.notices = 2;
    let m2 = stored(&id(2), &state_with(&[5, 6]));
    let (e0, e1, e2) = (
        [event(&id(0), 2), event(&id(0), 3)],
        [event(&id(1), 2)],
        [event(&id(2), 2)],
    );
    let (s0, s1, s2) = (|| m0.clone(), || m1.clone(), || m2.clone());
    let changes = [
        (&m0, 0, false, &s0 as &dyn Fn() -> StoredMatch, &e0[..]),
        (&m1, 0, true, &s1 as &dyn Fn() -> StoredMatch, &e1[..]),
        (&m2, 5, false, &s2 as &dyn Fn() -> StoredMatch, &e2[..]),
    ];
    let mut acks = Vec::new();
    for (m, version, snapshot, stored, events) in changes {
        let change = Change {
            id: &m.id,
            version,
            from: 0,
            actions: &[5, 6],
            snapshot,
            stored,
            driving: false,
            events,
        };
        acks.push(store.submit_change(&change).expect("queued"));
    }
    let outcomes: Vec<bool> = {
        let mut out = Vec::new();
        for ack in acks {
            out.push(ack.wait().await.is_ok());
        }
        out
    };
    assert_eq!(outcomes, [true, true, false]);
    let client = db.client().await;
    let rows = client
        .query("SELECT match_id, seq FROM outbox ORDER BY id", &[])
        .await
        .expect("the outbox");
    let mut written: Vec<(String, i64)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    // Each match's in sequence order (commit order), none of the change refused.
    for i in 0..3 {
        let seqs: Vec<i64> = written
            .iter()
            .filter(|(m, _)| *m == id(i))
            .map(|(_, s)| *s)
            .collect();
        let want: &[i64] = match i {
            0 => &[1, 2, 3],
            1 => &[1, 2],
            _ => &[1],
        };
        assert_eq!(seqs, want, "match {i}");
    }
    written.sort();
    assert_eq!(written.len(), 6);
    // The snapshot's header holds the count of notices.
    let Ok(Newer::Changed(loaded)) = store.load(&id(1), None).await else {
        panic!("match 1 did not load");
    };
    assert_eq!(loaded.stored.notices, 2);
    // The relay's side: every event, in commit order, until marked relayed.
    let outbox = store.outbox().expect("an outbox");
    let pending = outbox.pending(100).await.expect("pending");
    let got: Vec<(String, u64)> = pending
        .iter()
        .map(|e| (e.match_id.clone(), e.seq))
        .collect();
    assert_eq!(got.len(), 6, "{got:?}");
    assert_eq!(
        pending.iter().find(|e| e.match_id == id(0) && e.seq == 3),
        Some(&e0[1])
    );
    outbox
        .relayed(&[(id(0), 3), (id(1), 1)])
        .await
        .expect("relayed");
    let left: Vec<(String, u64)> = outbox
        .pending(100)
        .await
        .expect("pending")
        .iter()
        .map(|e| (e.match_id.clone(), e.seq))
        .collect();
    // In commit order: match 2's creation came before match 1's change.
    assert_eq!(left, [(id(2), 1), (id(1), 2)]);
    // A store without an outbox writes none, whatever a change carries.
    let plain = PgStore::open(&config).await.expect("the store");
    let m0 = stored(&id(0), &state_with(&[5, 6, 7]));
    let change = Change {
        id: &m0.id,
        version: 1,
        from: 2,
        actions: &[7],
        snapshot: false,
        stored: &|| m0.clone(),
        driving: false,
        events: &[event(&id(0), 4)],
    };
    plain
        .submit_change(&change)
        .expect("queued")
        .wait()
        .await
        .expect("written");
    let count: i64 = client
        .query_one("SELECT count(*) FROM outbox", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(count, 2);
}
