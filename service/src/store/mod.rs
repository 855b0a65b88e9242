//! The store contract: where matches are kept across restarts, and what every backend
//! promises. The match service sees only this module's [`Store`]; which backend is behind it
//! is decided once, by [`open::open`], from the server's configuration.
//!
//! | backend | module | kept in |
//! |---|---|---|
//! | memory | [`memory`] | nothing: matches end with the process (tests) |
//! | data directory | [`local`] | a redb database and a move log, one server |
//! | PostgreSQL | [`pg`] | a database shared by any number of replicas |
//!
//! | file | owns | may call |
//! |---|---|---|
//! | `mod.rs` | the contract: [`MatchStore`], [`SharedStore`], [`Store`], [`Ack`], the errors | `record` |
//! | `record.rs` | [`StoredMatch`], the record every backend keeps, and its migrations | — |
//! | `check.rs` | what a stored match must be to be served; its seats and status decoded | `mod.rs` |
//! | `open.rs` | [`open::StoreConfig`] (each backend's settings) to a backend: the only file naming them all | `local`, `memory`, `mod.rs`, `pg` |
//! | `outbox.rs` | events waiting to be relayed, in memory (the memory and local stores) | `mod.rs` |
//! | `memory.rs` | keeps nothing (tests) | `mod.rs`, `outbox` |
//! | `local/` | the data directory (folder) | `check`, `mod.rs`, `outbox` |
//! | `pg/` | PostgreSQL (folder) | `mod.rs` |
//!
//! # The contract every store keeps
//!
//! The match service writes through [`MatchStore`]: `submit_create` (a new match),
//! `submit_change` (one accepted request: the actions it applied from a given move number,
//! the version of the match it was made on, and the whole match for backends that want it)
//! and `submit_delete` (retention). Whichever the backend, it promises:
//!
//! * a write's [`Ack`] says `Ok` only once the write is durable; the caller acknowledges
//!   nothing before, and applies the change in memory only then;
//! * a write is queued at once and runs to its end whether or not its request is still
//!   waiting, so a cancelled request cannot leave a write half done or split memory from the
//!   store;
//! * a write whose outcome is unknown (a failed `fsync`, a connection lost mid-commit) is
//!   never built upon: an exclusive store takes no more writes until the server restarts
//!   and checks it ([`MatchStore::has_failed`]); a shared store's caller reloads that match
//!   before the next change;
//! * tokens are stored as hashes only ([`crate::auth::hash_token`]);
//! * on open, every match is exactly as its last successful write left it; damage to the
//!   store as a whole (a database behind its log, a torn middle of the log, a file missing
//!   or unreadable) is reported ([`StoreError::Corrupt`], naming the file) and the server
//!   does not start, unless the operator asked to salvage, which keeps what is consistent,
//!   logs everything it dropped and keeps the damaged files aside; a refused start changes
//!   no byte of any file;
//! * **one damaged match is set aside, never fatal**: a match whose stored data fails its
//!   checksum or is impossible ([`check::check`]) is reported in [`Opened::damaged`] (an
//!   exclusive store, at open) or as [`StoreError::Damaged`] (a shared store, at each
//!   load), logged with the file (or table and row) and what is wrong; the store never
//!   changes or deletes its data (a fix by the operator makes it readable again), and the
//!   match service answers every request for it with `DATA_LOSS`;
//! * only a record that a crash tore while it was being written (never acknowledged) is
//!   dropped silently, and even that is logged with the file and offset.
//!
//! # The outbox (`--events`)
//!
//! A store opened with an outbox ([`open::open_with`]) writes the events a change carries
//! ([`Change::events`], and those of a creation) in the same commit as the change: both are
//! durable, or neither. Its [`Outbox`] side hands them to the relay in commit order (a
//! match's in sequence order) until the relay says they are published
//! ([`Outbox::relayed`]); an event not yet marked is handed out again after a restart (or,
//! in a shared store, by another replica), so it is published at least once. A store
//! opened without an outbox writes none, and takes changes without events.
//!
//! # Exclusive and shared stores
//!
//! An **exclusive** store (memory, a data directory) is written by this process only: every
//! match is read once, at open, and from then on the match service's memory is the truth
//! for live matches. Ended matches leave that memory and are read back on demand
//! ([`MatchStore::load_stored`]). The service sweeps itself (abandonment, retention) and
//! deletes through [`MatchStore::submit_delete`].
//!
//! A **shared** store ([`MatchStore::shared`] returns its [`SharedStore`] side) is written by
//! other replicas too. Its matches are loaded on demand and revalidated before they are
//! served ([`SharedStore::load`]); it applies a change only if the match is still at the
//! version it was made on ([`StoreError::Conflict`] otherwise, nothing written); it counts
//! matches for the limit in the same statement that creates or deletes one
//! ([`StoreError::Full`]); it sweeps itself ([`SharedStore::sweep`]); and it may tell of
//! changes made elsewhere ([`Notice`]s).

pub mod check;
pub mod local;
pub mod memory;
pub mod open;
pub mod outbox;
pub mod pg;
mod record;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::domain::{MatchStatus, Seat};
use crate::metrics::{CommitTimer, StoreFailure, StoreOp, store_commit};

pub use record::{STORED_FORMAT, StandInRecord, StoredMatch, TableRecord};

/// A boxed future of a store method (the contract is used as a trait object).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The backend's database failed (its own message).
    #[error("database: {0}")]
    Db(String),
    #[error("cannot create data directory {path}: {source}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the store's writer has stopped")]
    WriterGone,
    #[error("{what}")]
    Failed { what: String },
    /// Stored data that cannot be proven whole: the file (or table and row) and what is wrong.
    #[error("{path}: {what}")]
    Corrupt { path: PathBuf, what: String },
    /// One match's stored data is damaged (the rest of the store is not): it is not served.
    #[error("{0}")]
    Damaged(Damaged),
    /// A shared store: the match changed through another replica since it was read; nothing
    /// was written.
    #[error("the match changed through another replica; nothing was written")]
    Conflict,
    /// A shared store: the match limit is reached; nothing was written.
    #[error("the store holds its limit of matches")]
    Full,
    #[error("move log {path}: {source}")]
    Log {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why a write was not committed, as its [`Ack`] tells.
#[derive(Clone, Debug)]
pub enum CommitError {
    /// A shared store: the match is no longer at the version the change was made on (another
    /// replica changed or deleted it). Nothing was written.
    Conflict,
    /// A shared store: the match limit is reached. Nothing was written.
    Full,
    /// The write failed; whether it reached the disk is unknown.
    Failed(String),
}

impl From<CommitError> for StoreError {
    fn from(e: CommitError) -> StoreError {
        match e {
            CommitError::Conflict => StoreError::Conflict,
            CommitError::Full => StoreError::Full,
            CommitError::Failed(what) => StoreError::Failed { what },
        }
    }
}

/// The outcome of one write.
pub type Acked = Result<(), CommitError>;

/// The outcome of a queued write, to wait for (and, with metrics on, the time it took: see
/// [`Store`]'s `submit_*`).
#[derive(Debug)]
pub struct Ack(Option<oneshot::Receiver<Acked>>, Option<CommitTimer>);

impl Ack {
    /// A write that needed nothing done (a store that keeps nothing).
    #[must_use]
    pub fn done() -> Ack {
        Ack(None, None)
    }

    /// An acknowledgement to be sent through the returned sender once the write is durable
    /// (or failed).
    #[must_use]
    pub fn pending() -> (oneshot::Sender<Acked>, Ack) {
        let (tx, rx) = oneshot::channel();
        (tx, Ack(Some(rx), None))
    }

    /// This write, timed by `timer` until its outcome is known.
    fn timed(mut self, timer: Option<CommitTimer>) -> Ack {
        self.1 = timer;
        self
    }

    /// Records the outcome with the timer, if any.
    fn observe(&mut self, result: &Result<(), StoreError>) {
        if let Some(timer) = self.1.take() {
            timer.done(match result {
                Ok(()) => None,
                Err(StoreError::Conflict) => Some(StoreFailure::Conflict),
                Err(StoreError::Full) => Some(StoreFailure::Full),
                Err(_) => Some(StoreFailure::Failed),
            });
        }
    }

    /// Runs `write` in a task of its own (so it completes even if the request that made it
    /// is dropped) and acknowledges its outcome.
    pub fn spawn(write: impl Future<Output = Acked> + Send + 'static) -> Ack {
        let (tx, ack) = Ack::pending();
        tokio::spawn(async move {
            let _ = tx.send(write.await);
        });
        ack
    }

    /// Waits until the write is durable (or failed), without giving the acknowledgement up:
    /// if the waiting future is dropped, the same `Ack` can still be waited for.
    ///
    /// # Errors
    /// If the commit failed or the writer is gone.
    pub async fn wait_mut(&mut self) -> Result<(), StoreError> {
        let result = match self.0.as_mut() {
            Some(done) => outcome(done.await),
            None => Ok(()),
        };
        self.0 = None;
        self.observe(&result);
        result
    }

    /// Waits until the write is durable (or failed).
    ///
    /// # Errors
    /// If the commit failed or the writer is gone.
    pub async fn wait(mut self) -> Result<(), StoreError> {
        let result = match self.0.take() {
            Some(done) => outcome(done.await),
            None => Ok(()),
        };
        self.observe(&result);
        result
    }
}

fn outcome(received: Result<Acked, oneshot::error::RecvError>) -> Result<(), StoreError> {
    match received {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(StoreError::WriterGone),
    }
}

/// One change to a match, for [`MatchStore::submit_change`]: what each backend needs of it.
pub struct Change<'a> {
    pub id: &'a str,
    /// The match's version before the change (a shared store applies the change only if it
    /// still holds this version).
    pub version: u64,
    /// History index of the first new action (the match's move number before them).
    pub from: u64,
    /// The actions applied (none for a resignation or an abort).
    pub actions: &'a [u32],
    /// The match ended (or its header changed): a store that logs moves rewrites its
    /// snapshot.
    pub snapshot: bool,
    /// The whole match after the change (called only by backends that need it).
    pub stored: &'a dyn Fn() -> StoredMatch,
    /// Bots or chance are to move after the change.
    pub driving: bool,
    /// The match's events this change makes, for the outbox (none without one).
    pub events: &'a [OutboxEvent],
}

/// One event of a match, written in the same commit as the change that made it and
/// relayed after it (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxEvent {
    pub match_id: String,
    /// 1, 2, 3, ... per match: with `match_id`, the event's stable id.
    pub seq: u64,
    /// Where it is published.
    pub subject: String,
    /// The encoded event.
    pub payload: Vec<u8>,
}

/// The outbox side of a store: the events written with the changes, until relayed.
pub trait Outbox: Send + Sync {
    /// Waits until events are waiting, then returns up to `limit` of them in commit order
    /// (each match's in sequence order), the same ones again until [`Outbox::relayed`]
    /// takes them. A shared store returns none to a replica while another one relays.
    ///
    /// # Errors
    /// The backend's.
    fn pending(&self, limit: usize) -> StoreFuture<'_, Result<Vec<OutboxEvent>, StoreError>>;

    /// Forgets events published: for each `(match id, seq)`, that match's events up to
    /// `seq`.
    ///
    /// # Errors
    /// The backend's (the events are then handed out again: harmless, they carry their id).
    fn relayed<'a>(&'a self, upto: &'a [(String, u64)]) -> StoreFuture<'a, Result<(), StoreError>>;
}

impl std::fmt::Debug for Change<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Change")
            .field("id", &self.id)
            .field("version", &self.version)
            .field("from", &self.from)
            .field("actions", &self.actions.len())
            .field("snapshot", &self.snapshot)
            .field("events", &self.events.len())
            .finish_non_exhaustive()
    }
}

/// A match store: what the match service writes through, whichever the backend.
pub trait MatchStore: Send + Sync + std::fmt::Debug {
    /// The backend's name in metrics and logs: `memory`, `local` or `postgres`.
    fn backend(&self) -> &'static str;

    /// True if writes outlive the process.
    fn is_persistent(&self) -> bool;

    /// True once a write's outcome became unknown in an exclusive store: it takes no more
    /// writes until the server restarts and checks it. A shared store never fails as a
    /// whole (a failed statement leaves the database consistent; only the match it was for
    /// must be reloaded).
    fn has_failed(&self) -> bool;

    /// The shared side of this store, if other processes write the same matches.
    fn shared(&self) -> Option<&dyn SharedStore> {
        None
    }

    /// The outbox side of this store, if it was opened with one (`--events`).
    fn outbox(&self) -> Option<&dyn Outbox> {
        None
    }

    /// Queues the creation of match `m` (`move_number` actions in its history; `driving`:
    /// bots or chance are to move; `events`: its first events, for the outbox) at once; its
    /// outcome comes from the returned [`Ack`]. A shared store refuses it
    /// ([`StoreError::Full`]) if it holds `max_matches` already.
    ///
    /// # Errors
    /// If the store's writer is gone.
    fn submit_create(
        &self,
        m: &StoredMatch,
        move_number: u64,
        driving: bool,
        max_matches: usize,
        events: &[OutboxEvent],
    ) -> Result<Ack, StoreError>;

    /// Queues `change` at once; its outcome comes from the returned [`Ack`].
    ///
    /// # Errors
    /// If the store's writer is gone.
    fn submit_change(&self, change: &Change<'_>) -> Result<Ack, StoreError>;

    /// Queues the deletion of match `id` (its retention ended) at once.
    ///
    /// # Errors
    /// If the store's writer is gone.
    fn submit_delete(&self, id: &str) -> Result<Ack, StoreError>;

    /// A stored match, read back: an exclusive store's ended matches leave the match
    /// service's memory and are read again from here when asked for. `None` if the store
    /// holds no such match (or keeps nothing). A shared store's matches are read through
    /// [`SharedStore::load`] instead.
    ///
    /// # Errors
    /// The backend's; stored data that does not decode ([`StoreError::Corrupt`]).
    fn load_stored<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Option<StoredMatch>, StoreError>> {
        let _ = id;
        Box::pin(async { Ok(None) })
    }

    /// Finishes the writes already queued and lets go of the store's files or connections;
    /// later writes fail. Called once the server has stopped, so that the same store can be
    /// opened again.
    fn close(&self) -> StoreFuture<'_, ()>;
}

/// What [`SharedStore::load`] found.
#[derive(Debug)]
pub enum Newer {
    /// No such match.
    Gone,
    /// The match is at the known version.
    Same,
    /// The match at another version.
    Changed(Box<Loaded>),
}

/// A match as read from a shared store.
#[derive(Debug)]
pub struct Loaded {
    pub stored: StoredMatch,
    pub version: u64,
    /// Where it was read (a table and row), for the log if it turns out damaged.
    pub place: String,
}

/// A match whose stored data is damaged: set aside, never served, changed or deleted.
#[derive(Clone, Debug)]
pub struct Damaged {
    pub id: String,
    /// Where its data is: a file, or a table and row.
    pub place: String,
    /// What is wrong, for the operator.
    pub what: String,
}

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "match {} ({}): {}", self.id, self.place, self.what)
    }
}

/// What opening a store found: the matches an exclusive store holds (a shared store's are
/// loaded on demand: none), and the ones set aside as damaged.
#[derive(Debug, Default)]
pub struct Opened {
    pub matches: Vec<StoredMatch>,
    pub damaged: Vec<Damaged>,
}

/// A message of a shared store about changes made by other replicas.
#[derive(Debug)]
pub enum Notice {
    /// Match `id` is now at `version`; with `moves`, the change that made it was these
    /// actions alone, applied from move number `moves.0` to the previous version (the match
    /// neither ended nor changed otherwise), so a copy at the previous version can apply
    /// them instead of reading the match again.
    Changed {
        id: String,
        version: u64,
        moves: Option<(u64, Vec<u32>)>,
    },
    /// Match `id` was deleted (retention).
    Deleted { id: String },
    /// Notices may have been missed (the store's listening connection was re-established).
    Resync,
}

/// What one [`SharedStore::sweep`] did.
#[derive(Debug, Default)]
pub struct Swept {
    /// Matches aborted as abandoned.
    pub aborted: Vec<String>,
    /// Ended matches deleted after their retention.
    pub deleted: Vec<String>,
}

/// One match as [`SharedStore::list`] shows it.
#[derive(Debug)]
pub struct Listed {
    pub id: String,
    /// Game name (empty if the stored state does not say).
    pub game: String,
    /// Who plays each seat (`None`: a stored code no seat has, in a damaged header; no seats
    /// if the header does not decode).
    pub seats: Vec<Option<Seat>>,
    /// The status (`None`: a stored code no status has, in a damaged row).
    pub status: Option<MatchStatus>,
    /// Actions in the match's history.
    pub actions: u64,
    /// Bots or chance are to move.
    pub driving: bool,
    /// When the match ended (Unix milliseconds); 0 while active.
    pub ended_at_ms: u64,
}

/// The side of a store that other processes write too (see the module docs).
pub trait SharedStore: Send + Sync {
    /// Match `id` if its version is not `known` (`None`: whatever its version), in one
    /// round trip either way.
    ///
    /// # Errors
    /// The database's; a match whose stored data does not decode ([`StoreError::Damaged`];
    /// whatever decodes is checked by the caller, [`check::check`]).
    fn load<'a>(
        &'a self,
        id: &'a str,
        known: Option<u64>,
    ) -> StoreFuture<'a, Result<Newer, StoreError>>;

    /// The versions of those of `ids` that exist.
    ///
    /// # Errors
    /// The database's.
    fn versions<'a>(
        &'a self,
        ids: &'a [String],
    ) -> StoreFuture<'a, Result<Vec<(String, u64)>, StoreError>>;

    /// Active matches whose bots or chance are to move and that no replica has advanced
    /// since `before_ms` (a replica died while playing them).
    ///
    /// # Errors
    /// The database's.
    fn stalled(&self, before_ms: u64) -> StoreFuture<'_, Result<Vec<String>, StoreError>>;

    /// Active matches whose clock ran out at or before `now_ms` (whichever replica set it).
    ///
    /// # Errors
    /// The database's.
    fn expired(&self, now_ms: u64) -> StoreFuture<'_, Result<Vec<String>, StoreError>>;

    /// Active matches untouched since `before_ms` whose bots are not playing, with their
    /// versions (a bounded number a call): with an outbox, the match service aborts these
    /// itself if still at that version, each abort's events written with it, as
    /// [`SharedStore::sweep`] then does not.
    ///
    /// # Errors
    /// The database's.
    fn abandoned(&self, before_ms: u64) -> StoreFuture<'_, Result<Vec<(String, u64)>, StoreError>>;

    /// Aborts active matches untouched since `abandoned_before` (whose bots are not
    /// playing; not with an outbox: see [`SharedStore::abandoned`]) and deletes ended
    /// matches that ended before `ended_before`, each once whichever replica runs it (a
    /// bounded number a call).
    ///
    /// # Errors
    /// The database's.
    fn sweep(
        &self,
        now_ms: u64,
        abandoned_before: u64,
        ended_before: u64,
    ) -> StoreFuture<'_, Result<Swept, StoreError>>;

    /// Up to `limit` matches with ids after `after`, in id order (active ones only unless
    /// `include_ended`): for the operator's listing.
    ///
    /// # Errors
    /// The database's.
    fn list<'a>(
        &'a self,
        after: &'a str,
        limit: usize,
        include_ended: bool,
    ) -> StoreFuture<'a, Result<Vec<Listed>, StoreError>>;

    /// The notices of changes made through other replicas, once (later calls: `None`);
    /// `None` too if the store sends none (then a poll is the only way to learn of them).
    fn take_notices(&self) -> Option<mpsc::UnboundedReceiver<Notice>>;
}

/// A match store: cheap to clone, shared by every request.
#[derive(Clone, Debug)]
pub struct Store(Arc<dyn MatchStore>);

impl Store {
    /// A store over `backend`.
    pub fn new(backend: impl MatchStore + 'static) -> Store {
        Store(Arc::new(backend))
    }

    /// True if other processes write the same matches (see [`MatchStore::shared`]).
    #[must_use]
    pub fn is_shared(&self) -> bool {
        self.0.shared().is_some()
    }

    /// [`MatchStore::submit_create`], timed for the metrics.
    ///
    /// # Errors
    /// As the backend's.
    pub fn submit_create(
        &self,
        m: &StoredMatch,
        move_number: u64,
        driving: bool,
        max_matches: usize,
        events: &[OutboxEvent],
    ) -> Result<Ack, StoreError> {
        let timer = store_commit(self.0.backend(), StoreOp::Create);
        timed(
            self.0
                .submit_create(m, move_number, driving, max_matches, events),
            timer,
        )
    }

    /// [`MatchStore::submit_change`], timed for the metrics.
    ///
    /// # Errors
    /// As the backend's.
    pub fn submit_change(&self, change: &Change<'_>) -> Result<Ack, StoreError> {
        let timer = store_commit(self.0.backend(), StoreOp::Change);
        timed(self.0.submit_change(change), timer)
    }

    /// [`MatchStore::submit_delete`], timed for the metrics.
    ///
    /// # Errors
    /// As the backend's.
    pub fn submit_delete(&self, id: &str) -> Result<Ack, StoreError> {
        let timer = store_commit(self.0.backend(), StoreOp::Delete);
        timed(self.0.submit_delete(id), timer)
    }
}

/// A submitted write with its timer; a write refused at once counts as failed.
fn timed(
    submitted: Result<Ack, StoreError>,
    timer: Option<CommitTimer>,
) -> Result<Ack, StoreError> {
    match submitted {
        Ok(ack) => Ok(ack.timed(timer)),
        Err(e) => {
            if let Some(t) = timer {
                t.done(Some(StoreFailure::Failed));
            }
            Err(e)
        }
    }
}

impl std::ops::Deref for Store {
    type Target = dyn MatchStore;

    fn deref(&self) -> &(dyn MatchStore + 'static) {
        &*self.0
    }
}
