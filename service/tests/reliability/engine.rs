//! The Engine service is bounded, stops when its client goes, and can be switched off or
//! put behind a credential.

use super::*;

// ---------------------------------------------------------------------------------------------
// Engine service bounds
// ---------------------------------------------------------------------------------------------

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, r)| r.split_whitespace().collect())
        .unwrap_or_default();
    let f = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    f(11) + f(12)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_step_is_bounded_and_stops_when_its_client_goes() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-batch-actions", "2000000"]);
    let mut e = EngineClient::new(server.channel().await);
    let heavy = || pb::BatchStepRequest {
        start: Some(pb::batch_step_request::Start::Fresh(pb::FreshStates {
            game: "jass".into(),
            options: [("target_score".to_owned(), "1000000".to_owned())].into(),
            count: 100_000,
        })),
        policy: Some(pb::batch_step_request::Policy::Random(pb::RandomPolicy {
            seed: 1,
        })),
        max_steps: 0,
        return_states: true,
    };
    // Work bound: refused once the actions would exceed the limit.
    let err = e.batch_step(heavy()).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(err.message().contains("2000000"), "{}", err.message());
    // A client that goes away: its work stops (the server's CPU time stops growing).
    let server2 = must_start(
        &dir.path().join("second"),
        &["--max-batch-actions", "100000000000"],
    );
    let mut e2 = EngineClient::new(server2.channel().await);
    let mut req = tonic::Request::new(heavy());
    req.set_timeout(Duration::from_millis(300));
    let err = e2.batch_step(req).await.unwrap_err();
    assert!(
        matches!(err.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{err:?}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = server2.child.id();
    let before = cpu_ticks(pid);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let used = cpu_ticks(pid) - before;
    // 100 ticks = one core-second: a runaway batch would use about that.
    assert!(used < 30, "the batch kept running: {used} ticks in 1 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_service_can_be_switched_off_or_put_behind_a_credential() {
    let dir = tempfile::tempdir().unwrap();
    let list = || pb::ListGamesRequest {};
    let off = must_start(&dir.path().join("off"), &["--engine", "off"]);
    let mut e = EngineClient::new(off.channel().await);
    assert_eq!(
        e.list_games(list()).await.unwrap_err().code(),
        Code::Unimplemented
    );
    let locked = must_start(
        &dir.path().join("token"),
        &["--engine", "token", "--engine-token", "k3y"],
    );
    let mut e = EngineClient::new(locked.channel().await);
    assert_eq!(
        e.list_games(list()).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    e.list_games(authed("k3y", list())).await.unwrap();
}
