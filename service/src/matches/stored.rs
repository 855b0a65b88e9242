//! A match to and from its stored form: [`stored`] for writes, [`resume`] when a match is
//! read from a store, [`adopt`] when a shared store holds a newer version of a cached one,
//! and [`extend`] when another replica's notice tells the actions of the next version.
//! Both check what they read (`store::check`): a damaged match is never served, only named
//! to the caller, which answers `DATA_LOSS`.

use std::sync::Arc;

use crate::clock::now_ms;
use crate::convert::game_info;
use crate::domain::MatchStatus;
use crate::matches::clocks::DEFAULT_STAND_IN;
use crate::matches::model::{
    Change, Live, Match, Meta, Moves, apply_counted, bots_to_move, count_known, ended_text,
    events_of, status_of,
};
use crate::matches::seats::{BotLimits, seat_bots, stored_bot};
use crate::matches::table::{from_record, to_record};
use crate::store::check::{check, check_header};
use crate::store::{Loaded, STORED_FORMAT, StoredMatch};

/// The stored form of a match.
pub(super) fn stored(meta: &Meta, live: &Live) -> StoredMatch {
    StoredMatch {
        format: STORED_FORMAT,
        id: meta.id.clone(),
        state: live.state.to_bytes(),
        seed: meta.seed,
        seats: meta.seats.iter().map(|k| k.code()).collect(),
        seat_tokens: meta
            .seat_tokens
            .iter()
            .map(|t| t.clone().unwrap_or_default())
            .collect(),
        owner_token: meta.owner_token.clone(),
        spectator_token: meta.spectator_token.clone(),
        status: live.status.code(),
        resigned_seat: live.resigned_seat,
        ended_at_ms: live.ended_at_ms,
        ismcts_iterations: meta.ismcts_iterations,
        bot_names: if meta.bot_names.iter().any(Option::is_some) {
            meta.bot_names
                .iter()
                .map(|n| n.clone().unwrap_or_default())
                .collect()
        } else {
            // As every match stored before seats could be any bot.
            Vec::new()
        },
        notices: live.notices,
        table: live
            .table
            .as_ref()
            .map(|t| to_record(meta.time.as_ref(), &meta.stand_in_name, t)),
    }
}

/// A match read from a store, checked ([`check`]: a damaged one is never served) and its
/// history replayed to recount every viewer's move number; its bots held to `limits`.
///
/// # Errors
/// What is wrong with the stored match, for the operator's log (the caller answers
/// `DATA_LOSS`).
pub(super) fn resume(s: StoredMatch, limits: BotLimits) -> Result<Match, String> {
    let (final_state, header) = check(&s)?;
    let game = final_state.game();
    // Recompute every viewer's move number by replaying the history (checked already).
    let n = game.num_players();
    let mut known = vec![0u64; n + 1];
    let mut state = game.new_initial_state();
    // The match's events (see `Live::events`): its creation, then the history's, then the
    // notices the history does not hold.
    let mut events = 1 + s.notices;
    for a in final_state.history() {
        let public = count_known(&state, a, &mut known);
        state
            .apply(a)
            .map_err(|e| format!("the history does not replay: {e}"))?;
        events += events_of(public, &state);
    }
    let seats = header.seats;
    let bot_names: Vec<Option<String>> = (0..n)
        .map(|i| s.bot_names.get(i).filter(|n| !n.is_empty()).cloned())
        .collect();
    let (time, stand_in_name, table) = match &s.table {
        Some(r) => {
            let (time, name, table) = from_record(r, n, final_state.history().len() as u64)
                .map_err(|e| format!("its table: {e}"))?;
            (time, name, Some(table))
        }
        None => (None, DEFAULT_STAND_IN.to_owned(), None),
    };
    let meta = Meta {
        stand_in: stored_bot(&stand_in_name, &game, limits)?,
        stand_in_name,
        time,
        id: s.id,
        game: game_info(&game),
        seed: s.seed,
        bots: seat_bots(&seats, &bot_names, &game, s.ismcts_iterations, limits)?,
        bot_names,
        ismcts_iterations: s.ismcts_iterations,
        seat_tokens: s
            .seat_tokens
            .into_iter()
            .map(|t| (!t.is_empty()).then_some(t))
            .collect(),
        seats,
        owner_token: s.owner_token,
        spectator_token: s.spectator_token,
    };
    let terminal = state.is_terminal();
    let live = Live {
        status: status_of(header.status, terminal),
        state,
        resigned_seat: s.resigned_seat,
        known,
        ended_at_ms: s.ended_at_ms,
        events,
        notices: s.notices,
        table,
    };
    let driving = bots_to_move(&meta, &live);
    let mut m = Match::new(Arc::new(meta), live, false);
    if m.live.status == MatchStatus::Active {
        m.driving = driving;
    } else if m.live.ended_at_ms == 0 {
        // Ended before retention was recorded: its retention starts now.
        m.live.ended_at_ms = now_ms();
    }
    Ok(m)
}

/// Whether the fixed facts of stored match `s` are those of cached `meta` (they never
/// change; a stored header that differs was replaced by something other than a replica).
fn same_meta(meta: &Meta, s: &StoredMatch) -> bool {
    meta.seed == s.seed
        && meta.ismcts_iterations == s.ismcts_iterations
        && meta.seats.len() == s.seats.len()
        && meta.seats.iter().zip(&s.seats).all(|(a, &b)| a.code() == b)
        && (0..meta.seats.len()).all(|i| {
            meta.bot_names[i].as_deref().unwrap_or("")
                == s.bot_names.get(i).map_or("", String::as_str)
        })
        && meta.seat_tokens.len() == s.seat_tokens.len()
        && meta
            .seat_tokens
            .iter()
            .zip(&s.seat_tokens)
            .all(|(a, b)| a.as_deref().unwrap_or("") == b)
        && meta.owner_token == s.owner_token
        && meta.spectator_token == s.spectator_token
}

/// Brings cached match `m` up to `loaded` (a newer version in a shared store): the new
/// actions are applied to the cached state, so that its watchers receive each of them as
/// on one node, followed by the end of the match if it was resigned or aborted. The stored
/// match is checked as [`resume`] checks it; if it is damaged, `m` is left as it was.
///
/// # Errors
/// What is wrong with the stored match, for the operator's log (the caller answers
/// `DATA_LOSS`).
pub(super) fn adopt(m: &mut Match, loaded: Loaded, bot_limits: BotLimits) -> Result<(), String> {
    // Read without replaying: the cached state is the start of the stored one whenever its
    // game, options and rules version are the same (a match's never change, but a replica
    // of another release may write another rules version), and only the new actions are
    // applied (checked).
    let record = cardhouse::codec::Record::from_bytes(&loaded.stored.state)
        .map_err(|e| format!("the state does not decode or replay: {e}"))?;
    let game = m.live.state.game();
    // Options are stored as text: compare the games they make.
    let same_game = record.game == game.name()
        && record.rules_version == game.rules_version()
        && cardhouse::new_game(&record.game, &record.options).is_ok_and(|g| g == game);
    let new = record.history;
    let old = m.live.state.history();
    let mut moves = Moves::new(m.watched());
    let (mut live, stored_status) = if same_game
        && new.len() >= old.len()
        && new[..old.len()] == old[..]
        && same_meta(&m.meta, &loaded.stored)
    {
        let mut live = m.live.clone();
        for &a in &new[old.len()..] {
            apply_counted(&mut live, a, true, &mut moves)
                .map_err(|e| format!("the state does not decode or replay: action {a}: {e}"))?;
        }
        let header = check_header(&loaded.stored, &game, live.state.is_terminal())?;
        (live, header.status)
    } else {
        // Histories only grow; a match replaced wholesale is resumed from scratch (its
        // watchers see the next change).
        tracing::warn!(match_id = %m.meta.id, "a stored match is not an extension of its cached copy");
        let resumed = resume(loaded.stored.clone(), bot_limits)?;
        if !same_meta(&m.meta, &loaded.stored) {
            // Tokens or seats changed: the cached facts are replaced too.
            m.meta = resumed.meta;
        }
        let status = resumed.live.status;
        (resumed.live, status)
    };
    let status = status_of(stored_status, live.state.is_terminal());
    let ended_early = status != MatchStatus::Active
        && status != MatchStatus::Finished
        && live.status == MatchStatus::Active;
    live.status = status;
    live.resigned_seat = loaded.stored.resigned_seat;
    // Notices stored through another replica count in the match's events too.
    live.events = (live.events + loaded.stored.notices).saturating_sub(live.notices);
    live.notices = loaded.stored.notices;
    // The table changes with every change of a match that has one (the clock, who is away).
    if let Some(r) = &loaded.stored.table {
        let seats = m.meta.seats.len();
        let (_, _, table) = from_record(r, seats, live.state.move_number() as u64)
            .map_err(|e| format!("its table: {e}"))?;
        live.table = Some(table);
    }
    live.ended_at_ms = loaded.stored.ended_at_ms;
    if ended_early && moves.record {
        moves.changes.push(Change::Ended {
            text: ended_text(&live),
            after: live.clone(),
        });
    }
    m.live = live;
    m.version = loaded.version;
    m.stale = false;
    for c in moves.into_changes() {
        let _ = m.changes.send(Arc::new(c));
    }
    Ok(())
}

/// Brings cached match `m` from its version to `version` (the next) by applying `actions`,
/// as another replica's change notice tells them: the change that made `version` was these
/// actions alone, from move number `from`. Applied (checked, and broadcast to the match's
/// watchers) only if `m` is exactly at the previous version and move number, still active,
/// and the actions leave it active (a change that ends a match is never announced this way).
///
/// # Errors
/// Why the actions were not applied; `m` is then left as it was (and is read again from the
/// store before its next change: its version no longer matches).
pub(super) fn extend(
    m: &mut Match,
    version: u64,
    from: u64,
    actions: &[u32],
) -> Result<(), String> {
    if m.stale
        || m.version + 1 != version
        || m.live.state.move_number() as u64 != from
        || m.live.status != MatchStatus::Active
    {
        return Err(format!(
            "the notice is for version {} at move {from}; the copy is at version {} move {}",
            version - 1,
            m.version,
            m.live.state.move_number()
        ));
    }
    let mut moves = Moves::new(m.watched());
    let mut live = m.live.clone();
    for &a in actions {
        apply_counted(&mut live, a, true, &mut moves).map_err(|e| format!("action {a}: {e}"))?;
    }
    if live.status != MatchStatus::Active {
        return Err("the actions end the match, which a notice never tells".into());
    }
    m.live = live;
    m.version = version;
    for c in moves.into_changes() {
        let _ = m.changes.send(Arc::new(c));
    }
    Ok(())
}
