//! The stateless Engine service against a real server: whole games equal the engine, batched
//! stepping, golden playthroughs, and every error code.

mod common;

use cardhouse::{Rng, SeededRng, Viewer};
use cardhouse_server::convert::{json_to_struct, struct_to_json};
use cardhouse_server::pb;
use common::{TestServer, opts};
use tonic::Code;

fn seat_of(p: &pb::Player) -> Option<usize> {
    (p.kind == pb::PlayerKind::Seat as i32).then_some(p.seat() as usize)
}

/// JSON normalized the way it travels (through a protobuf Struct).
fn normalized(v: serde_json::Value) -> serde_json::Value {
    struct_to_json(&json_to_struct(v))
}

#[tokio::test]
async fn list_games_names_every_registered_game_with_options_and_shapes() {
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    let games = engine
        .list_games(pb::ListGamesRequest {})
        .await
        .unwrap()
        .into_inner()
        .games;
    let names: Vec<_> = games
        .iter()
        .map(|g| g.info.as_ref().unwrap().name.clone())
        .collect();
    assert_eq!(names, cardhouse::list_games());
    for g in &games {
        let info = g.info.as_ref().unwrap();
        let local = cardhouse::new_game(&info.name, &Default::default()).unwrap();
        assert_eq!(info.num_players as usize, local.num_players());
        assert_eq!(
            info.num_distinct_actions as usize,
            local.num_distinct_actions()
        );
        let shape: Vec<usize> = info.observation_shape.iter().map(|&d| d as usize).collect();
        assert_eq!(shape, local.observation_shape());
        assert_eq!(g.option_specs.len(), local.option_specs().len());
        assert!(g.option_specs.iter().any(|s| s.name == "scope"));
    }
    server.stop().await;
}

/// Plays a whole game of every registered game one rpc at a time (explicit chance outcomes,
/// seeded random actions) and checks each step against the engine in process.
#[tokio::test]
async fn whole_game_of_every_registered_game_equals_the_engine() {
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    for &name in cardhouse::list_games() {
        let game = cardhouse::new_game(name, &Default::default()).unwrap();
        let mut local = game.new_initial_state();
        let mut remote = engine
            .new_initial_state(pb::NewInitialStateRequest {
                game: name.to_owned(),
                options: Default::default(),
            })
            .await
            .unwrap()
            .into_inner()
            .state
            .unwrap();
        let mut rng = SeededRng::new(11);
        while !local.is_terminal() {
            assert_eq!(remote.state, local.to_bytes());
            assert_eq!(remote.legal_actions, local.legal_actions().to_vec());
            assert_eq!(remote.is_terminal, local.is_terminal());
            let legal = local.legal_actions();
            let a = legal.nth(rng.below(legal.len() as u64) as usize).unwrap();
            if local.is_chance_node() {
                remote = engine
                    .apply_chance(pb::ApplyChanceRequest {
                        state: remote.state,
                        source: Some(pb::apply_chance_request::Source::Outcome(a)),
                    })
                    .await
                    .unwrap()
                    .into_inner()
                    .state
                    .unwrap();
            } else {
                let seat = seat_of(remote.current_player.as_ref().unwrap()).unwrap();
                if local.move_number().is_multiple_of(17) {
                    let obs = engine
                        .observe(pb::ObserveRequest {
                            state: remote.state.clone(),
                            viewer: pb::ViewerKind::Seat as i32,
                            seat: seat as u32,
                            include_observation: true,
                        })
                        .await
                        .unwrap()
                        .into_inner();
                    assert_eq!(obs.observation, local.observation(seat).unwrap());
                    assert_eq!(
                        struct_to_json(obs.view.as_ref().unwrap()),
                        normalized(local.view(Viewer::Seat(seat)).unwrap())
                    );
                }
                remote = engine
                    .apply_action(pb::ApplyActionRequest {
                        state: remote.state,
                        action: Some(pb::apply_action_request::Action::ActionId(a)),
                    })
                    .await
                    .unwrap()
                    .into_inner()
                    .state
                    .unwrap();
            }
            local.apply(a).unwrap();
        }
        assert_eq!(remote.state, local.to_bytes());
        assert!(remote.is_terminal);
        assert_eq!(remote.returns, local.returns().to_vec());
    }
    server.stop().await;
}

#[tokio::test]
async fn apply_chance_by_seed_equals_the_engine_generator() {
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    let game = cardhouse::new_game("jass", &Default::default()).unwrap();
    let initial = game.new_initial_state();
    let dealt = engine
        .apply_chance(pb::ApplyChanceRequest {
            state: initial.to_bytes(),
            source: Some(pb::apply_chance_request::Source::Seed(99)),
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap();
    let mut local = initial.clone();
    local.resolve_chance(&mut SeededRng::new(99)).unwrap();
    assert_eq!(dealt.state, local.to_bytes());
    // Text actions work as well as ids.
    let legal = engine
        .legal_actions(pb::LegalActionsRequest {
            state: dealt.state.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = &legal.actions[0];
    let by_text = engine
        .apply_action(pb::ApplyActionRequest {
            state: dealt.state.clone(),
            action: Some(pb::apply_action_request::Action::ActionText(
                first.text.clone(),
            )),
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap();
    local.apply(first.id()).unwrap();
    assert_eq!(by_text.state, local.to_bytes());
    server.stop().await;
}

#[tokio::test]
async fn batch_step_is_reproducible_and_counts_steps() {
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    let req = pb::BatchStepRequest {
        start: Some(pb::batch_step_request::Start::Fresh(pb::FreshStates {
            game: "jass".into(),
            options: opts(&[("scope", "deal"), ("wys", "auto")]),
            count: 50,
        })),
        policy: Some(pb::batch_step_request::Policy::Random(pb::RandomPolicy {
            seed: 5,
        })),
        max_steps: 0,
        return_states: true,
    };
    let a = engine.batch_step(req.clone()).await.unwrap().into_inner();
    let b = engine.batch_step(req).await.unwrap().into_inner();
    assert_eq!(a, b);
    assert_eq!(a.results.len(), 50);
    let mut steps = 0u64;
    for r in &a.results {
        assert!(r.is_terminal);
        let state = cardhouse::state_from_bytes(&r.state).unwrap();
        assert!(state.is_terminal());
        assert_eq!(state.returns().to_vec(), r.returns);
        assert_eq!(
            state.move_number() as u64,
            u64::from(r.steps) + u64::from(r.chance_outcomes)
        );
        steps += u64::from(r.steps);
    }
    assert_eq!(steps, a.total_steps);
    assert_eq!(a.total_chance_outcomes, 50 * 36);

    // Continue those states by a bounded number of steps, and by a script.
    let fresh = engine
        .batch_step(pb::BatchStepRequest {
            start: Some(pb::batch_step_request::Start::Fresh(pb::FreshStates {
                game: "jass".into(),
                options: Default::default(),
                count: 3,
            })),
            policy: Some(pb::batch_step_request::Policy::Random(pb::RandomPolicy {
                seed: 1,
            })),
            max_steps: 4,
            return_states: true,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(fresh.results.iter().all(|r| r.steps == 4));
    let states: Vec<_> = fresh.results.iter().map(|r| r.state.clone()).collect();
    let script: Vec<_> = states
        .iter()
        .map(|b| {
            let s = cardhouse::state_from_bytes(b).unwrap();
            pb::ActionList {
                actions: vec![s.legal_actions().nth(0).unwrap()],
            }
        })
        .collect();
    let scripted = engine
        .batch_step(pb::BatchStepRequest {
            start: Some(pb::batch_step_request::Start::States(pb::StateList {
                states: states.clone(),
            })),
            policy: Some(pb::batch_step_request::Policy::Script(pb::ActionScript {
                per_state: script.clone(),
            })),
            max_steps: 0,
            return_states: true,
        })
        .await
        .unwrap()
        .into_inner();
    for ((r, b), list) in scripted.results.iter().zip(&states).zip(&script) {
        let mut s = cardhouse::state_from_bytes(b).unwrap();
        s.apply(list.actions[0]).unwrap();
        assert_eq!(r.state, s.to_bytes());
        assert_eq!(r.steps, 1);
    }
    server.stop().await;
}

fn golden_files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

fn option_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every golden playthrough under `tests/golden/` replayed through the Engine service:
/// legal actions, acting seat's views, the final history, returns and view must agree.
#[tokio::test]
async fn golden_playthroughs_replay_over_grpc() {
    let files = golden_files();
    if files.is_empty() {
        eprintln!("no golden playthroughs under tests/golden yet; skipping");
        return;
    }
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    for path in files {
        let name = path.display().to_string();
        let golden: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(golden["format"], "cardhouse-golden/1", "{name}");
        let options = golden["options"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), option_text(v)))
            .collect();
        let mut state = engine
            .new_initial_state(pb::NewInitialStateRequest {
                game: golden["game"].as_str().unwrap().to_owned(),
                options,
            })
            .await
            .unwrap()
            .into_inner()
            .state
            .unwrap();
        for step in golden["steps"].as_array().unwrap() {
            let i = step["move"].as_u64().unwrap();
            assert_eq!(state.move_number, i, "{name} move {i}");
            let legal: Vec<u32> = step["legal_actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_u64().unwrap() as u32)
                .collect();
            assert_eq!(state.legal_actions, legal, "{name} move {i}");
            let action = step["action"].as_u64().unwrap() as u32;
            let player = step["player"].as_i64().unwrap();
            let listed = engine
                .legal_actions(pb::LegalActionsRequest {
                    state: state.state.clone(),
                })
                .await
                .unwrap()
                .into_inner();
            let text = &listed
                .actions
                .iter()
                .find(|a| a.id() == action)
                .unwrap()
                .text;
            assert_eq!(text, step["text"].as_str().unwrap(), "{name} move {i}");
            if player < 0 {
                assert_eq!(
                    listed.current_player.unwrap().kind,
                    pb::PlayerKind::Chance as i32
                );
                state = engine
                    .apply_chance(pb::ApplyChanceRequest {
                        state: state.state,
                        source: Some(pb::apply_chance_request::Source::Outcome(action)),
                    })
                    .await
                    .unwrap()
                    .into_inner()
                    .state
                    .unwrap();
            } else {
                assert_eq!(
                    seat_of(listed.current_player.as_ref().unwrap()),
                    Some(player as usize)
                );
                if let Some(view) = step.get("view") {
                    let got = engine
                        .observe(pb::ObserveRequest {
                            state: state.state.clone(),
                            viewer: pb::ViewerKind::Seat as i32,
                            seat: player as u32,
                            include_observation: false,
                        })
                        .await
                        .unwrap()
                        .into_inner();
                    assert_eq!(
                        struct_to_json(got.view.as_ref().unwrap()),
                        normalized(view.clone()),
                        "{name} move {i}: view of seat {player}"
                    );
                }
                state = engine
                    .apply_action(pb::ApplyActionRequest {
                        state: state.state,
                        action: Some(pb::apply_action_request::Action::ActionId(action)),
                    })
                    .await
                    .unwrap()
                    .into_inner()
                    .state
                    .unwrap();
            }
        }
        let fin = &golden["final"];
        let returns: Vec<f64> = fin["returns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_f64().unwrap())
            .collect();
        assert_eq!(state.returns, returns, "{name}");
        let history: Vec<u32> = fin["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(
            cardhouse::state_from_bytes(&state.state).unwrap().history(),
            history,
            "{name}"
        );
        if let Some(view) = fin.get("view") {
            let got = engine
                .observe(pb::ObserveRequest {
                    state: state.state.clone(),
                    viewer: pb::ViewerKind::Omniscient as i32,
                    seat: 0,
                    include_observation: false,
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(
                struct_to_json(got.view.as_ref().unwrap()),
                normalized(view.clone()),
                "{name}: final view"
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn errors_map_to_status_codes() {
    let server = TestServer::start(cardhouse_server::Config {
        engine: cardhouse_server::engine_service::EngineLimits {
            max_batch_states: 10,
            ..Default::default()
        },
        max_message_bytes: 64 * 1024,
        ..Default::default()
    })
    .await;
    let mut engine = server.engine().await;

    let err = engine
        .new_initial_state(pb::NewInitialStateRequest {
            game: "poker".into(),
            options: Default::default(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("jass"), "{}", err.message());

    let err = engine
        .describe_game(pb::DescribeGameRequest {
            game: "jass".into(),
            options: opts(&[("scope", "forever")]),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("match, deal"), "{}", err.message());

    let err = engine
        .describe_game(pb::DescribeGameRequest {
            game: "jass".into(),
            options: opts(&[("colour", "red")]),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);

    let err = engine
        .legal_actions(pb::LegalActionsRequest {
            state: b"not a state".to_vec(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = engine
        .legal_actions(pb::LegalActionsRequest { state: vec![] })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);

    let game = cardhouse::new_game("jass", &Default::default()).unwrap();
    let mut dealt = game.new_initial_state();
    dealt.resolve_chance(&mut SeededRng::new(1)).unwrap();
    let apply = |a: u32| pb::ApplyActionRequest {
        state: dealt.to_bytes(),
        action: Some(pb::apply_action_request::Action::ActionId(a)),
    };
    let err = engine.apply_action(apply(100_000)).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{}", err.message());
    // A card play before the mode is chosen is illegal.
    let err = engine.apply_action(apply(0)).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{}", err.message());
    let err = engine
        .apply_action(pb::ApplyActionRequest {
            state: dealt.to_bytes(),
            action: Some(pb::apply_action_request::Action::ActionText("fold".into())),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    // Chance asked where no chance is pending.
    let err = engine
        .apply_chance(pb::ApplyChanceRequest {
            state: dealt.to_bytes(),
            source: Some(pb::apply_chance_request::Source::Seed(1)),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    let err = engine
        .observe(pb::ObserveRequest {
            state: dealt.to_bytes(),
            viewer: pb::ViewerKind::Seat as i32,
            seat: 9,
            include_observation: true,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);

    let err = engine
        .batch_step(pb::BatchStepRequest {
            start: Some(pb::batch_step_request::Start::Fresh(pb::FreshStates {
                game: "jass".into(),
                options: Default::default(),
                count: 11,
            })),
            policy: Some(pb::batch_step_request::Policy::Random(pb::RandomPolicy {
                seed: 1,
            })),
            max_steps: 1,
            return_states: false,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);

    // A request over the message size limit.
    let err = engine
        .legal_actions(pb::LegalActionsRequest {
            state: vec![7; 128 * 1024],
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{}", err.message());
    server.stop().await;
}
