//! Conversions between engine values (and the match's own facts, [`crate::domain`]) and
//! protobuf messages.

use std::collections::{BTreeMap, HashMap};

use cardhouse::{
    AnyGame, AnyState, Card, Notation, OptionKind, OptionValue, Options, Player, Rank, Suit,
};
use prost_types::value::Kind;

use crate::domain::{BotSeat, MatchStatus, Seat};
use crate::error::ApiError;
use crate::pb;

/// Request options (text values; the engine accepts text for every kind).
pub fn options_from_pb(map: &HashMap<String, String>) -> Options {
    map.iter()
        .map(|(k, v)| (k.clone(), OptionValue::Str(v.clone())))
        .collect()
}

/// Options as canonical text.
pub fn options_to_pb(options: &Options) -> HashMap<String, String> {
    options
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect()
}

/// A seat kind of the API as the service's own seat; `None` for `SEAT_KIND_UNSPECIFIED` and
/// numbers the API does not define.
#[must_use]
pub fn seat_from_pb(kind: i32) -> Option<Seat> {
    match pb::SeatKind::try_from(kind).ok()? {
        pb::SeatKind::Unspecified => None,
        pb::SeatKind::Human => Some(Seat::Human),
        pb::SeatKind::RandomBot => Some(Seat::Bot(BotSeat::Random)),
        pb::SeatKind::HeuristicBot => Some(Seat::Bot(BotSeat::Heuristic)),
        pb::SeatKind::IsmctsBot => Some(Seat::Bot(BotSeat::Ismcts)),
        pb::SeatKind::Bot => Some(Seat::Bot(BotSeat::Named)),
    }
}

/// A seat as the API's seat kind.
#[must_use]
pub fn seat_to_pb(seat: Seat) -> pb::SeatKind {
    match seat {
        Seat::Human => pb::SeatKind::Human,
        Seat::Bot(BotSeat::Random) => pb::SeatKind::RandomBot,
        Seat::Bot(BotSeat::Heuristic) => pb::SeatKind::HeuristicBot,
        Seat::Bot(BotSeat::Ismcts) => pb::SeatKind::IsmctsBot,
        Seat::Bot(BotSeat::Named) => pb::SeatKind::Bot,
    }
}

/// A match status as the API's.
#[must_use]
pub fn status_to_pb(status: MatchStatus) -> pb::MatchStatus {
    match status {
        MatchStatus::Active => pb::MatchStatus::Active,
        MatchStatus::Finished => pb::MatchStatus::Finished,
        MatchStatus::Resigned => pb::MatchStatus::Resigned,
        MatchStatus::Aborted => pb::MatchStatus::Aborted,
        MatchStatus::TimedOut => pb::MatchStatus::TimedOut,
    }
}

pub fn player_to_pb(p: Player) -> pb::Player {
    match p {
        Player::Seat(s) => pb::Player {
            kind: pb::PlayerKind::Seat as i32,
            seat: Some(s as u32),
        },
        Player::Chance => pb::Player {
            kind: pb::PlayerKind::Chance as i32,
            seat: None,
        },
        Player::Terminal => pb::Player {
            kind: pb::PlayerKind::Terminal as i32,
            seat: None,
        },
    }
}

pub fn game_info(game: &AnyGame) -> pb::GameInfo {
    pb::GameInfo {
        name: game.name().to_owned(),
        rules_version: game.rules_version(),
        options: options_to_pb(&game.options()),
        num_players: game.num_players() as u32,
        num_distinct_actions: game.num_distinct_actions() as u32,
        max_chance_outcomes: game.max_chance_outcomes() as u32,
        observation_shape: game.observation_shape().iter().map(|&d| d as u32).collect(),
    }
}

pub fn game_description(game: &AnyGame) -> pb::GameDescription {
    pb::GameDescription {
        info: Some(game_info(game)),
        option_specs: game
            .option_specs()
            .iter()
            .map(|spec| {
                let mut out = pb::OptionSpec {
                    name: spec.name.to_owned(),
                    default_value: spec.default.to_owned(),
                    doc: spec.doc.to_owned(),
                    ..Default::default()
                };
                match spec.kind {
                    OptionKind::Bool => out.kind = pb::OptionKind::Bool as i32,
                    OptionKind::Int { min, max } => {
                        out.kind = pb::OptionKind::Int as i32;
                        out.int_min = min;
                        out.int_max = max;
                    }
                    OptionKind::Choice(names) => {
                        out.kind = pb::OptionKind::Choice as i32;
                        out.choices = names.iter().map(|&n| n.to_owned()).collect();
                    }
                }
                out
            })
            .collect(),
        observation_layout: game
            .observation_layout()
            .into_iter()
            .map(|s| pb::ObservationSlice {
                name: s.name.to_owned(),
                offset: s.offset as u32,
                shape: s.shape.iter().map(|&d| d as u32).collect(),
                meaning: s.meaning.to_owned(),
                low: s.low,
                high: s.high,
            })
            .collect(),
        min_return: game.min_return(),
        max_return: game.max_return(),
        max_game_length: game.max_game_length().map(|n| n as u64),
        cards: Some(card_notation(game)),
        bots: bot_names(game),
    }
}

/// The names of the bots that can play `game` (the engine's kinds, `pimc` where the game
/// has trick play to solve, and its shipped policies).
fn bot_names(game: &AnyGame) -> Vec<String> {
    let mut names: Vec<String> = ["random", "heuristic", "ismcts", "rollout"]
        .iter()
        .map(|&n| n.to_owned())
        .collect();
    if game.new_initial_state().solvable().is_ok() {
        names.push("pimc".to_owned());
    }
    for policy in cardhouse::bots::policy::shipped_names() {
        let name = format!("policy:{policy}");
        if name
            .parse::<cardhouse::bots::BotKind>()
            .is_ok_and(|b| b.check_game(game).is_ok())
        {
            names.push(name);
        }
    }
    names
}

/// How `game` writes its cards, and its pack.
fn card_notation(game: &AnyGame) -> pb::CardNotation {
    let notation = game.notation();
    let pack = game.pack().cards();
    pb::CardNotation {
        style: notation.name().to_owned(),
        suits: notation
            .suits()
            .iter()
            .map(|&suit| pb::CardSuit {
                letter: notation.suit_letter(suit).to_string(),
                symbol: match notation {
                    Notation::French => suit.symbol().to_string(),
                    Notation::Swiss => String::new(),
                },
                name: notation.suit_name(suit).to_owned(),
            })
            .collect(),
        ranks: Rank::ALL
            .iter()
            .filter(|&&rank| pack.contains(Card::new(rank, Suit::Clubs)))
            .map(|&rank| pb::CardRank {
                text: notation.rank_text(rank).to_owned(),
                name: notation.rank_name(rank).to_owned(),
            })
            .collect(),
    }
}

/// The legal actions with their text forms (and probabilities at a chance node).
pub fn legal_actions(state: &AnyState) -> Result<Vec<pb::LegalAction>, ApiError> {
    if state.is_chance_node() {
        return Ok(state
            .chance_outcomes()?
            .into_iter()
            .map(|(id, p)| pb::LegalAction {
                id: Some(id),
                text: state.action_to_string(id),
                probability: Some(p),
            })
            .collect());
    }
    Ok(player_legal_actions(state))
}

/// The legal actions of the seat to move, with their text forms. `probability` stays unset
/// (not on the wire, not in JSON): only chance outcomes carry one.
pub fn player_legal_actions(state: &AnyState) -> Vec<pb::LegalAction> {
    state
        .legal_actions()
        .iter()
        .map(|id| pb::LegalAction {
            id: Some(id),
            text: state.action_to_string(id),
            ..Default::default()
        })
        .collect()
}

/// Decodes state bytes from a request.
pub fn decode_state(bytes: &[u8]) -> Result<AnyState, ApiError> {
    if bytes.is_empty() {
        return Err(ApiError::InvalidArgument(
            "`state` is empty; pass the bytes returned by NewInitialState or a later call".into(),
        ));
    }
    Ok(cardhouse::state_from_bytes(bytes)?)
}

/// A JSON value as a protobuf `Struct` (non-object values are wrapped as `{"value": ...}`).
pub fn json_to_struct(value: serde_json::Value) -> prost_types::Struct {
    match value {
        serde_json::Value::Object(map) => prost_types::Struct {
            fields: map
                .into_iter()
                .map(|(k, v)| (k, json_to_value(v)))
                .collect::<BTreeMap<_, _>>(),
        },
        other => prost_types::Struct {
            fields: BTreeMap::from([("value".to_owned(), json_to_value(other))]),
        },
    }
}

fn json_to_value(value: serde_json::Value) -> prost_types::Value {
    let kind = match value {
        serde_json::Value::Null => Kind::NullValue(0),
        serde_json::Value::Bool(b) => Kind::BoolValue(b),
        serde_json::Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Kind::StringValue(s),
        serde_json::Value::Array(items) => Kind::ListValue(prost_types::ListValue {
            values: items.into_iter().map(json_to_value).collect(),
        }),
        serde_json::Value::Object(_) => Kind::StructValue(json_to_struct(value)),
    };
    prost_types::Value { kind: Some(kind) }
}

/// A protobuf `Struct` as JSON (numbers become JSON floats; integral ones become integers).
pub fn struct_to_json(s: &prost_types::Struct) -> serde_json::Value {
    serde_json::Value::Object(
        s.fields
            .iter()
            .map(|(k, v)| (k.clone(), value_to_json(v)))
            .collect(),
    )
}

fn value_to_json(v: &prost_types::Value) -> serde_json::Value {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => serde_json::Value::Null,
        Some(Kind::BoolValue(b)) => serde_json::Value::Bool(*b),
        Some(Kind::NumberValue(n)) => {
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                serde_json::Value::from(*n as i64)
            } else {
                serde_json::Value::from(*n)
            }
        }
        Some(Kind::StringValue(s)) => serde_json::Value::String(s.clone()),
        Some(Kind::ListValue(l)) => {
            serde_json::Value::Array(l.values.iter().map(value_to_json).collect())
        }
        Some(Kind::StructValue(s)) => struct_to_json(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn only_chance_outcomes_carry_a_probability() {
        let game = cardhouse::new_game("klaberjass", &Options::new()).expect("game");
        let mut state = game.new_initial_state();
        let outcomes = legal_actions(&state).expect("outcomes");
        assert!(
            outcomes
                .iter()
                .all(|a| a.probability.is_some_and(|p| p > 0.0))
        );
        let total: f64 = outcomes.iter().filter_map(|a| a.probability).sum();
        assert!((total - 1.0).abs() < 1e-12);
        state
            .resolve_chance(&mut cardhouse::SeededRng::new(1))
            .expect("deal");
        let actions = legal_actions(&state).expect("actions");
        assert!(!actions.is_empty());
        for a in actions {
            // Unset, so not on the wire (proto3 JSON leaves it out too).
            let bare = pb::LegalAction {
                id: a.id,
                text: a.text.clone(),
                ..Default::default()
            };
            assert_eq!(a.encode_to_vec(), bare.encode_to_vec());
            assert_eq!(a.probability, None);
        }
    }

    #[test]
    fn seats_and_statuses_convert_both_ways_and_unspecified_is_no_seat() {
        for seat in Seat::ALL {
            assert_eq!(seat_from_pb(seat_to_pb(seat) as i32), Some(seat));
        }
        assert_eq!(seat_from_pb(pb::SeatKind::Unspecified as i32), None);
        assert_eq!(seat_from_pb(99), None);
        let statuses: Vec<pb::MatchStatus> =
            MatchStatus::ALL.iter().map(|&s| status_to_pb(s)).collect();
        assert_eq!(
            statuses,
            [
                pb::MatchStatus::Active,
                pb::MatchStatus::Finished,
                pb::MatchStatus::Resigned,
                pb::MatchStatus::Aborted,
                pb::MatchStatus::TimedOut
            ]
        );
    }
}
