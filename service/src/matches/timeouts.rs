//! Clocks that run out: a task takes the due deadlines (this process's [`Timers`], and on
//! a shared store the store's poll of every replica's matches, so that a match whose
//! replica died still times out) and applies each match's timeout policy under the match's
//! lock, checked against the match as it is then: a move that landed first wins, and the
//! timeout does nothing.
//!
//! The policies: the stand-in bot plays the move (the table then covers the seat for that
//! one turn, and the bot workers play it as any bot move, so a crash between the two
//! resumes exactly), the seat loses on time, or the match is aborted. Each timeout is told
//! to watchers (`SeatNotice` TIMED_OUT, then AWAY if the seat's timeouts in a row reached
//! the control's `away_after`).
//!
//! [`Timers`]: crate::matches::timers::Timers

use std::collections::BTreeSet;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::clock::now_ms;
use crate::domain::MatchStatus;
use crate::error::ApiError;
use crate::matches::commit::{commit, writable};
use crate::matches::driver::drive;
use crate::matches::hub::Hub;
use crate::matches::model::{Change, Match, Moves, NoticeKind, bots_to_move, ended_text};
use crate::matches::table::{TimeoutPolicy, timed_out};
use crate::matches::watch::stopped;

/// How often a shared store is asked for clocks run out, and the longest the task sleeps.
const POLL: Duration = Duration::from_millis(250);

/// Starts the timeout task; it ends with the hub or the server.
pub(super) fn start(hub: &Arc<Hub>) {
    tokio::spawn(run(Arc::downgrade(hub), hub.shutdown.clone()));
}

async fn run(weak: Weak<Hub>, mut stop: watch::Receiver<bool>) {
    let mut polled = Instant::now();
    loop {
        let Some(hub) = weak.upgrade() else { return };
        let now = now_ms();
        let mut due: BTreeSet<String> = hub.timers.take_due(now).into_iter().collect();
        if let Some(shared) = hub.store.shared()
            && polled.elapsed() >= POLL
        {
            polled = Instant::now();
            match shared.expired(now).await {
                Ok(ids) => due.extend(ids),
                Err(e) => tracing::warn!(error = %e, "looking for clocks run out failed"),
            }
        }
        for id in due {
            tokio::spawn(expire(Arc::clone(&hub), id));
        }
        let wait = hub.timers.next().map_or(POLL, |d| {
            Duration::from_millis(d.saturating_sub(now_ms())).min(POLL)
        });
        let timers = Arc::clone(&hub.timers);
        drop(hub);
        let armed = timers.armed.notified();
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = armed => {}
            () = stopped(&mut stop) => return,
        }
    }
}

/// Applies match `id`'s timeout policy if its clock has run out (checked under its lock).
async fn expire(hub: Arc<Hub>, id: String) {
    let Ok(entry) = hub.cache.get(&id).await else {
        return;
    };
    let mut m = entry.lock_owned().await;
    if hub.cache.fresh(&mut m).await.is_err() {
        return;
    }
    for attempt in 0..4 {
        match time_out(&hub, &mut m).await {
            Err(ApiError::Conflict) if attempt < 3 => {
                // Another replica changed the match first (it may have timed it out).
                if hub.cache.reload(&mut m).await.is_err() {
                    return;
                }
            }
            Err(e) => {
                tracing::warn!(match_id = %id, error = %e, "a timeout was not applied");
                return;
            }
            Ok(()) => break,
        }
    }
    if m.live.status == MatchStatus::Active && bots_to_move(&m.meta, &m.live) && !m.driving {
        m.driving = true;
        drive(&hub, id);
    }
    hub.timers.arm(&m.meta.id, m.live.table.as_ref());
    hub.cache.settle(&m);
}

/// The timeout of `m`, if its clock has run out now: its policy applied and committed.
async fn time_out(hub: &Hub, m: &mut Match) -> Result<(), ApiError> {
    let now = now_ms();
    let Some(control) = m.meta.time.clone() else {
        return Ok(());
    };
    let Some((seat, deadline)) = m.live.table.as_ref().and_then(|t| t.clock) else {
        return Ok(());
    };
    if m.live.status != MatchStatus::Active {
        return Ok(());
    }
    if now < deadline {
        // Found early (another replica's poll, a clock since restarted): wait for it.
        hub.timers.arm(&m.meta.id, m.live.table.as_ref());
        return Ok(());
    }
    writable(&hub.store)?;
    let mut live = m.live.clone();
    // Recorded for the outbox too: its events are built from what Watch is sent.
    let mut moves = Moves::new(m.watched() || hub.store.outbox().is_some());
    let Some(table) = live.table.as_mut() else {
        return Ok(());
    };
    let away = timed_out(&control, table, seat);
    table.clock = None;
    match control.on_timeout {
        TimeoutPolicy::Bot => table.covering = Some(seat),
        TimeoutPolicy::Resign => {
            live.status = MatchStatus::TimedOut;
            live.resigned_seat = Some(seat as u32);
            live.ended_at_ms = now;
        }
        TimeoutPolicy::Abort => {
            live.status = MatchStatus::Aborted;
            live.ended_at_ms = now;
        }
    }
    if moves.record {
        moves.pre.push(Change::Notice {
            after: live.clone(),
            seat,
            kind: NoticeKind::TimedOut,
        });
        if away && live.status == MatchStatus::Active {
            moves.pre.push(Change::Notice {
                after: live.clone(),
                seat,
                kind: NoticeKind::Away,
            });
        }
        if live.status != MatchStatus::Active {
            let text = match live.status {
                MatchStatus::Aborted => {
                    format!("the match was aborted: seat {seat}'s clock ran out")
                }
                _ => ended_text(&live),
            };
            moves.changes.push(Change::Ended {
                after: live.clone(),
                text,
            });
        }
    }
    tracing::info!(match_id = %m.meta.id, seat, deadline, late_ms = now - deadline, "a seat's clock ran out");
    commit(&hub.store, m, live, moves, true).await
}
