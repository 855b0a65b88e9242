//! The file descriptor limit, against the real `cardhouse` binary on `127.0.0.1:0` started
//! under `prlimit --nofile=256:256` (util-linux): the server lowers `--max-connections` to
//! what 256 descriptors can hold (with a warning naming both numbers), and with 300 idle
//! connections open a new client is still served at once. Bounded in count and time.

mod common;

use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::process::{Server, command_under};
use tonic::transport::Channel;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_256_descriptors_300_idle_connections_do_not_keep_a_new_client_out() {
    let found = std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "this test needs `prlimit` (util-linux) to start the server under a limit"
    );
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let server = Server::spawn_command(command_under(
        &["prlimit", "--nofile=256:256", "--"],
        &["--data-dir", data],
    ))
    .must_wait();
    let log = server.stderr();
    assert!(
        log.contains("--max-connections 4096 lowered to 192") && log.contains("256 files"),
        "the server should say it lowered the connection limit:\n{log}"
    );
    // 300 connections that never send a byte (more than the server may hold).
    let mut idle = Vec::new();
    for _ in 0..300 {
        idle.push(
            tokio::net::TcpStream::connect(server.addr)
                .await
                .expect("connect"),
        );
    }
    // A new client is served at once: within two seconds of asking, in one attempt.
    let t = Instant::now();
    let channel = Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(2))
        .connect()
        .await
        .expect("a new client connects");
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let status = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health answers")
        .into_inner()
        .status;
    assert_eq!(
        status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
    MatchesClient::new(channel)
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            ..Default::default()
        })
        .await
        .expect("a match is created");
    let took = t.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "the new client waited {took:?}"
    );
    drop(idle);
    let (status, _) = server.term();
    assert!(status.success());
}
