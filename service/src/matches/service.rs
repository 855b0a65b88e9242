//! [`MatchesService`]: the Matches service as the server builds it — the stored matches
//! resumed, their bots set playing again, the other replicas followed — and what the server
//! asks of it afterwards (the periodic sweep, whether its store failed).

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{Mutex, watch};

use crate::clock::now_ms;
use crate::error::ApiError;
use crate::matches::admission::Admission;
use crate::matches::cache::{Cache, Ended};
use crate::matches::driver::drive;
use crate::matches::hub::Hub;
use crate::matches::limits::MatchLimits;
use crate::matches::model::status_of;
use crate::matches::pool::BotPool;
use crate::matches::replicas::follow;
use crate::matches::retention::sweep;
use crate::matches::stored::resume;
use crate::pb;
use crate::store::{Store, StoredMatch};

/// The Matches service.
#[derive(Clone, Debug)]
pub struct MatchesService {
    pub(super) hub: Arc<Hub>,
}

impl MatchesService {
    /// A service over `store`, resuming `stored` matches (an exclusive store's, read at
    /// open). Watch streams end when `shutdown` becomes true.
    ///
    /// # Errors
    /// If a stored match cannot be resumed (a state that no longer decodes).
    pub fn new(
        store: Store,
        stored: Vec<StoredMatch>,
        limits: MatchLimits,
        shutdown: watch::Receiver<bool>,
    ) -> Result<MatchesService, ApiError> {
        let held = stored.len();
        let mut matches = HashMap::new();
        let mut ended = HashMap::new();
        let mut driving = Vec::new();
        for s in stored {
            let id = s.id.clone();
            // Ended matches stay in the store (read back when asked for): only indexed.
            let status = status_of(s.status, false);
            if status != pb::MatchStatus::Active {
                // Ended before retention was recorded: its retention starts now.
                let at = if s.ended_at_ms == 0 {
                    now_ms()
                } else {
                    s.ended_at_ms
                };
                ended.insert(id, Ended::stored(at, status));
                continue;
            }
            let m = resume(s, limits.max_ismcts_iterations)
                .map_err(|e| ApiError::Internal(format!("match {id}: {e}")))?;
            if m.live.status != pb::MatchStatus::Active {
                ended.insert(id, Ended::stored(m.live.ended_at_ms, m.live.status));
                continue;
            }
            if m.driving {
                driving.push(id.clone());
            }
            matches.insert(id, Arc::new(Mutex::new(m)));
        }
        tracing::info!(
            live = matches.len(),
            ended = ended.len(),
            persistent = store.is_persistent(),
            "matches loaded"
        );
        let pool = BotPool::start(limits.bot_workers).map_err(ApiError::Internal)?;
        let admission = Admission::new(held, limits.max_matches, store.is_shared());
        let hub = Arc::new(Hub {
            cache: Cache::new(matches, ended, store.clone(), limits.max_ismcts_iterations),
            admission,
            store,
            pool,
            limits,
            shutdown,
        });
        tracing::info!(
            bot_workers = hub.pool.workers(),
            max_ismcts_iterations = hub.limits.max_ismcts_iterations,
            max_match_actions = hub.limits.max_match_actions,
            "bot workers started"
        );
        // Matches whose bots were still playing when the server stopped play on.
        for id in driving {
            drive(&hub, id);
        }
        follow(&hub);
        Ok(MatchesService { hub })
    }

    /// Removes ended matches past their retention and aborts abandoned ones; returns how
    /// many matches were removed. The server calls it periodically.
    pub async fn sweep(&self) -> usize {
        sweep(&self.hub).await
    }

    /// Stops the bot workers (the server is shutting down): thinking bots stop at their
    /// next check, and their chunks are not committed.
    pub fn stop_bots(&self) {
        self.hub.pool.stop();
    }

    /// Whether the service must stop taking changes (its store failed).
    #[must_use]
    pub fn store_failed(&self) -> bool {
        self.hub.store.has_failed()
    }

    /// Number of matches held in memory.
    #[must_use]
    pub fn len(&self) -> usize {
        self.hub.cache.len()
    }

    /// True if no match is held in memory.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
