//! Playing bots and chance in the background, on the bot workers ([`crate::matches::pool`]).
//!
//! One round for a match: on the runtime, the match is copied (its lock held only for
//! that); on a bot worker, one chunk of moves is played on the copy (at most one slow bot
//! move, or about `bot_chunk_budget` of the others); back on the runtime, the chunk is
//! committed only if the match did not change meanwhile, and the next round is queued behind
//! every other match's. Requests never wait for a thinking bot: they find the match
//! unlocked. A resignation or an abort stops the thinking (`Match::cancel_thinking`), and
//! the chunk is then dropped.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::domain::MatchStatus;
use crate::error::{ApiError, guard};
use crate::matches::bots::{Chunk, advance, enforce_length};
use crate::matches::cache::Entry;
use crate::matches::commit::{commit, writable};
use crate::matches::hub::Hub;
use crate::matches::model::{Live, Meta, Moves, bots_to_move};

/// Most actions in one background chunk (bounds the memory of the changes it broadcasts).
pub(super) const CHUNK_ACTIONS: usize = 1024;

/// A copy of a match to play a chunk on.
struct Copy {
    entry: Entry,
    meta: Arc<Meta>,
    live: Live,
    version: u64,
    cancel: Arc<AtomicBool>,
}

/// What a worker made of a copy.
struct Played {
    live: Live,
    moves: Moves,
    more: bool,
    took: std::time::Duration,
}

/// Plays the bot and chance moves of match `id` in the background, a chunk at a time, each
/// committed before the next is queued, until a human seat is to move or the match ends.
/// The caller has set the match's `driving` flag; the last round clears it.
pub(super) fn drive(hub: &Arc<Hub>, id: String) {
    let hub = Arc::clone(hub);
    tokio::spawn(round(hub, id));
}

/// One round: copy, then hand the chunk to a worker. (Boxed: a round's commit queues the
/// next round.)
fn round(hub: Arc<Hub>, id: String) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        let Some(copy) = copy(&hub, &id).await else {
            return;
        };
        let rt = tokio::runtime::Handle::current();
        let worker_hub = Arc::clone(&hub);
        hub.pool.submit(move || {
            let played = play(&worker_hub, &copy);
            rt.spawn(finish(worker_hub, id, copy, played));
        });
    })
}

/// The match copied for a worker, with a fresh cancel flag; `None` (and `driving` cleared)
/// if it has nothing for bots to do.
async fn copy(hub: &Hub, id: &str) -> Option<Copy> {
    let entry = hub.cache.get(id).await.ok()?;
    let mut m = entry.clone().lock_owned().await;
    if m.live.status != MatchStatus::Active
        || writable(&hub.store).is_err()
        || !bots_to_move(&m.meta, &m.live)
    {
        m.driving = false;
        return None;
    }
    let cancel = Arc::new(AtomicBool::new(false));
    m.thinking = Some(Arc::clone(&cancel));
    Some(Copy {
        meta: Arc::clone(&m.meta),
        live: m.live.clone(),
        version: m.version,
        cancel,
        entry: entry.clone(),
    })
}

/// On a bot worker: one chunk on the copy. `None` if the bots failed (a bug, logged).
fn play(hub: &Hub, copy: &Copy) -> Option<Played> {
    let start = Instant::now();
    let limits = &hub.limits;
    let move_deadline = start + limits.bot_move_time;
    let stopping = &hub.pool.stopping;
    let mut stop = || {
        copy.cancel.load(Ordering::Acquire)
            || stopping.load(Ordering::Acquire)
            || Instant::now() >= move_deadline
    };
    let mut live = copy.live.clone();
    // Always recorded: whether anyone watches is known only at the commit (a Watch may
    // subscribe while the chunk is played, and must be sent its every move).
    let mut moves = Moves::new(true);
    let mut chunk = Chunk {
        max_actions: CHUNK_ACTIONS,
        deadline: Some(start + limits.bot_chunk_budget),
        expensive: true,
        max_total: limits.max_match_actions,
        stop: Some(&mut stop),
    };
    let more = guard(|| Ok(advance(&copy.meta, &mut live, &mut moves, &mut chunk)));
    let Ok(more) = more else {
        tracing::error!(match_id = %copy.meta.id, "bot moves failed; the match waits");
        return None;
    };
    enforce_length(&mut live, &mut moves, limits.max_match_actions);
    let took = start.elapsed();
    hub.pool.record_chunk(took);
    Some(Played {
        live,
        moves,
        more,
        took,
    })
}

/// Back on the runtime: commits the chunk if the match is as it was copied, then queues the
/// next round (or clears `driving`).
async fn finish(hub: Arc<Hub>, id: String, copy: Copy, played: Option<Played>) {
    let mut m = copy.entry.lock_owned().await;
    if m.thinking
        .as_ref()
        .is_some_and(|c| Arc::ptr_eq(c, &copy.cancel))
    {
        m.thinking = None;
    }
    let unchanged = m.version == copy.version
        && m.live.state.move_number() == copy.live.state.move_number()
        && m.live.status == MatchStatus::Active
        && !copy.cancel.load(Ordering::Acquire);
    let again = match played {
        Some(p) if unchanged && p.moves.actions.is_empty() && p.live.status == m.live.status => {
            p.more
        }
        Some(p) if unchanged => {
            let snapshot = p.live.status != MatchStatus::Active;
            let actions = p.moves.actions.len() as u64;
            match commit(&hub.store, &mut m, p.live, p.moves, snapshot).await {
                Ok(()) => {
                    m.bot_actions += actions;
                    m.bot_micros += p.took.as_micros() as u64;
                    p.more
                }
                // Another replica moved first (it plays the same moves: they follow from
                // the seed and the move number): catch up and go on from there.
                Err(ApiError::Conflict) => hub.cache.reload(&mut m).await.is_ok(),
                Err(_) => false,
            }
        }
        // The match changed meanwhile (another replica, a reload): go on from where it is.
        Some(_) => !copy.cancel.load(Ordering::Acquire),
        None => false,
    };
    let again = again
        && m.live.status == MatchStatus::Active
        && bots_to_move(&m.meta, &m.live)
        && !hub.pool.stopping.load(Ordering::Acquire);
    if !again {
        m.driving = false;
        hub.timers.arm(&m.meta.id, m.live.table.as_ref());
        hub.cache.settle(&m);
        return;
    }
    drop(m);
    round(hub, id).await;
}
