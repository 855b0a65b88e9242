//! The Matches service against a real server: whole matches equal the engine, per-seat
//! isolation of views and streams, optimistic concurrency, restart persistence, concurrency,
//! and every error code.
//!
//! One test binary, a module per concern; the match helpers and the engine replay of a
//! record are here.

mod bots;
mod clocks;
#[path = "../common/mod.rs"]
mod common;
mod concurrency;
mod errors;
mod isolation;
mod play;
mod watch;

use std::collections::HashMap;

use cardhouse::{AnyState, Player, Rng, SeededRng, Viewer};
use cardhouse_server::convert::{json_to_struct, struct_to_json};
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::{TestServer, authed, opts};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

fn normalized(v: serde_json::Value) -> serde_json::Value {
    struct_to_json(&json_to_struct(v))
}

fn seat_of(p: &pb::Player) -> Option<usize> {
    (p.kind == pb::PlayerKind::Seat as i32).then_some(p.seat() as usize)
}

struct Created {
    id: String,
    seats: HashMap<usize, String>,
    owner: String,
    spectator: String,
}

async fn create(
    client: &mut MatchesClient<Channel>,
    options: &[(&str, &str)],
    seed: u64,
    seats: Vec<pb::SeatKind>,
) -> Created {
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: opts(options),
            seed: Some(seed),
            seats: seats.into_iter().map(|k| k as i32).collect(),
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.seed, seed);
    Created {
        id: r.match_id,
        seats: r
            .seat_tokens
            .into_iter()
            .map(|t| (t.seat() as usize, t.token))
            .collect(),
        owner: r.owner_token,
        spectator: r.spectator_token,
    }
}

async fn view(client: &mut MatchesClient<Channel>, m: &Created, token: &str) -> pb::MatchView {
    client
        .get_view(authed(
            token,
            pb::GetViewRequest {
                match_id: m.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap()
}

async fn act(
    client: &mut MatchesClient<Channel>,
    m: &Created,
    seat: usize,
    action: u32,
    expected: u64,
) -> Result<pb::MatchView, tonic::Status> {
    client
        .act(authed(
            &m.seats[&seat],
            pb::ActRequest {
                match_id: m.id.clone(),
                action: Some(pb::act_request::Action::ActionId(action)),
                expected_move_number: Some(expected),
                include_view: false,
            },
        ))
        .await
        .map(|r| r.into_inner().view.unwrap())
}

/// Plays seeded random moves until the match ends or `max_moves` human moves were made.
/// Checks every seat view it fetches against the engine replay of the record so far.
async fn play(
    client: &mut MatchesClient<Channel>,
    m: &Created,
    rng: &mut SeededRng,
    max_moves: usize,
) -> usize {
    let mut moves = 0;
    while moves < max_moves {
        let spectator = view(client, m, &m.spectator).await;
        if spectator.status != pb::MatchStatus::Active as i32 {
            break;
        }
        let seat = seat_of(spectator.current_player.as_ref().unwrap()).unwrap();
        let v = view(client, m, &m.seats[&seat]).await;
        assert_eq!(v.role, pb::Role::Seat as i32);
        assert_eq!(v.seat() as usize, seat);
        assert!(!v.legal_actions.is_empty());
        let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        let after = act(client, m, seat, a, v.move_number).await.unwrap();
        assert!(after.move_number > v.move_number);
        moves += 1;
    }
    moves
}

async fn record(client: &mut MatchesClient<Channel>, m: &Created) -> pb::GetRecordResponse {
    client
        .get_record(authed(
            &m.owner,
            pb::GetRecordRequest {
                match_id: m.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

/// Replays a record on the engine and checks it: every step legal, the final state, returns
/// and the omniscient final view equal.
fn check_record(rec: &pb::GetRecordResponse) -> AnyState {
    let info = rec.game.as_ref().unwrap();
    let options = info
        .options
        .iter()
        .map(|(k, v)| (k.clone(), cardhouse::OptionValue::Str(v.clone())))
        .collect();
    let game = cardhouse::new_game(&info.name, &options).unwrap();
    let mut state = game.new_initial_state();
    for (i, step) in rec.steps.iter().enumerate() {
        assert_eq!(step.index() as usize, i);
        assert_eq!(step.text, state.action_to_string(step.action()));
        state.apply(step.action()).unwrap();
    }
    assert_eq!(state.to_bytes(), rec.state);
    assert_eq!(state.returns().to_vec(), rec.returns);
    assert_eq!(
        struct_to_json(rec.final_view.as_ref().unwrap()),
        normalized(state.view(Viewer::Omniscient).unwrap())
    );
    state
}

const ALL_HUMAN: [pb::SeatKind; 4] = [pb::SeatKind::Human; 4];
