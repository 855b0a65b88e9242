//! [`MatchesService`]: the Matches service as the server builds it — the stored matches
//! resumed, their bots set playing again, the other replicas followed — and what the server
//! asks of it afterwards (the periodic sweep, whether its store failed).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::sync::{Mutex, watch};

use crate::clock::now_ms;
use crate::domain::MatchStatus;
use crate::error::ApiError;
use crate::matches::admission::Admission;
use crate::matches::cache::{Cache, Ended};
use crate::matches::driver::drive;
use crate::matches::gauges;
use crate::matches::handoff::Handoff;
use crate::matches::hub::Hub;
use crate::matches::limits::MatchLimits;
use crate::matches::pool::BotPool;
use crate::matches::replicas::follow;
use crate::matches::retention::sweep;
use crate::matches::stored::resume;
use crate::matches::timeouts;
use crate::matches::timers::Timers;
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
    ///
    /// # Errors
    /// If the bot worker threads cannot be started.
    pub fn new(
        store: Store,
        opened: Opened,
        limits: MatchLimits,
        shutdown: watch::Receiver<bool>,
    ) -> Result<MatchesService, ApiError> {
        let mut matches = HashMap::new();
        let mut ended = HashMap::new();
        let mut set_aside: HashSet<String> = opened.damaged.into_iter().map(|d| d.id).collect();
        let mut driving = Vec::new();
        let timers = Arc::new(Timers::default());
        for s in opened.matches {
            let id = s.id.clone();
            // Ended matches stay in the store (read back when asked for): only indexed. A
            // status no match has is left to `resume`, whose checks set the match aside.
            if let Some(status) = MatchStatus::from_code(s.status)
                && status != MatchStatus::Active
            {
                // Ended before retention was recorded: its retention starts now.
                let at = if s.ended_at_ms == 0 {
                    now_ms()
                } else {
                    s.ended_at_ms
                };
                ended.insert(id, Ended::stored(at, status));
                continue;
            }
            let bot_limits = limits.bot_limits();
            let m = match std::panic::catch_unwind(|| resume(s, bot_limits)) {
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
            if m.live.status != MatchStatus::Active {
                ended.insert(id, Ended::stored(m.live.ended_at_ms, m.live.status));
                continue;
            }
            if m.driving {
                driving.push(id.clone());
            }
            // A clock that ran out while the server was down times out at once.
            timers.arm(&id, m.live.table.as_ref());
            matches.insert(id, Arc::new(Mutex::new(m)));
        }
        tracing::info!(
            live = matches.len(),
            ended = ended.len(),
            set_aside = set_aside.len(),
            persistent = store.is_persistent(),
            "matches loaded"
        );
        let pool = BotPool::start(limits.bot_workers).map_err(ApiError::Internal)?;
        // Damaged matches keep their slots: they stay in the store.
        let held = matches.len() + ended.len() + set_aside.len();
        let admission = Admission::new(held, limits.max_matches, store.is_shared());
        let hub = Arc::new(Hub {
            cache: Cache::new(
                matches,
                ended,
                set_aside,
                store.clone(),
                limits.bot_limits(),
            ),
            handoff: Handoff::default(),
            admission,
            store,
            pool,
            limits,
            shutdown,
            timers,
        });
        tracing::info!(
            bot_workers = hub.pool.workers(),
            max_ismcts_iterations = hub.limits.max_ismcts_iterations,
            max_rollout_samples = hub.limits.max_rollout_samples,
            max_pimc_worlds = hub.limits.max_pimc_worlds,
            max_match_actions = hub.limits.max_match_actions,
            "bot workers started"
        );
        // Matches whose bots were still playing when the server stopped play on.
        for id in driving {
            drive(&hub, id);
        }
        timeouts::start(&hub);
        follow(&hub);
        gauges::register(&hub);
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
