//! The server's promises under crashes, cancellation, corruption and abuse, proved against
//! the real `cardhouse` binary on `127.0.0.1:0`.
//!
//! Every load loop here is bounded in count and in time, and talks only to the server the
//! test started on the loopback interface.
//!
//! One test binary, a module per section; the server starts and the clients are here.

#[path = "../common/mod.rs"]
mod common;
mod corruption;
mod crashes;
mod engine;
mod lifecycle;
mod limits;
mod protocol;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::engine_client::EngineClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use common::process::{Failed, Server};

/// `cardhouse serve --data-dir <data> <extra>` on `127.0.0.1:0`.
fn start(data: &Path, extra: &[&str]) -> Result<Server, Failed> {
    let data = data.to_str().expect("a UTF-8 temporary path");
    let mut args = vec!["--data-dir", data];
    args.extend_from_slice(extra);
    Server::start(&args)
}

fn must_start(data: &Path, extra: &[&str]) -> Server {
    start(data, extra).unwrap_or_else(|f| panic!("server did not start: {f:?}"))
}

fn authed<T>(token: &str, msg: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// A match with seat 0 human and three random bots: every Act of seat 0 lets the bots play
/// until seat 0 is to move again.
struct Game {
    id: String,
    token: String,
    owner: String,
}

async fn create(client: &mut MatchesClient<Channel>, seed: u64) -> Game {
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: [("wys".to_owned(), "auto".to_owned())].into(),
            seed: Some(seed),
            seats: vec![
                pb::SeatKind::Human as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
            ],
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .expect("create")
        .into_inner();
    Game {
        id: r.match_id,
        token: r.seat_tokens[0].token.clone(),
        owner: r.owner_token,
    }
}

async fn view(client: &mut MatchesClient<Channel>, g: &Game) -> pb::MatchView {
    client
        .get_view(authed(
            &g.token,
            pb::GetViewRequest {
                match_id: g.id.clone(),
            },
        ))
        .await
        .expect("view")
        .into_inner()
        .view
        .expect("view")
}

fn act_request(g: &Game, v: &pb::MatchView, pick: usize) -> pb::ActRequest {
    let legal = &v.legal_actions;
    pb::ActRequest {
        match_id: g.id.clone(),
        action: Some(pb::act_request::Action::ActionId(
            legal[pick % legal.len()].id(),
        )),
        expected_move_number: Some(v.move_number),
        include_view: false,
    }
}

fn active(v: &pb::MatchView) -> bool {
    v.status == pb::MatchStatus::Active as i32
}

/// Views compared as a client sees them (the structured view included).
fn same_view(a: &pb::MatchView, b: &pb::MatchView) -> bool {
    a == b
}
