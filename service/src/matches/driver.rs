//! Playing bots and chance in the background: [`drive`] plays a match's bot and chance
//! moves a chunk at a time on a blocking thread, each chunk committed before the next,
//! until a human seat is to move or the match ends.

use std::sync::Arc;
use std::time::Instant;

use crate::error::{ApiError, guard};
use crate::matches::bots::advance;
use crate::matches::commit::{commit, writable};
use crate::matches::hub::Hub;
use crate::matches::model::Moves;
use crate::pb;

/// Most actions in one background chunk (bounds the memory of the changes it broadcasts).
pub(super) const CHUNK_ACTIONS: usize = 1024;

/// Plays the bot and chance moves of match `id` in the background, a chunk at a time on a
/// blocking thread (never on the runtime's workers), each chunk committed before the next,
/// until a human seat is to move or the match ends. The caller has set the match's
/// `driving` flag; this clears it when it stops.
pub(super) fn drive(hub: &Arc<Hub>, id: String) {
    let hub = Arc::clone(hub);
    tokio::spawn(async move {
        loop {
            let Ok(m) = hub.cache.get(&id).await else {
                return;
            };
            let mut m = m.lock_owned().await;
            if m.live.status != pb::MatchStatus::Active || writable(&hub.store).is_err() {
                m.driving = false;
                return;
            }
            let meta = Arc::clone(&m.meta);
            let live = m.live.clone();
            let record = m.watched();
            let budget = hub.limits.bot_chunk_budget;
            let chunk = tokio::task::spawn_blocking(move || {
                let mut live = live;
                let mut moves = Moves::new(record);
                let deadline = Instant::now() + budget;
                let more = guard(|| {
                    Ok(advance(
                        &meta,
                        &mut live,
                        &mut moves,
                        CHUNK_ACTIONS,
                        Some(deadline),
                        true,
                    ))
                });
                (live, moves, more)
            })
            .await;
            let Ok((live, moves, Ok(more))) = chunk else {
                tracing::error!(match_id = %id, "bot moves failed; the match waits");
                m.driving = false;
                return;
            };
            if moves.actions.is_empty() {
                m.driving = false;
                return;
            }
            let snapshot = live.status != pb::MatchStatus::Active;
            match commit(&hub.store, &mut m, live, moves, snapshot).await {
                Ok(()) => {}
                // Another replica moved first (it plays the same moves: they follow from
                // the seed and the move number): catch up and go on from there.
                Err(ApiError::Conflict) => {
                    if hub.cache.reload(&mut m).await.is_err() {
                        m.driving = false;
                        return;
                    }
                    continue;
                }
                Err(_) => {
                    m.driving = false;
                    return;
                }
            }
            if !more {
                m.driving = false;
                return;
            }
            drop(m);
            tokio::task::yield_now().await;
        }
    });
}
