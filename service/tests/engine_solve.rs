//! `Engine.Solve` against a real server: the exact solver's values of late positions of every
//! game with trick play equal the engine's in process, with the action texts; a game without
//! trick play and a state outside the play are INVALID_ARGUMENT with the reason.

mod common;

use cardhouse::solve::Solver;
use cardhouse::{AnyState, SeededRng};
use cardhouse_server::pb;
use common::{TestServer, opts};
use tonic::Code;

/// The decisions of a random deal of `game` (`scope = deal`), in order.
fn decisions(game: &str, seed: u64) -> Vec<AnyState> {
    let game = cardhouse::new_game(game, &cardhouse::options([("scope", "deal".into())])).unwrap();
    let mut state = game.new_initial_state();
    let mut rng = SeededRng::new(seed);
    let mut out = Vec::new();
    while !state.is_terminal() {
        if state.is_chance_node() {
            state.resolve_chance(&mut rng).unwrap();
        } else {
            out.push(state.clone());
            let a = state.legal_actions().choose(&mut rng).unwrap();
            state.apply(a).unwrap();
        }
    }
    out
}

#[tokio::test]
async fn solve_gives_the_engine_s_values_with_the_action_texts() {
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    let mut solver = Solver::new();
    for name in ["jass", "klaberjass", "avinas"] {
        // The last decisions of a deal: its last tricks.
        for state in decisions(name, 3).iter().rev().take(6) {
            let expected = solver.solve(state.solvable().unwrap()).unwrap();
            let got = engine
                .solve(pb::SolveRequest {
                    state: state.to_bytes(),
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(got.seat as usize, expected.seat, "{name}");
            assert_eq!(got.value, expected.value, "{name}");
            let values: Vec<(u32, i32)> = got
                .actions
                .iter()
                .map(|a| (a.id.expect("an id"), a.value))
                .collect();
            assert_eq!(values, expected.actions, "{name}");
            for a in &got.actions {
                assert_eq!(a.text, state.action_to_string(a.id.unwrap()), "{name}");
            }
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn solve_refuses_what_it_cannot_solve_with_the_reason() {
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    // Cribbage has no trick play.
    let cribbage = decisions("cribbage", 1).remove(0);
    let err = engine
        .solve(pb::SolveRequest {
            state: cribbage.to_bytes(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().contains("cribbage cannot be solved"),
        "{err:?}"
    );
    // Jass before the play: the choice of the mode.
    let bidding = decisions("jass", 1).remove(0);
    let err = engine
        .solve(pb::SolveRequest {
            state: bidding.to_bytes(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().contains("cannot solve this jass state"),
        "{err:?}"
    );
    // A chance node.
    let fresh = engine
        .new_initial_state(pb::NewInitialStateRequest {
            game: "klaberjass".into(),
            options: opts(&[("scope", "deal")]),
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap();
    let err = engine
        .solve(pb::SolveRequest { state: fresh.state })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("klaberjass"), "{err:?}");
    // Bytes that are no state.
    let err = engine
        .solve(pb::SolveRequest {
            state: vec![1, 2, 3],
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    server.stop().await;
}
