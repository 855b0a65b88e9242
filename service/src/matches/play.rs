//! The requests that play a match: `GetView`, `Act`, `Resign` and `AbortMatch`. Each works
//! on a copy of the match, stores the change, and only then makes it the match's state.

use std::sync::Arc;
use std::time::Instant;

use cardhouse::Player;

use crate::clock::now_ms;
use crate::domain::MatchStatus;
use crate::error::{ApiError, guard};
use crate::matches::bots::{Chunk, advance, enforce_length};
use crate::matches::commit::{PendingCommit, commit, submit, writable};
use crate::matches::driver::drive;
use crate::matches::handoff::NOTICE_WAIT;
use crate::matches::hub::Hub;
use crate::matches::model::{
    Change, Live, Match, Moves, NoticeKind, apply_counted, ended_text, status_name,
};
use crate::matches::stored::extend;
use crate::matches::table::{self, StandInReason};
use crate::matches::views::{Role, match_view, match_view_with, role_of};
use crate::pb;
use crate::store::Store;

/// `GetView`: the match as the token's role sees it.
pub(super) async fn get_view(hub: &Hub, token: &str, id: &str) -> Result<pb::MatchView, ApiError> {
    let m = hub.cache.get(id).await?;
    let mut m = m.lock().await;
    let role = role_of(&m.meta, token)?;
    hub.cache.fresh(&mut m).await?;
    guard(|| match_view(&m.meta, &m.live, role))
}

/// `Act`: a seat's action checked and applied with the bot and chance moves that follow
/// (up to the inline budget), stored, then acknowledged with the seat's view.
pub(super) async fn act(
    hub: &Arc<Hub>,
    token: &str,
    req: pb::ActRequest,
) -> Result<pb::MatchView, ApiError> {
    let m = hub.cache.get(&req.match_id).await?;
    let mut m = m.lock_owned().await;
    let seat = match role_of(&m.meta, token)? {
        Role::Seat(s) => s,
        Role::Owner | Role::Spectator => {
            return Err(ApiError::PermissionDenied(
                "only a seat token can act; this is an owner or spectator token",
            ));
        }
    };
    // A shared store's cached copy is used as it is, and the write checks that it was
    // current (its version); a request that fails a check against it, or whose write
    // meets a newer version, is checked again against the reloaded match.
    m.used = Instant::now();
    let mut refreshed = !hub.store.is_shared() || m.stale;
    if m.stale {
        hub.cache.reload(&mut m).await?;
    }
    for attempt in 0.. {
        let (mut live, moves, more) = match prepare_act(hub, &m, seat, &req) {
            Ok(prepared) => prepared,
            Err(e) if !refreshed => {
                // The client has seen moves this copy lacks: another replica made them, and
                // its notice brings them without a read if it comes soon. The request is then
                // checked again (and the match read if the copy is still behind).
                let behind =
                    matches!(e, ApiError::StaleMove { expected, actual } if expected > actual);
                if behind && catch_up(hub, &mut m).await {
                    continue;
                }
                refreshed = true;
                hub.cache.fresh(&mut m).await?;
                continue;
            }
            Err(e) => return Err(e),
        };
        // A match that just finished gets a full snapshot with its final status.
        let snapshot = live.status != MatchStatus::Active;
        let ack = submit(&hub.store, &m, &mut live, &moves, snapshot)?;
        // From here the change completes even if this request is dropped.
        let pending = PendingCommit {
            m: Some(m),
            change: Some((live, moves)),
            ack: Some(ack),
            shared: hub.store.is_shared(),
        };
        let (guard_, outcome) = pending.finish().await?;
        m = guard_;
        match outcome {
            Ok(()) => {}
            Err(ApiError::Conflict) if attempt < 3 => {
                refreshed = true;
                hub.cache.reload(&mut m).await?;
                continue;
            }
            Err(e) => return Err(e),
        }
        tracing::debug!(
            match_id = %m.meta.id,
            seat,
            move_number = m.live.known[m.meta.seats.len()],
            "seat acted"
        );
        let view = guard(|| match_view_with(&m.meta, &m.live, Role::Seat(seat), req.include_view));
        if more && !m.driving {
            m.driving = true;
            drive(hub, m.meta.id.clone());
        }
        hub.timers.arm(&m.meta.id, m.live.table.as_ref());
        hub.cache.settle(&m);
        return view;
    }
    Err(ApiError::Conflict)
}

/// Brings `m` (a shared store's cached copy, behind what a client has seen) one version on
/// from another replica's change notice: one parked for it, or one that arrives within
/// [`NOTICE_WAIT`]. False if none came or its actions did not apply (the caller then reads
/// the match).
async fn catch_up(hub: &Hub, m: &mut Match) -> bool {
    if !hub.store.is_shared() || m.stale {
        return false;
    }
    let id = m.meta.id.clone();
    let announced = match hub.handoff.take_or_wait(&id, m.version + 1) {
        Ok(announced) => announced,
        Err(waiting) => match tokio::time::timeout(NOTICE_WAIT, waiting).await {
            Ok(Ok(announced)) => announced,
            _ => {
                hub.handoff.give_up(&id);
                return false;
            }
        },
    };
    extend(m, announced.version, announced.from, &announced.actions).is_ok()
}

/// Checks `req` of `seat` against `m` and applies it (with the bot and chance moves that
/// follow, up to the inline budget) to a copy: the new state, what was applied, and
/// whether bots or chance still have moves to make.
fn prepare_act(
    hub: &Hub,
    m: &Match,
    seat: usize,
    req: &pb::ActRequest,
) -> Result<(Live, Moves, bool), ApiError> {
    if m.live.status != MatchStatus::Active {
        return Err(ApiError::MatchOver(status_name(m.live.status)));
    }
    writable(&hub.store)?;
    let now = now_ms();
    let actual = m.live.known[seat];
    let Some(expected) = req.expected_move_number else {
        return Err(ApiError::InvalidArgument(format!(
            "`expected_move_number` is missing: send the seat's current move number \
             (`moveNumber` of GetView, now {actual}), so that a retried Act never applies twice"
        )));
    };
    if expected != actual {
        if let Some(late) = timed_out_at(m, seat, expected) {
            return Err(late);
        }
        return Err(ApiError::StaleMove { expected, actual });
    }
    let state = &m.live.state;
    if state.current_player() != Player::Seat(seat) {
        return Err(ApiError::NotYourTurn {
            seat,
            to_move: match state.current_player() {
                Player::Seat(s) => format!("seat {s} is to move"),
                Player::Chance => "a chance event is pending".into(),
                Player::Terminal => "the game is over".into(),
            },
        });
    }
    if m.live
        .table
        .as_ref()
        .is_some_and(|t| t.covering == Some(seat))
    {
        return Err(ApiError::FailedPrecondition(format!(
            "seat {seat}'s clock ran out: the match's timeout bot (`{}`) is playing this \
             turn, nothing was applied",
            m.meta.stand_in_name
        )));
    }
    if let Some(deadline) = m.live.table.as_ref().and_then(|t| t.deadline_of(seat))
        && now >= deadline
    {
        return Err(ApiError::FailedPrecondition(format!(
            "seat {seat}'s clock ran out at {deadline} (server time, Unix ms; now {now}): \
             the match's timeout policy plays this turn, nothing was applied"
        )));
    }
    let action = match &req.action {
        Some(pb::act_request::Action::ActionId(id)) => *id,
        Some(pb::act_request::Action::ActionText(text)) => state.string_to_action(text)?,
        None => {
            return Err(ApiError::InvalidArgument(
                "set `action_id` or `action_text`".into(),
            ));
        }
    };
    let mut live = m.live.clone();
    // Recorded for the outbox too: its events are built from what Watch is sent.
    let mut moves = Moves::new(m.watched() || hub.store.outbox().is_some());
    let max_total = hub.limits.max_match_actions;
    let more = guard(|| {
        // Acting brings an away seat back (told to watchers before its action).
        let back = live.table.as_mut().is_some_and(|t| {
            let away = t.is_away(seat);
            t.away[seat] = false;
            away
        });
        if back && moves.record {
            moves.pre.push(Change::Notice {
                after: live.clone(),
                seat,
                kind: NoticeKind::Back,
            });
        }
        apply_counted(&mut live, action, true, &mut moves)?;
        if let Some(table) = live.table.as_mut() {
            table::moved(m.meta.time.as_ref(), table, seat, now);
        }
        let mut chunk = Chunk::inline(hub.limits.inline_bot_actions, max_total);
        Ok(advance(&m.meta, &mut live, &mut moves, &mut chunk))
    })?;
    let capped = enforce_length(&mut live, &mut moves, max_total);
    let more = more && !capped;
    Ok((live, moves, more))
}

/// The error for an `Act` of `seat` made at its move number `expected`, if a bot played that
/// move for it because its clock ran out.
fn timed_out_at(m: &Match, seat: usize, expected: u64) -> Option<ApiError> {
    let table = m.live.table.as_ref()?;
    let late =
        table.stand_ins.iter().rev().find(|s| {
            s.seat == seat && s.known == expected && s.reason == StandInReason::Timeout
        })?;
    Some(ApiError::FailedPrecondition(format!(
        "seat {seat}'s clock ran out before this move: the match's timeout bot (`{}`) played \
         move {} of the history for it, nothing was applied; read the match (GetView) and go \
         on from there",
        m.meta.stand_in_name, late.index
    )))
}

/// `Resign` (`resign_seat` set: the seat named, or the token's own) or `AbortMatch`
/// (`None`, owner only): the match ended early, durably.
pub(super) async fn end(
    hub: &Hub,
    token: &str,
    id: &str,
    resign_seat: Option<Option<u32>>,
) -> Result<pb::MatchView, ApiError> {
    let m = hub.cache.get(id).await?;
    let mut m = m.lock().await;
    let role = role_of(&m.meta, token)?;
    hub.cache.fresh(&mut m).await?;
    let n = m.meta.seats.len();
    let (status, resigned) = match (resign_seat, role) {
        // Abort: owner only.
        (None, Role::Owner) => (MatchStatus::Aborted, None),
        (None, _) => {
            return Err(ApiError::PermissionDenied(
                "only the owner token can abort a match",
            ));
        }
        (Some(seat), Role::Seat(own)) => {
            if seat.is_some_and(|s| s as usize != own) {
                return Err(ApiError::PermissionDenied(
                    "a seat token can resign only its own seat",
                ));
            }
            (MatchStatus::Resigned, Some(own as u32))
        }
        (Some(seat), Role::Owner) => {
            let seat = seat.ok_or_else(|| {
                ApiError::InvalidArgument("with the owner token, name the `seat` to resign".into())
            })?;
            if seat as usize >= n {
                return Err(cardhouse::Error::InvalidSeat {
                    seat: i64::from(seat),
                    last: n - 1,
                }
                .into());
            }
            (MatchStatus::Resigned, Some(seat))
        }
        (Some(_), Role::Spectator) => {
            return Err(ApiError::PermissionDenied(
                "a spectator token cannot resign a seat",
            ));
        }
    };
    end_match(hub, &mut m, status, resigned).await?;
    let view = guard(|| match_view(&m.meta, &m.live, role));
    hub.cache.settle(&m);
    view
}

/// Ends active match `m` early with `status` (resigned: `resigned` names the seat),
/// durably; retried on a shared store's conflict against the reloaded match.
///
/// # Errors
/// `FAILED_PRECONDITION` if the match already ended; a store failure.
pub(super) async fn end_match(
    hub: &Hub,
    m: &mut Match,
    status: MatchStatus,
    resigned: Option<u32>,
) -> Result<(), ApiError> {
    for attempt in 0.. {
        if m.live.status != MatchStatus::Active {
            return Err(ApiError::MatchOver(status_name(m.live.status)));
        }
        writable(&hub.store)?;
        match finish(&hub.store, m, status, resigned).await {
            Ok(()) => break,
            // Another replica changed the match first: check again on the new state.
            Err(ApiError::Conflict) if attempt < 3 => hub.cache.reload(m).await?,
            Err(e) => return Err(e),
        }
    }
    tracing::info!(match_id = %m.meta.id, status = status_name(status), "match ended early");
    Ok(())
}

/// Ends an active match with `status`, durably.
pub(super) async fn finish(
    store: &Store,
    m: &mut Match,
    status: MatchStatus,
    resigned: Option<u32>,
) -> Result<(), ApiError> {
    m.cancel_thinking();
    let mut live = m.live.clone();
    live.status = status;
    live.resigned_seat = resigned;
    live.ended_at_ms = now_ms();
    let moves = Moves {
        changes: vec![Change::Ended {
            text: ended_text(&live),
            after: live.clone(),
        }],
        ..Moves::default()
    };
    commit(store, m, live, moves, true).await
}
