//! Match events out (`--events`): the events of each change, as a spectator sees them,
//! numbered per match and encoded for the store's outbox, which writes them in the same
//! commit as the change (the relay, [`crate::relay`], publishes them after).
//!
//! A change's events are built from the same sequence of changes that `Watch` streams
//! ([`Moves`]: the actions replayed from the match before them, then the other changes),
//! through the same redaction ([`crate::matches::views`]) for [`Role::Spectator`]: an
//! action's event is exactly the event a spectator's `Watch` with `WATCH_DETAIL_EVENTS`
//! is sent, so no event holds what a spectator may not know.
//!
//! **Numbering.** A match's events are numbered 1 (created), 2, 3, ... without gaps:
//! [`Live::events`] counts them (the end's aside), from the history (an action a spectator
//! learns of, a deal ended) and the stored count of notices, so that a match resumed
//! anywhere numbers its next event as the last replica would have.

use crate::domain::MatchStatus;
use crate::error::ApiError;
use crate::matches::model::{Change, Live, Meta, Moves, status_name, step};
use crate::matches::views::{
    Role, bot_names, event, event_with, match_view, notice_text, text_for,
};
use crate::pb;
use crate::store::OutboxEvent;

/// The first part of every event's subject: `cardhouse.match.<game>.<match id>`.
const SUBJECT_PREFIX: &str = "cardhouse.match";

/// The subject of match `id`'s events.
fn subject(game: &str, id: &str) -> String {
    format!("{SUBJECT_PREFIX}.{game}.{id}")
}

/// The events of a match just created at `after`: `created`, then those of the opening
/// `moves` from `initial` (the match before the deal). Sets `after`'s event count.
///
/// # Errors
/// An event that cannot be built (a bug: the counts disagree, or the engine failed).
pub(super) fn created(
    meta: &Meta,
    initial: &Live,
    moves: &Moves,
    after: &mut Live,
) -> Result<Vec<OutboxEvent>, ApiError> {
    let created = pb::match_stream_event::Kind::Created(pb::MatchCreated {
        game: Some(meta.game.clone()),
        seats: meta
            .seats
            .iter()
            .map(|&k| crate::convert::seat_to_pb(k) as i32)
            .collect(),
        bots: bot_names(meta),
    });
    let mut out = vec![outboxed(meta, 1, created)];
    out.extend(of_change(meta, initial, moves, after)?);
    Ok(out)
}

/// The events of one change: `moves` applied to the match at `before`, leaving it at
/// `after` (whose event and notice counts are set here).
///
/// # Errors
/// As [`created`].
pub(super) fn of_change(
    meta: &Meta,
    before: &Live,
    moves: &Moves,
    after: &mut Live,
) -> Result<Vec<OutboxEvent>, ApiError> {
    use pb::match_stream_event::Kind;
    let start = moves.before.as_ref().unwrap_or(before);
    let mut live = start.clone();
    let mut seq = start.events;
    let mut notices = start.notices;
    let mut out = Vec::new();
    let mut ended_text = None;
    // In Watch's order: the notices before the actions, the actions, the other changes.
    for change in &moves.pre {
        other(
            meta,
            change,
            &mut seq,
            &mut notices,
            &mut ended_text,
            &mut out,
        )?;
    }
    let actions_from = seq;
    for &action in &moves.actions {
        let actor = live.state.current_player();
        let text = text_for(Role::Spectator, &live.state, action);
        step(&mut live, action);
        if let Some(text) = text {
            seq += 1;
            let sent = event(meta, Role::Spectator, Some(actor), text, &live, true)?.0;
            out.push(outboxed(meta, seq, Kind::Action(match_event(sent)?)));
        }
        if let Some(outcome) = live.state.deal_outcome() {
            seq += 1;
            let ended = pb::DealEnded {
                deal_returns: outcome.to_vec(),
                view: Some(match_view(meta, &live, Role::Spectator)?),
            };
            out.push(outboxed(meta, seq, Kind::DealEnded(ended)));
        }
    }
    if seq - actions_from != live.events - start.events {
        return Err(ApiError::Internal(format!(
            "match {}: {} events built for its actions where {} are counted",
            meta.id,
            seq - actions_from,
            live.events - start.events
        )));
    }
    for change in &moves.changes {
        other(
            meta,
            change,
            &mut seq,
            &mut notices,
            &mut ended_text,
            &mut out,
        )?;
    }
    after.events = seq;
    after.notices = notices;
    if start.status == MatchStatus::Active && after.status != MatchStatus::Active {
        let ended = pb::MatchEnded {
            status: crate::convert::status_to_pb(after.status) as i32,
            returns: after.state.returns().to_vec(),
            resigned_seat: after.resigned_seat,
            text: ended_text.unwrap_or_else(|| match after.status {
                MatchStatus::Finished => "the match is over".to_owned(),
                status => format!("the match ended: {}", status_name(status)),
            }),
            view: Some(match_view(meta, after, Role::Spectator)?),
        };
        out.push(outboxed(meta, seq + 1, Kind::Ended(ended)));
    }
    Ok(out)
}

/// The event of a change other than actions: a notice (numbered `seq + 1`, counted in
/// `notices`), or an end (its text kept for the end's event).
fn other(
    meta: &Meta,
    change: &Change,
    seq: &mut u64,
    notices: &mut u64,
    ended_text: &mut Option<String>,
    out: &mut Vec<OutboxEvent>,
) -> Result<(), ApiError> {
    match change {
        Change::Notice {
            after: at,
            seat,
            kind,
        } => {
            *seq += 1;
            *notices += 1;
            let text = notice_text(*seat, *kind);
            let notice = Some((*seat, *kind));
            let sent = event_with(meta, Role::Spectator, None, notice, text, at, true)?.0;
            let kind = pb::match_stream_event::Kind::Notice(match_event(sent)?);
            out.push(outboxed(meta, *seq, kind));
        }
        Change::Ended { text, .. } => *ended_text = Some(text.clone()),
        Change::Actions { .. } => {}
    }
    Ok(())
}

/// The event inside a Watch message.
fn match_event(sent: pb::WatchResponse) -> Result<pb::MatchEvent, ApiError> {
    match sent.kind {
        Some(pb::watch_response::Kind::Event(e)) => Ok(e),
        _ => Err(ApiError::Internal("a Watch event without its event".into())),
    }
}

/// Event `seq` of the match, encoded for the outbox.
fn outboxed(meta: &Meta, seq: u64, kind: pb::match_stream_event::Kind) -> OutboxEvent {
    let event = pb::MatchStreamEvent {
        match_id: meta.id.clone(),
        sequence: seq,
        game: meta.game.name.clone(),
        kind: Some(kind),
    };
    OutboxEvent {
        match_id: meta.id.clone(),
        seq,
        subject: subject(&meta.game.name, &meta.id),
        payload: prost::Message::encode_to_vec(&event),
    }
}

#[cfg(test)]
mod tests {
    //! Hidden information is the security boundary: two matches that differ only in what a
    //! spectator may not know (the hidden cards) give the same events, byte for byte.

    use cardhouse::{AnyGame, AnyState, Options, Rng, SeededRng};

    use super::created;
    use crate::convert::game_info;
    use crate::domain::{BotSeat, MatchStatus, Seat};
    use crate::matches::model::{Live, Meta, Moves};
    use crate::pb;
    use crate::store::OutboxEvent;

    fn meta(game: &AnyGame) -> Meta {
        let n = game.num_players();
        Meta {
            id: "0123456789abcdef0123456789abcdef".into(),
            game: game_info(game),
            seed: 7,
            seats: vec![Seat::Bot(BotSeat::Random); n],
            bots: vec![None; n],
            bot_names: vec![None; n],
            ismcts_iterations: 0,
            seat_tokens: vec![None; n],
            owner_token: String::new(),
            spectator_token: String::new(),
            time: None,
            stand_in: cardhouse::bots::BotKind::Heuristic,
            stand_in_name: "heuristic".into(),
        }
    }

    /// The events of a match created at `game`'s initial state and played to `state`.
    fn events(meta: &Meta, game: &AnyGame, state: &AnyState) -> Vec<OutboxEvent> {
        let initial = Live {
            state: game.new_initial_state(),
            status: MatchStatus::Active,
            resigned_seat: None,
            known: vec![0; game.num_players() + 1],
            ended_at_ms: 0,
            events: 1,
            notices: 0,
            table: None,
        };
        let mut moves = Moves::new(true);
        let mut after = initial.clone();
        for a in state.history() {
            crate::matches::model::apply_counted(&mut after, a, true, &mut moves).expect("legal");
        }
        // The end's time is the clock's: the same for both.
        after.ended_at_ms = 0;
        created(meta, &initial, &moves, &mut after).expect("events")
    }

    /// A random playout of `game` of `len` actions (or to its end).
    fn playout(game: &AnyGame, len: usize, rng: &mut SeededRng) -> AnyState {
        let mut s = game.new_initial_state();
        while s.history().len() < len && !s.is_terminal() {
            if s.is_chance_node() {
                s.apply_random_chance(rng).expect("chance");
            } else {
                let legal: Vec<_> = s.legal_actions().iter().collect();
                let a = legal[(rng.next_u64() % legal.len() as u64) as usize];
                s.apply(a).expect("legal");
            }
        }
        s
    }

    #[test]
    fn no_event_depends_on_a_hidden_card() {
        let games = [
            ("jass", Options::new()),
            ("klaberjass", Options::new()),
            ("cribbage", Options::new()),
            ("avinas", Options::new()),
        ];
        let mut rng = SeededRng::new(11);
        let mut varied = 0;
        for (name, options) in games {
            let game = cardhouse::new_game(name, &options).expect("game");
            let meta = meta(&game);
            for len in [10, 40, 90, 150, 260] {
                let state = playout(&game, len, &mut rng);
                if state.is_terminal() {
                    continue;
                }
                // The same public history, other hidden cards: consistent with everything
                // seat 0 knows, and a spectator knows less.
                let Ok(other) = state.resample(0, &mut rng) else {
                    continue;
                };
                let (a, b) = (events(&meta, &game, &state), events(&meta, &game, &other));
                varied += usize::from(other.history() != state.history());
                assert_eq!(a.len(), b.len(), "{name} at {len}: as many events");
                for (x, y) in a.iter().zip(&b) {
                    assert_eq!(x, y, "{name} at {len}: event {} differs", x.seq);
                }
                // Numbered 1, 2, 3, ... and as many as the match counts.
                for (i, e) in a.iter().enumerate() {
                    assert_eq!(e.seq, i as u64 + 1);
                }
            }
        }
        assert!(varied >= 8, "the hidden cards varied only {varied} times");
    }

    #[test]
    fn the_events_of_a_finished_match_end_with_its_returns() {
        let game = cardhouse::new_game("klaberjass", &Options::new()).expect("game");
        let meta = meta(&game);
        let mut rng = SeededRng::new(3);
        let state = playout(&game, usize::MAX, &mut rng);
        assert!(state.is_terminal());
        let events = events(&meta, &game, &state);
        let decoded: Vec<pb::MatchStreamEvent> = events
            .iter()
            .map(|e| prost::Message::decode(e.payload.as_slice()).expect("decodes"))
            .collect();
        use pb::match_stream_event::Kind;
        assert!(matches!(decoded[0].kind, Some(Kind::Created(_))));
        let deals = decoded
            .iter()
            .filter(|e| matches!(e.kind, Some(Kind::DealEnded(_))))
            .count();
        assert!(deals >= 1, "a match of several deals tells each deal's end");
        let Some(Kind::Ended(end)) = &decoded[decoded.len() - 1].kind else {
            panic!("the last event is the end");
        };
        assert_eq!(end.status, pb::MatchStatus::Finished as i32);
        assert_eq!(end.returns, state.returns().to_vec());
        assert_eq!(end.text, "the match is over");
        for e in &events {
            assert_eq!(e.subject, format!("cardhouse.match.klaberjass.{}", meta.id));
        }
    }

    #[test]
    fn the_relays_json_is_the_events_proto3_json() {
        let game = cardhouse::new_game("jass", &Options::new()).expect("game");
        let meta = meta(&game);
        let state = playout(&game, 5, &mut SeededRng::new(1));
        let events = events(&meta, &game, &state);
        let json: serde_json::Value =
            serde_json::from_slice(&crate::relay::to_json(&events[1].payload).expect("json"))
                .expect("parses");
        assert_eq!(json["matchId"], meta.id.as_str());
        assert_eq!(json["sequence"], "2");
        assert!(json.get("action").is_some(), "{json}");
    }
}
