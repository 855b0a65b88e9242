//! Committing a change: the write queued in the store first, the in-memory match replaced
//! and watchers told only once it is durable, so memory and store never differ, whatever
//! the client does meanwhile.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::OwnedMutexGuard;

use crate::domain::MatchStatus;
use crate::error::{ApiError, guard};
use crate::matches::events::of_change;
use crate::matches::model::{Change, Live, Match, Moves, bots_to_move, settle_clock};
use crate::matches::stored::stored;
use crate::store::{Ack, Change as StoreChange, Store, StoreError};

/// Refuses changes once the store has failed: the outcome of the failed write is unknown,
/// so nothing may be acknowledged on top of it until an operator restarts.
///
/// # Errors
/// [`ApiError::StoreFailed`].
pub(super) fn writable(store: &Store) -> Result<(), ApiError> {
    if store.has_failed() {
        return Err(ApiError::StoreFailed);
    }
    Ok(())
}

/// Queues the write of a change from `m`'s current state to `live` (the new actions, or
/// with `snapshot` the whole match), after starting or stopping `live`'s clock for the seat
/// it leaves to move. A match with a table (a clock, or a seat that was away) is always
/// written whole: its table changes with every change. With an outbox, the change's events
/// go with it (and are counted in `live`; a notice stores the whole match, which counts
/// them).
///
/// # Errors
/// [`ApiError::StoreFailed`] if the store's writer is gone; an event that cannot be built.
pub(super) fn submit(
    store: &Store,
    m: &Match,
    live: &mut Live,
    moves: &Moves,
    snapshot: bool,
) -> Result<Ack, ApiError> {
    settle_clock(&m.meta, live, !moves.actions.is_empty());
    let snapshot = snapshot || live.table.is_some();
    let (events, snapshot) = if store.outbox().is_some() {
        let notice = (moves.pre.iter())
            .chain(&moves.changes)
            .any(|c| matches!(c, Change::Notice { .. }));
        let events = guard(|| of_change(&m.meta, &m.live, moves, &mut *live))?;
        (events, snapshot || notice)
    } else {
        (Vec::new(), snapshot)
    };
    let live = &*live;
    let change = StoreChange {
        id: &m.meta.id,
        version: m.version,
        from: m.live.state.move_number() as u64,
        actions: &moves.actions,
        snapshot,
        stored: &|| stored(&m.meta, live),
        driving: live.status == MatchStatus::Active && bots_to_move(&m.meta, live),
        events: &events,
    };
    store.submit_change(&change).map_err(|e| {
        tracing::error!(match_id = %m.meta.id, error = %e, "storing a change failed");
        ApiError::StoreFailed
    })
}

/// Stores `live` durably (the new actions only, or with `snapshot` the whole match), then
/// makes it the match's state and tells watchers. Called only from tasks that run to their
/// end whatever the client does (see `handlers::detached`), so the write and the in-memory
/// swap happen together or not at all. [`ApiError::Conflict`] if another replica changed
/// the match first (nothing applied).
///
/// # Errors
/// As [`apply_after`].
pub(super) async fn commit(
    store: &Store,
    m: &mut Match,
    mut live: Live,
    moves: Moves,
    snapshot: bool,
) -> Result<(), ApiError> {
    let result = submit(store, m, &mut live, &moves, snapshot)?.wait().await;
    apply_after(m, Some((live, moves)), result, store.is_shared())
}

/// request is dropped while it waits (the client cancelled, or its deadline passed), `Drop`
/// hands the rest to a task: it waits for the write and applies the change (or, if the write
/// failed, leaves the match as it was), holding the match's lock throughout. So the durable
/// and the in-memory match never differ, and the common path needs no task of its own.
pub(super) struct PendingCommit {
    pub(super) m: Option<OwnedMutexGuard<Match>>,
    pub(super) change: Option<(Live, Moves)>,
    pub(super) ack: Option<Ack>,
    /// The store is shared (see [`apply_after`]).
    pub(super) shared: bool,
}

impl PendingCommit {
    /// Waits for the write, then applies the change; returns the match's guard with the
    /// outcome (the guard also when the change was not applied, e.g. on a conflict).
    pub(super) async fn finish(
        mut self,
    ) -> Result<(OwnedMutexGuard<Match>, Result<(), ApiError>), ApiError> {
        let result = match self.ack.as_mut() {
            Some(ack) => ack.wait_mut().await,
            None => Ok(()),
        };
        self.ack = None;
        let mut m = self
            .m
            .take()
            .ok_or_else(|| ApiError::Internal("commit guard reused".into()))?;
        let change = self.change.take();
        let outcome = apply_after(&mut m, change, result, self.shared);
        Ok((m, outcome))
    }
}

impl Drop for PendingCommit {
    fn drop(&mut self) {
        let (Some(mut m), Some(ack)) = (self.m.take(), self.ack.take()) else {
            return;
        };
        let change = self.change.take();
        let shared = self.shared;
        let finish = async move {
            let result = ack.wait().await;
            let _ = apply_after(&mut m, change, result, shared);
        };
        // Without a runtime the process is ending; the store's log is the truth on restart.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(finish);
        }
    }
}

/// Applies `change` to the match once its write has `result`. A conflict (another replica
/// changed the match first) applies nothing; a failed write of a shared store marks the
/// match for reloading; one of the embedded store stops all changes (the store refuses
/// them from then on).
pub(super) fn apply_after(
    m: &mut Match,
    change: Option<(Live, Moves)>,
    result: Result<(), StoreError>,
    shared: bool,
) -> Result<(), ApiError> {
    match result {
        Ok(()) => {}
        Err(StoreError::Conflict) => return Err(ApiError::Conflict),
        Err(StoreError::Full) => {
            return Err(ApiError::Internal("a change met the match limit".into()));
        }
        Err(e) => {
            tracing::error!(match_id = %m.meta.id, error = %e, "storing a change failed");
            if shared {
                m.stale = true;
                return Err(ApiError::StoreUnavailable);
            }
            return Err(ApiError::StoreFailed);
        }
    }
    if let Some((live, moves)) = change {
        crate::metrics::status_changed(&m.meta.game.name, m.live.status, live.status);
        m.live = live;
        m.touched = Instant::now();
        m.version += 1;
        for c in moves.into_changes() {
            let _ = m.changes.send(Arc::new(c));
        }
    }
    Ok(())
}
