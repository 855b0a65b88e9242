//! Every registered game on every surface: the engine's registry is the one list, and each
//! surface must offer all of it (the Engine service, the Matches service's descriptions that
//! the web table reads, a match of it, its golden playthroughs). A game missing anywhere
//! fails here; the Python suites iterate over `cardhouse.list_games()` (and
//! `python/tests/test_game.py` checks its wrappers), the browser test checks the lobby.

mod common;

use cardhouse_server::pb;
use common::{TestServer, opts};
use tonic::Code;

fn registry() -> Vec<String> {
    cardhouse::list_games()
        .iter()
        .map(|&n| n.to_owned())
        .collect()
}

#[tokio::test]
async fn every_game_is_offered_by_every_service() {
    let server = TestServer::memory().await;
    let mut engine = server.engine().await;
    let listed: Vec<String> = engine
        .list_games(pb::ListGamesRequest {})
        .await
        .unwrap()
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.info.unwrap().name)
        .collect();
    assert_eq!(listed, registry());

    let mut matches = server.matches().await;
    let described = matches
        .describe_games(pb::DescribeGamesRequest { games: vec![] })
        .await
        .unwrap()
        .into_inner()
        .games;
    let names: Vec<String> = described
        .iter()
        .map(|g| g.info.as_ref().unwrap().name.clone())
        .collect();
    assert_eq!(names, registry());
    for d in &described {
        let info = d.info.as_ref().unwrap();
        let game = cardhouse::new_game(&info.name, &cardhouse::Options::new()).unwrap();
        assert_eq!(info.num_players as usize, game.num_players());
        assert!(!d.option_specs.is_empty(), "{}: no options", info.name);
        // The card notation draws every card of the pack from its text.
        let cards = d.cards.as_ref().unwrap();
        assert_eq!(cards.style, game.notation().name());
        assert_eq!(cards.suits.len(), 4);
        assert_eq!(
            cards.suits.len() * cards.ranks.len(),
            game.pack().len(),
            "{}",
            info.name
        );
        for card in game.pack().cards().iter() {
            let text = game.notation().card(card);
            let rank = cards.ranks.iter().find(|r| text.starts_with(&r.text));
            let suit = cards.suits.iter().find(|s| text.ends_with(&s.letter));
            assert!(rank.is_some() && suit.is_some(), "{}: {text}", info.name);
        }
        // A match of it can be created, with a human and a bot.
        let mut seats = vec![pb::SeatKind::HeuristicBot as i32; game.num_players()];
        seats[0] = pb::SeatKind::Human as i32;
        let created = matches
            .create_match(pb::CreateMatchRequest {
                game: info.name.clone(),
                options: Default::default(),
                seed: Some(1),
                seats,
                ismcts_iterations: None,
                bots: Default::default(),
                time_control: None,
            })
            .await;
        assert!(created.is_ok(), "{}: {created:?}", info.name);
    }

    // Options change the description (Cribbage's seats); bad ones are named.
    let three = matches
        .describe_games(pb::DescribeGamesRequest {
            games: vec![pb::GameOptions {
                game: "cribbage".into(),
                options: opts(&[("players", "3")]),
            }],
        })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(three[0].info.as_ref().unwrap().num_players, 3);
    let bad = matches
        .describe_games(pb::DescribeGamesRequest {
            games: vec![pb::GameOptions {
                game: "cribbage".into(),
                options: opts(&[("players", "5")]),
            }],
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), Code::InvalidArgument);
    assert!(bad.message().contains("players"), "{}", bad.message());
    let unknown = matches
        .describe_games(pb::DescribeGamesRequest {
            games: vec![pb::GameOptions {
                game: "skat".into(),
                options: Default::default(),
            }],
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Code::InvalidArgument);
    assert!(unknown.message().contains("jass"), "{}", unknown.message());
    server.stop().await;
}

/// The checklist's three golden playthroughs per game (replayed by the Rust, Python and gRPC
/// suites, which take every file of `tests/golden`).
#[test]
fn every_game_has_golden_playthroughs() {
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let files: Vec<String> = std::fs::read_dir(&golden)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in registry() {
        let count = files
            .iter()
            .filter(|f| f.starts_with(&format!("{name}_")))
            .count();
        assert!(
            count >= 3,
            "{name}: {count} golden playthroughs in tests/golden, not 3"
        );
    }
}

/// The web table's unit tests draw cards with the card notations the server describes; their
/// fixture (`web/test/fixtures/card_notations.json`) is the server's answer, checked here
/// (regenerate with `CARDHOUSE_REGENERATE_GOLDEN=1`).
#[tokio::test]
#[allow(clippy::disallowed_methods)] // tests may write files: this regenerates the fixture
async fn the_web_tests_fixture_is_the_servers_card_notations() {
    let server = TestServer::memory().await;
    let mut matches = server.matches().await;
    let described = matches
        .describe_games(pb::DescribeGamesRequest { games: vec![] })
        .await
        .unwrap()
        .into_inner()
        .games;
    let mut all = serde_json::Map::new();
    for d in described {
        let cards = d.cards.unwrap();
        // Protobuf's JSON form of a CardNotation (its field names are single words).
        let suits: Vec<_> = cards
            .suits
            .iter()
            .map(|s| serde_json::json!({"letter": s.letter, "symbol": s.symbol, "name": s.name}))
            .collect();
        let ranks: Vec<_> = cards
            .ranks
            .iter()
            .map(|r| serde_json::json!({"text": r.text, "name": r.name}))
            .collect();
        all.insert(
            d.info.unwrap().name,
            serde_json::json!({"style": cards.style, "suits": suits, "ranks": ranks}),
        );
    }
    let text = serde_json::to_string_pretty(&serde_json::Value::Object(all)).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../web/test/fixtures/card_notations.json");
    if std::env::var_os("CARDHOUSE_REGENERATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        committed,
        text,
        "{} differs from the server's card notations; regenerate with CARDHOUSE_REGENERATE_GOLDEN=1",
        path.display()
    );
    server.stop().await;
}
