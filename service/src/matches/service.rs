//! [`MatchesService`]: the Matches service as the server builds it — the stored matches
//! resumed, their bots set playing again, the other replicas followed — and what the server
//! asks of it afterwards (the periodic sweep, whether its store failed).

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{Mutex, watch};

use crate::error::ApiError;
use crate::matches::admission::Admission;
use crate::matches::cache::Cache;
use crate::matches::driver::drive;
use crate::matches::gauges;
use crate::matches::hub::Hub;
use crate::matches::limits::MatchLimits;
use crate::matches::replicas::follow;
use crate::matches::retention::sweep;
use crate::matches::stored::resume;
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
        let mut matches = HashMap::with_capacity(stored.len());
        let mut driving = Vec::new();
        for s in stored {
            let id = s.id.clone();
            let m = resume(s).map_err(|e| ApiError::Internal(format!("match {id}: {e}")))?;
            if m.driving {
                driving.push(id.clone());
            }
            matches.insert(id, Arc::new(Mutex::new(m)));
        }
        tracing::info!(
            matches = matches.len(),
            persistent = store.is_persistent(),
            "matches loaded"
        );
        let admission = Admission::new(matches.len(), limits.max_matches, store.is_shared());
        let hub = Arc::new(Hub {
            cache: Cache::new(matches, store.clone()),
            admission,
            store,
            limits,
            shutdown,
        });
        // Matches whose bots were still playing when the server stopped play on.
        for id in driving {
            drive(&hub, id);
        }
        follow(&hub);
        gauges::register(&hub);
        Ok(MatchesService { hub })
    }

    /// Removes ended matches past their retention and aborts abandoned ones; returns how
    /// many matches were removed. The server calls it periodically.
    pub async fn sweep(&self) -> usize {
        sweep(&self.hub).await
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
