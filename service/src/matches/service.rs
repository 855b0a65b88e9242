//! [`MatchesService`]: the Matches service as the server builds it — the stored matches
//! resumed, their bots set playing again, the other replicas followed — and what the server
//! asks of it afterwards (the periodic sweep, whether its store failed).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::sync::{Mutex, watch};

use crate::matches::admission::Admission;
use crate::matches::cache::Cache;
use crate::matches::driver::drive;
use crate::matches::hub::Hub;
use crate::matches::limits::MatchLimits;
use crate::matches::replicas::follow;
use crate::matches::retention::sweep;
use crate::matches::stored::resume;
use crate::store::{Damaged, Opened, Store};

/// The Matches service.
#[derive(Clone, Debug)]
pub struct MatchesService {
    pub(super) hub: Arc<Hub>,
}

impl MatchesService {
    /// A service over `store`, resuming the matches it `opened` (an exclusive store's, read
    /// at open). A damaged match (set aside by the store, or failing [`resume`]'s checks) is
    /// not served: its requests are `DATA_LOSS`; it still holds its slot under the match
    /// limit. Watch streams end when `shutdown` becomes true.
    #[must_use]
    pub fn new(
        store: Store,
        opened: Opened,
        limits: MatchLimits,
        shutdown: watch::Receiver<bool>,
    ) -> MatchesService {
        let mut matches = HashMap::with_capacity(opened.matches.len());
        let mut set_aside: HashSet<String> = opened.damaged.into_iter().map(|d| d.id).collect();
        let mut driving = Vec::new();
        for s in opened.matches {
            let id = s.id.clone();
            let m = match std::panic::catch_unwind(|| resume(s)) {
                Ok(Ok(m)) => m,
                outcome => {
                    let what = match outcome {
                        Ok(Err(what)) => what,
                        _ => "resuming it panicked".to_owned(),
                    };
                    let damaged = Damaged {
                        id: id.clone(),
                        place: "the store".into(),
                        what,
                    };
                    tracing::error!(match_id = %id, "match set aside: {damaged}");
                    set_aside.insert(id);
                    continue;
                }
            };
            if m.driving {
                driving.push(id.clone());
            }
            matches.insert(id, Arc::new(Mutex::new(m)));
        }
        tracing::info!(
            matches = matches.len(),
            set_aside = set_aside.len(),
            persistent = store.is_persistent(),
            "matches loaded"
        );
        // Damaged matches keep their slots: they stay in the store.
        let held = matches.len() + set_aside.len();
        let admission = Admission::new(held, limits.max_matches, store.is_shared());
        let hub = Arc::new(Hub {
            cache: Cache::new(matches, set_aside, store.clone()),
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
        MatchesService { hub }
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
