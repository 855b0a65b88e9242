//! The shared state every request of the Matches service works on ([`Hub`]): the cache, the
//! admission count, the store, the bot workers, the limits and the shutdown signal.

use tokio::sync::watch;

use crate::matches::admission::Admission;
use crate::matches::cache::Cache;
use crate::matches::handoff::Handoff;
use crate::matches::limits::MatchLimits;
use crate::matches::pool::BotPool;
use crate::matches::timers::Timers;
use crate::store::Store;

/// The shared state of the Matches service.
#[derive(Debug)]
pub(super) struct Hub {
    pub(super) cache: Cache,
    /// Change notices of matches held by a request, handed to it (a shared store).
    pub(super) handoff: Handoff,
    pub(super) admission: Admission,
    pub(super) store: Store,
    pub(super) pool: BotPool,
    pub(super) limits: MatchLimits,
    /// The deadlines of the clocks running in this process's matches.
    pub(super) timers: std::sync::Arc<Timers>,
    /// Becomes true when the server shuts down (Watch streams end).
    pub(super) shutdown: watch::Receiver<bool>,
}
