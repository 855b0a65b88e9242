//! Retention and abandonment: ended matches leave after `--retention`, active matches no
//! request touched for `--abandon-after` are aborted.

use std::sync::Arc;

use crate::clock::now_ms;
use crate::domain::MatchStatus;
use crate::matches::commit::writable;
use crate::matches::hub::Hub;
use crate::matches::play::finish;
use crate::store::{SharedStore, Swept};

/// Aborts matches idle past `abandon_after`; deletes ended matches past `retention`;
/// returns how many matches were removed.
pub(super) async fn sweep(hub: &Hub) -> usize {
    if let Some(shared) = hub.store.shared() {
        return sweep_shared(hub, shared).await;
    }
    let live = hub.cache.collect(|id, m| Some((id.clone(), Arc::clone(m))));
    for (id, m) in live {
        let mut m = m.lock().await;
        if m.live.status != MatchStatus::Active
            || m.touched.elapsed() < hub.limits.abandon_after
            || m.driving
        {
            continue;
        }
        if writable(&hub.store).is_err() {
            return 0;
        }
        tracing::info!(match_id = %id, "aborting an abandoned match");
        if finish(&hub.store, &mut m, MatchStatus::Aborted, None)
            .await
            .is_err()
        {
            return 0;
        }
        hub.cache.settle(&m);
    }
    // Ended matches idle in memory leave it (and are indexed for retention).
    hub.cache.forget_idle();
    let retention = hub.limits.retention.as_millis() as u64;
    let mut removed = 0;
    for id in hub.cache.expired(now_ms().saturating_sub(retention)) {
        let deleted = match hub.store.submit_delete(&id) {
            Ok(ack) => ack.wait().await,
            Err(e) => Err(e),
        };
        if deleted.is_err() {
            return removed;
        }
        // A copy still in memory ends its watchers' streams; later requests find no match.
        if let Ok(Some(m)) = hub.cache.cached(&id) {
            m.lock().await.live.status = MatchStatus::Aborted;
        }
        hub.cache.remove(&id);
        hub.admission.release();
        removed += 1;
        tracing::info!(match_id = %id, "removed an ended match after its retention period");
    }
    removed
}

/// With an outbox, a shared store aborts no abandoned match itself: they are aborted here,
/// each through the match code (its `ended` event written with the abort), if still at the
/// version it was found idle at (a match another replica changed meanwhile is left).
async fn abort_abandoned(hub: &Hub, shared: &dyn SharedStore, before_ms: u64) {
    let ids = match shared.abandoned(before_ms).await {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!(error = %e, "listing abandoned matches failed; trying again later");
            return;
        }
    };
    let mut aborted = 0;
    for (id, version) in ids {
        let Ok(entry) = hub.cache.get(&id).await else {
            continue;
        };
        let mut m = entry.lock().await;
        if hub.cache.fresh(&mut m).await.is_err()
            || m.version != version
            || m.live.status != MatchStatus::Active
            || m.driving
        {
            continue;
        }
        // Once: a conflict means another replica changed the match since it was found idle.
        if finish(&hub.store, &mut m, MatchStatus::Aborted, None)
            .await
            .is_ok()
        {
            tracing::info!(match_id = %id, "aborted an abandoned match");
            aborted += 1;
        }
        hub.cache.settle(&m);
    }
    crate::metrics::matches_abandoned(aborted);
}

/// [`sweep`] for a shared store: the store sweeps itself (each match is aborted or deleted
/// once, whichever replica runs it), then the cache forgets idle matches.
async fn sweep_shared(hub: &Hub, shared: &dyn SharedStore) -> usize {
    let now = now_ms();
    let abandon = hub.limits.abandon_after.as_millis() as u64;
    let retention = hub.limits.retention.as_millis() as u64;
    let swept = shared
        .sweep(
            now,
            now.saturating_sub(abandon),
            now.saturating_sub(retention),
        )
        .await;
    let Swept { aborted, deleted } = match swept {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "sweeping the match store failed; trying again later");
            return 0;
        }
    };
    for id in &aborted {
        tracing::info!(match_id = %id, "aborted an abandoned match");
    }
    crate::metrics::matches_abandoned(aborted.len());
    if hub.store.outbox().is_some() {
        abort_abandoned(hub, shared, now.saturating_sub(abandon)).await;
    }
    for id in &deleted {
        hub.cache.forget(id);
        tracing::info!(match_id = %id, "removed an ended match after its retention period");
    }
    hub.cache.forget_idle();
    deleted.len()
}
