//! The matches in memory, each behind its own lock: found by id, loaded from the store when
//! missing (a shared store's, or an ended match of an exclusive one), revalidated against a
//! shared store before use, and forgotten when ended, idle or deleted. Only live matches
//! stay: an ended match leaves memory once nobody watches it (an exclusive store keeps an
//! index of them for retention, a few dozen bytes each). A match whose stored data is
//! damaged (set aside when the store was opened, or failing its checks when read) is never
//! served: its requests are `DATA_LOSS`.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex as StdMutex, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::domain::MatchStatus;
use crate::error::ApiError;
use crate::matches::model::Match;
use crate::matches::seats::BotLimits;
use crate::matches::stored::{adopt, resume};
use crate::store::{Damaged, Loaded, Newer, Store, StoreError, StoredMatch};

/// A shared store: a cached match unused for this long (unwatched, not played by us) is
/// dropped from memory.
const CACHE_IDLE: Duration = Duration::from_secs(60);

/// What the retention index keeps of an ended match (a few dozen bytes).
#[derive(Clone, Copy, Debug)]
pub(super) struct Ended {
    /// When it ended (Unix milliseconds).
    pub(super) at_ms: u64,
    pub(super) status: MatchStatus,
    /// Its game (empty if it ended before this process started) and length.
    pub(super) game: &'static str,
    pub(super) actions: u64,
    /// Bot work this process spent on it.
    pub(super) bot_actions: u64,
    pub(super) bot_micros: u64,
}

impl Ended {
    /// A match read back at start: when and how it ended.
    pub(super) fn stored(at_ms: u64, status: MatchStatus) -> Ended {
        Ended {
            at_ms,
            status,
            game: "",
            actions: 0,
            bot_actions: 0,
            bot_micros: 0,
        }
    }

    fn of(m: &Match) -> Ended {
        Ended {
            at_ms: m.live.ended_at_ms,
            status: m.live.status,
            game: m.live.state.game().name(),
            actions: m.live.state.move_number() as u64,
            bot_actions: m.bot_actions,
            bot_micros: m.bot_micros,
        }
    }
}

/// One match in memory, behind its lock.
pub(super) type Entry = Arc<Mutex<Match>>;

/// The matches in memory.
#[derive(Debug)]
pub(super) struct Cache {
    table: RwLock<HashMap<String, Entry>>,
    /// An exclusive store's ended matches, in memory or not: what retention and the
    /// operator's listing look at. A shared store sweeps itself.
    ended: StdMutex<HashMap<String, Ended>>,
    store: Store,
    /// IS-MCTS iterations a bot may spend on a move (matches read back are held to it).
    bot_limits: BotLimits,
    /// Matches an exclusive store set aside as damaged when it was opened: never served.
    set_aside: HashSet<String>,
    /// Damage already logged: match id → the version and what was found (logged again only
    /// if either changes, so that a poll meeting a damaged row each second does not flood
    /// the log).
    reported: StdMutex<HashMap<String, (Option<u64>, String)>>,
}

impl Cache {
    /// A cache holding `matches` (an exclusive store's live ones, read at open) and the
    /// index of its `ended` ones, over `store`; `set_aside`: the ids of the store's damaged
    /// matches.
    pub(super) fn new(
        matches: HashMap<String, Entry>,
        ended: HashMap<String, Ended>,
        set_aside: HashSet<String>,
        store: Store,
        bot_limits: BotLimits,
    ) -> Cache {
        Cache {
            table: RwLock::new(matches),
            ended: StdMutex::new(ended),
            store,
            bot_limits,
            set_aside,
            reported: StdMutex::default(),
        }
    }

    /// The answer to a request for a match found damaged (`version`: the stored version
    /// read, if known), after logging where and what (once per id, version and finding).
    pub(super) fn damaged(&self, d: Damaged, version: Option<u64>) -> ApiError {
        let new = self.reported.lock().map_or(true, |mut seen| {
            let finding = (version, d.what.clone());
            seen.insert(d.id.clone(), finding.clone()) != Some(finding)
        });
        if new {
            tracing::error!(
                match_id = %d.id,
                place = %d.place,
                version,
                "match not served, its stored data is damaged: {}; requests for it are \
                 answered DATA_LOSS until it is repaired",
                d.what
            );
        }
        ApiError::DataLoss
    }

    /// Number of matches in memory.
    pub(super) fn len(&self) -> usize {
        self.table.read().map_or(0, |m| m.len())
    }

    /// The cached match `id`, if it is cached.
    pub(super) fn cached(&self, id: &str) -> Result<Option<Entry>, ApiError> {
        let matches = self
            .table
            .read()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?;
        Ok(matches.get(id).cloned())
    }

    /// What `pick` takes of each cached match, under the table's read lock (nothing if the
    /// lock is poisoned).
    pub(super) fn collect<T>(&self, mut pick: impl FnMut(&String, &Entry) -> Option<T>) -> Vec<T> {
        match self.table.read() {
            Ok(table) => table.iter().filter_map(|(id, m)| pick(id, m)).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Adds a new match.
    pub(super) fn insert(&self, id: String, m: Match) -> Result<(), ApiError> {
        self.table
            .write()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?
            .insert(id, Arc::new(Mutex::new(m)));
        Ok(())
    }

    /// Match `id`: from memory, or else loaded from the store (a shared store's, or an
    /// ended match of an exclusive one). A shared store's match must still be revalidated
    /// ([`Cache::fresh`]) once locked.
    pub(super) async fn get(&self, id: &str) -> Result<Entry, ApiError> {
        if let Some(m) = self.cached(id)? {
            return Ok(m);
        }
        if self.set_aside.contains(id) {
            return Err(ApiError::DataLoss);
        }
        let (stored, version, place) = if let Some(shared) = self.store.shared() {
            let loaded = match shared.load(id, None).await {
                Ok(Newer::Changed(loaded)) => loaded,
                Ok(Newer::Same | Newer::Gone) => {
                    return Err(ApiError::MatchNotFound(id.to_owned()));
                }
                Err(StoreError::Damaged(d)) => return Err(self.damaged(d, None)),
                Err(e) => return Err(unavailable(e)),
            };
            let Loaded {
                stored,
                version,
                place,
            } = *loaded;
            (stored, Some(version), place)
        } else if self.has_ended(id) {
            let stored: Option<StoredMatch> = match self.store.load_stored(id).await {
                Ok(stored) => stored,
                Err(StoreError::Damaged(d)) => return Err(self.damaged(d, None)),
                Err(e) => return Err(unavailable(e)),
            };
            let stored = stored.ok_or_else(|| ApiError::MatchNotFound(id.to_owned()))?;
            (stored, None, "the data directory's database".to_owned())
        } else {
            return Err(ApiError::MatchNotFound(id.to_owned()));
        };
        let bot_limits = self.bot_limits;
        let mut m = match catch_unwind(AssertUnwindSafe(|| resume(stored, bot_limits))) {
            Ok(Ok(m)) => m,
            Ok(Err(what)) => {
                let id = id.to_owned();
                return Err(self.damaged(Damaged { id, place, what }, version));
            }
            Err(_) => return Err(ApiError::Internal(format!("resuming match {id} panicked"))),
        };
        m.version = version.unwrap_or(0);
        // Whoever plays its bots, it is not this process yet (see `replicas::poll`).
        m.driving = false;
        let mut table = self
            .table
            .write()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?;
        Ok(Arc::clone(
            table
                .entry(id.to_owned())
                .or_insert_with(|| Arc::new(Mutex::new(m))),
        ))
    }

    /// Brings cached match `m` up to date with a shared store (one query, which returns the
    /// match only if another replica changed it). A no-op for an exclusive store, whose
    /// memory is the truth.
    pub(super) async fn fresh(&self, m: &mut Match) -> Result<(), ApiError> {
        let Some(shared) = self.store.shared() else {
            return Ok(());
        };
        m.used = Instant::now();
        let known = (!m.stale).then_some(m.version);
        match shared.load(&m.meta.id, known).await {
            Ok(Newer::Same) => Ok(()),
            Ok(Newer::Changed(loaded)) => {
                let (version, place) = (loaded.version, loaded.place.clone());
                let bot_limits = self.bot_limits;
                match catch_unwind(AssertUnwindSafe(|| adopt(m, *loaded, bot_limits))) {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(what)) => {
                        let id = m.meta.id.clone();
                        Err(self.damaged(Damaged { id, place, what }, Some(version)))
                    }
                    Err(_) => Err(ApiError::Internal(format!(
                        "adopting match {} panicked",
                        m.meta.id
                    ))),
                }
            }
            Ok(Newer::Gone) => {
                self.forget(&m.meta.id);
                Err(ApiError::MatchNotFound(m.meta.id.clone()))
            }
            Err(StoreError::Damaged(d)) => Err(self.damaged(d, None)),
            Err(e) => Err(unavailable(e)),
        }
    }

    /// Reloads cached match `m` from a shared store (see [`adopt`]).
    pub(super) async fn reload(&self, m: &mut Match) -> Result<(), ApiError> {
        if !self.store.is_shared() {
            return Ok(());
        }
        m.stale = true;
        self.fresh(m).await
    }

    /// Drops match `id` from the cache (its watchers' streams end).
    pub(super) fn forget(&self, id: &str) {
        if let Ok(mut table) = self.table.write() {
            table.remove(id);
        }
        if let Ok(mut reported) = self.reported.lock() {
            reported.remove(id);
        }
    }

    /// Drops cached matches that nobody watches, no task of ours plays, and no request used
    /// for [`CACHE_IDLE`]: a shared store's (reloaded when they are asked for again) and
    /// ended ones (read back from the store). An exclusive store's live matches stay: its
    /// memory is their truth.
    pub(super) fn forget_idle(&self) {
        let shared = self.store.is_shared();
        let persistent = self.store.is_persistent();
        let Ok(mut table) = self.table.write() else {
            return;
        };
        table.retain(|_, m| match m.try_lock() {
            Ok(m) => {
                let ended = m.live.status != MatchStatus::Active;
                if ended && !shared {
                    self.index_ended(&m);
                }
                let evictable = shared || (ended && persistent);
                !evictable || m.driving || m.watched() || m.used.elapsed() < CACHE_IDLE
            }
            Err(_) => true,
        });
    }

    /// After a change of `m` was committed: an ended match is indexed for retention and,
    /// unless someone watches it, leaves memory when the store keeps its record.
    pub(super) fn settle(&self, m: &Match) {
        if m.live.status == MatchStatus::Active {
            return;
        }
        if !self.store.is_shared() {
            self.index_ended(m);
        }
        if self.store.is_persistent() && !m.watched() {
            self.forget(&m.meta.id);
        }
    }

    /// Adds ended match `m` to the retention index.
    fn index_ended(&self, m: &Match) {
        if let Ok(mut ended) = self.ended.lock() {
            ended.insert(m.meta.id.clone(), Ended::of(m));
        }
    }

    /// Whether the retention index holds `id`.
    fn has_ended(&self, id: &str) -> bool {
        self.ended.lock().is_ok_and(|e| e.contains_key(id))
    }

    /// The indexed ended matches that ended before `before_ms`.
    pub(super) fn expired(&self, before_ms: u64) -> Vec<String> {
        self.ended.lock().map_or_else(
            |_| Vec::new(),
            |e| {
                e.iter()
                    .filter(|&(_, e)| e.at_ms < before_ms)
                    .map(|(id, _)| id.clone())
                    .collect()
            },
        )
    }

    /// The retention index.
    pub(super) fn ended_index(&self) -> Vec<(String, Ended)> {
        self.ended.lock().map_or_else(
            |_| Vec::new(),
            |e| e.iter().map(|(id, &e)| (id.clone(), e)).collect(),
        )
    }

    /// Removes `id` from memory and from the retention index (it was deleted).
    pub(super) fn remove(&self, id: &str) {
        self.forget(id);
        if let Ok(mut ended) = self.ended.lock() {
            ended.remove(id);
        }
    }
}

/// A shared store's read failed.
pub(super) fn unavailable(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "reading the match store failed");
    ApiError::StoreUnavailable
}
