//! The matches in memory, each behind its own lock: found by id, loaded from a shared store
//! when missing, revalidated against it before use, and forgotten when idle or deleted.
//! A match whose stored data is damaged (set aside when the store was opened, or failing
//! its checks when read) is never served: its requests are `DATA_LOSS`.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::error::ApiError;
use crate::matches::model::Match;
use crate::matches::stored::{adopt, resume};
use crate::store::{Damaged, Loaded, Newer, Store, StoreError};

/// A shared store: a cached match unused for this long (unwatched, not played by us) is
/// dropped from memory.
const CACHE_IDLE: Duration = Duration::from_secs(60);

/// One match in memory, behind its lock.
pub(super) type Entry = Arc<Mutex<Match>>;

/// The matches in memory.
#[derive(Debug)]
pub(super) struct Cache {
    table: RwLock<HashMap<String, Entry>>,
    store: Store,
    /// Matches an exclusive store set aside as damaged when it was opened: never served.
    set_aside: HashSet<String>,
    /// Damage already logged: match id → the version and what was found (logged again only
    /// if either changes, so that a poll meeting a damaged row each second does not flood
    /// the log).
    reported: std::sync::Mutex<HashMap<String, (Option<u64>, String)>>,
}

impl Cache {
    /// A cache holding `matches` (an exclusive store's, read at open), over `store`;
    /// `set_aside`: the ids of the store's damaged matches.
    pub(super) fn new(
        matches: HashMap<String, Entry>,
        set_aside: HashSet<String>,
        store: Store,
    ) -> Cache {
        Cache {
            table: RwLock::new(matches),
            store,
            set_aside,
            reported: std::sync::Mutex::default(),
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

    /// Match `id`: from memory, or else (a shared store) loaded from the store. A shared
    /// store's match must still be revalidated ([`Cache::fresh`]) once locked.
    pub(super) async fn get(&self, id: &str) -> Result<Entry, ApiError> {
        if let Some(m) = self.cached(id)? {
            return Ok(m);
        }
        if self.set_aside.contains(id) {
            return Err(ApiError::DataLoss);
        }
        let Some(shared) = self.store.shared() else {
            return Err(ApiError::MatchNotFound(id.to_owned()));
        };
        let loaded = match shared.load(id, None).await {
            Ok(Newer::Changed(loaded)) => loaded,
            Ok(Newer::Same | Newer::Gone) => return Err(ApiError::MatchNotFound(id.to_owned())),
            Err(StoreError::Damaged(d)) => return Err(self.damaged(d, None)),
            Err(e) => return Err(unavailable(e)),
        };
        let Loaded {
            stored,
            version,
            place,
        } = *loaded;
        let mut m = match catch_unwind(AssertUnwindSafe(|| resume(stored))) {
            Ok(Ok(m)) => m,
            Ok(Err(what)) => {
                let id = id.to_owned();
                return Err(self.damaged(Damaged { id, place, what }, Some(version)));
            }
            Err(_) => return Err(ApiError::Internal(format!("resuming match {id} panicked"))),
        };
        // Whoever plays its bots, it is not this process yet (see `replicas::poll`).
        m.driving = false;
        m.version = version;
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
                match catch_unwind(AssertUnwindSafe(|| adopt(m, *loaded))) {
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
    /// for [`CACHE_IDLE`] (a shared store reloads them when they are asked for again).
    pub(super) fn forget_idle(&self) {
        let Ok(mut table) = self.table.write() else {
            return;
        };
        table.retain(|_, m| match m.try_lock() {
            Ok(m) => m.driving || m.watched() || m.used.elapsed() < CACHE_IDLE,
            Err(_) => true,
        });
    }
}

/// A shared store's read failed.
pub(super) fn unavailable(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "reading the match store failed");
    ApiError::StoreUnavailable
}
