//! The gauges counted at each metrics scrape: live matches (`cardhouse_matches_live{game}`),
//! from the matches in memory (every active match with an exclusive store, the ones this
//! replica has loaded with a shared one), and the bot workers' queue and busy threads.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::domain::MatchStatus;
use crate::matches::hub::Hub;

/// Most time one count waits for a match's lock (a bot thinking, a write in flight); a
/// match busy longer is left out of that scrape.
const PATIENCE: Duration = Duration::from_millis(500);

/// Registers the count with the metrics (nothing while metrics are off); it ends with the
/// service.
pub(super) fn register(hub: &Arc<Hub>) {
    let hub = Arc::downgrade(hub);
    crate::metrics::on_scrape(move || {
        let hub = hub.upgrade()?;
        Some(Box::pin(async move { count(&hub).await }))
    });
}

async fn count(hub: &Hub) {
    let stats = &hub.pool.stats;
    crate::metrics::bot_queue_depth(stats.queued.load(Ordering::Relaxed));
    crate::metrics::bot_busy_workers(stats.busy.load(Ordering::Relaxed));
    let entries = hub.cache.collect(|_, m| Some(Arc::clone(m)));
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut live: HashMap<String, usize> = HashMap::new();
    let mut busy = 0usize;
    for entry in entries {
        let Ok(m) = tokio::time::timeout_at(deadline, entry.lock()).await else {
            busy += 1;
            continue;
        };
        if m.live.status == MatchStatus::Active {
            *live.entry(m.meta.game.name.clone()).or_default() += 1;
        }
    }
    if busy > 0 {
        tracing::debug!(busy, "matches left out of the live count (busy)");
    }
    for (game, n) in live {
        crate::metrics::add_live_matches(&game, n);
    }
}
