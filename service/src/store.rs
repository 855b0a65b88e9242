//! Where matches are kept across restarts: a data directory (this module, one server), a
//! PostgreSQL database shared by any number of replicas ([`crate::pg`]), or nothing
//! (in-memory mode, for tests).
//!
//! # The contract every store keeps
//!
//! The match service sees one interface ([`Store`]): `submit_create` (a new match),
//! `submit_change` (one accepted request: the actions it applied from a given move number,
//! the version of the match it was made on, and the whole match for backends that want it),
//! `delete` (retention), and, on open, the stored matches (the embedded store) or loading a
//! match by id (a shared store). Whichever the backend, it promises:
//!
//! * a write's [`Ack`] says `Ok` only once the write is durable; the caller acknowledges
//!   nothing before, and applies the change in memory only then;
//! * a write is queued at once and runs to its end whether or not its request is still
//!   waiting, so a cancelled request cannot leave a write half done or split memory from the
//!   store;
//! * a write whose outcome is unknown (a failed `fsync`, a connection lost mid-commit) is
//!   never built upon: the embedded store takes no more writes until the server restarts
//!   and checks it; a shared store's caller reloads that match from the database before the
//!   next change;
//! * a shared store applies a change only if the match is still at the version it was made
//!   on ([`StoreError::Conflict`] otherwise, nothing written), and counts matches for the
//!   limit in the same statement that creates or deletes one ([`StoreError::Full`]);
//! * tokens are stored as hashes only ([`crate::auth::hash_token`]);
//! * on open, every match is exactly as its last successful write left it; anything that
//!   cannot be proven whole is reported ([`StoreError::Corrupt`]) and the server does not
//!   start, unless the operator asked to salvage ([`OpenOptions::salvage`]), which keeps what
//!   is consistent and logs everything it dropped;
//! * only a record that a crash tore while it was being written (never acknowledged) is
//!   dropped silently, and even that is logged with the file and offset.
//!
//! # The data directory
//!
//! * `matches.redb`, an embedded redb database: one header per match (hashed tokens, seed,
//!   seats, status and a state snapshot), written when a match is created or ends, and the
//!   database's commit counter (table `meta`).
//! * `moves.log`, an append-only file with one small record per accepted `Act` (the actions
//!   it applied, bots' and chance's included), a tombstone per deleted match, and a marker
//!   after every database commit naming that commit's counter. Each record is framed by its
//!   length (with its own checksum) and a checksum of the payload.
//!
//! The directory is created owner-only (0700) and its files are owner-only (0600).
//!
//! A commit appends a batch of records with one `write` and one `fdatasync`: about one page,
//! where a B-tree commit rewrites a leaf, its branches, the allocator's tables and the header.
//! A batch with headers or deletions also commits the database (tombstones are logged before
//! the database forgets a match; the marker after the database commit).
//!
//! **What open checks.** The log is read record by record. A record cut short at the end of
//! the file, a last record whose payload fails its checksum, or zero bytes to the end (a
//! file extended but not written by a crash) are a torn tail: dropped, with a warning naming
//! the file and offset. A bad length or checksum anywhere before the last record is
//! corruption. So is a database behind the log (the log names a database commit the database
//! does not have: it fell back to an earlier commit), a log entry for a match the database
//! does not hold (and that no tombstone deleted), a gap in a match's history, an action the
//! engine rejects, a zero-length database file, a missing database beside a non-empty log,
//! and a missing log beside a database that has committed.
//!
//! **Folding.** On open, the log is folded into the snapshots (replayed with the engine's
//! checked `apply`), the snapshots are committed with a new commit counter and read back and
//! compared; only then is the log replaced (atomically, by a rename) with one holding just
//! the new marker. A crash before the rename replays entries the snapshots already hold,
//! which are skipped by their history index.
//!
//! Writes are group committed: a committer task on the async runtime collects every write
//! waiting in its queue, hands them as one batch to a dedicated writer thread that makes them
//! durable (the blocking `fsync` never runs on a runtime thread), and acknowledges each write
//! only after that returned. Writes arriving meanwhile form the next batch.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};

use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use tokio::sync::{mpsc as async_mpsc, oneshot};

use crate::pg::{Notice, PgStore};

/// Match id → encoded [`StoredMatch`].
const MATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("matches");
/// Sequence number → encoded [`LogEntry`]: the move log of earlier versions, folded on open.
const MOVES: TableDefinition<u64, &[u8]> = TableDefinition::new("moves");
/// Store facts: [`COMMITS`].
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// Key in [`META`]: how many commits the store made (each logs a marker with the count).
const COMMITS: &str = "commits";
/// The database's file name in the data directory.
const DATABASE: &str = "matches.redb";
/// The move log's file name in the data directory.
const MOVE_LOG: &str = "moves.log";
/// The first bytes of a move log in the current framing (older logs have no magic).
const LOG_MAGIC: &[u8; 8] = b"CHLOG2\n\0";

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 4096;
/// How many times the committer yields to the runtime to let a batch grow (see `committer`).
const BATCH_YIELDS: usize = 3;
/// Largest log record payload; a longer length field is corrupt.
const MAX_RECORD: usize = 64 << 20;

/// A match as stored: everything needed to resume it exactly. The state is the engine's
/// versioned bytes (game, options, rules version, full history); chance and bot choices are
/// derived from `seed` and the move number, so no generator state needs storing.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredMatch {
    /// Layout version of this record ([`STORED_FORMAT`]).
    #[prost(uint32, tag = "1")]
    pub format: u32,
    #[prost(string, tag = "2")]
    pub id: String,
    #[prost(bytes = "vec", tag = "3")]
    pub state: Vec<u8>,
    #[prost(uint64, tag = "4")]
    pub seed: u64,
    /// `pb::SeatKind` per seat.
    #[prost(int32, repeated, tag = "5")]
    pub seats: Vec<i32>,
    /// Hash of the token per seat ([`crate::auth::hash_token`]); empty for bot seats. Format
    /// 1 stored the tokens themselves; they are hashed when such a store is opened.
    #[prost(string, repeated, tag = "6")]
    pub seat_tokens: Vec<String>,
    #[prost(string, tag = "7")]
    pub owner_token: String,
    #[prost(string, tag = "8")]
    pub spectator_token: String,
    /// `pb::MatchStatus`.
    #[prost(int32, tag = "9")]
    pub status: i32,
    #[prost(uint32, optional, tag = "10")]
    pub resigned_seat: Option<u32>,
    /// When the match ended (Unix milliseconds), for retention; 0 while it is active.
    #[prost(uint64, tag = "11")]
    pub ended_at_ms: u64,
    /// Iterations per move of IS-MCTS bot seats (0: the default).
    #[prost(uint32, tag = "12")]
    pub ismcts_iterations: u32,
}

/// One record of the move log.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogEntry {
    #[prost(string, tag = "1")]
    pub id: String,
    /// History index of the first action (the match's move number before them).
    #[prost(uint64, tag = "2")]
    pub from: u64,
    #[prost(uint32, repeated, tag = "3")]
    pub actions: Vec<u32>,
    /// A tombstone: match `id` is deleted (retention).
    #[prost(bool, tag = "4")]
    pub deleted: bool,
    /// A marker: the database made its commit number `db_commit`.
    #[prost(uint64, optional, tag = "5")]
    pub db_commit: Option<u64>,
}

/// The current [`StoredMatch::format`]: 2 = tokens stored as hashes.
pub const STORED_FORMAT: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Db(#[from] redb::Error),
    #[error("cannot create data directory {path}: {source}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the store's writer has stopped")]
    WriterGone,
    #[error("{what}")]
    Failed { what: String },
    #[error("{path}: {what}")]
    Corrupt { path: PathBuf, what: String },
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

impl StoreError {
    fn db(e: impl Into<redb::Error>) -> StoreError {
        StoreError::Db(e.into())
    }
}

/// How to open a data directory.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenOptions {
    /// Instead of refusing to start on corruption, keep what is consistent (the log up to the
    /// first bad record, the matches the database holds, each match up to its first bad
    /// entry) and log each thing dropped. For an operator who has read the error first.
    pub salvage: bool,
}

enum Write {
    Header { key: String, value: Vec<u8> },
    Log { value: Vec<u8> },
    Delete { key: String },
}

/// The outcome of a commit, as the writer thread reports it for a batch.
type CommitResult = Result<(), String>;

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

type Acked = Result<(), CommitError>;

struct WriteOp {
    write: Write,
    ack: oneshot::Sender<Acked>,
}

/// To the committer task.
enum Msg {
    Write(WriteOp),
    /// Stop after the writes already queued and close the database file; acknowledged once
    /// it is closed.
    Close(oneshot::Sender<()>),
}

/// From the committer task to the writer thread.
enum Job {
    /// Commit these writes durably.
    Commit {
        writes: Vec<Write>,
        done: oneshot::Sender<CommitResult>,
    },
    /// Close the database file.
    Close(oneshot::Sender<()>),
}

/// A match store. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    inner: Backend,
}

#[derive(Clone, Debug)]
enum Backend {
    Memory,
    Redb(Arc<RedbStore>),
    Postgres(Arc<PgStore>),
}

/// One change to a match, for [`Store::submit_change`]: what each backend needs of it.
pub struct Change<'a> {
    pub id: &'a str,
    /// The match's version before the change (a shared store applies the change only if it
    /// still holds this version).
    pub version: u64,
    /// History index of the first new action (the match's move number before them).
    pub from: u64,
    /// The actions applied (none for a resignation or an abort).
    pub actions: &'a [u32],
    /// The match ended (or its header changed): the embedded store rewrites its snapshot.
    pub snapshot: bool,
    /// The whole match after the change (called only by backends that need it).
    pub stored: &'a dyn Fn() -> StoredMatch,
    /// Bots or chance are to move after the change.
    pub driving: bool,
}

impl std::fmt::Debug for Change<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Change")
            .field("id", &self.id)
            .field("version", &self.version)
            .field("from", &self.from)
            .field("actions", &self.actions.len())
            .field("snapshot", &self.snapshot)
            .finish_non_exhaustive()
    }
}

struct RedbStore {
    writes: async_mpsc::UnboundedSender<Msg>,
    /// Set once a commit failed: the store takes no more writes.
    failed: Arc<AtomicBool>,
}

impl std::fmt::Debug for RedbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbStore").finish_non_exhaustive()
    }
}

impl Store {
    /// Keeps nothing: matches are lost when the process ends.
    #[must_use]
    pub fn memory() -> Store {
        Store {
            inner: Backend::Memory,
        }
    }

    /// Connects to the PostgreSQL database at `url` (see [`crate::pg`]), migrating its
    /// schema; returns the store and its change notices (none if `notices` is off).
    ///
    /// # Errors
    /// An unreachable database, a bad URL or a failed migration.
    pub async fn postgres(
        url: &str,
        pool_size: usize,
        notices: bool,
    ) -> Result<(Store, async_mpsc::UnboundedReceiver<Notice>), StoreError> {
        let (pg, notices) = PgStore::open(url, pool_size, notices).await?;
        Ok((
            Store {
                inner: Backend::Postgres(Arc::new(pg)),
            },
            notices,
        ))
    }

    /// True if other processes change the same matches (a shared database): every cached
    /// match must be revalidated before it is served, and a change may meet a
    /// [`StoreError::Conflict`].
    #[must_use]
    pub fn is_shared(&self) -> bool {
        matches!(self.inner, Backend::Postgres(_))
    }

    /// The shared database, if this store is one.
    #[must_use]
    pub fn shared(&self) -> Option<&PgStore> {
        match &self.inner {
            Backend::Postgres(pg) => Some(pg),
            _ => None,
        }
    }

    /// Opens (or creates) the data directory `dir` and reads every stored match, checking
    /// everything the module docs list. Blocks; call it from a blocking context inside a
    /// Tokio runtime, which runs the store's committer task.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] naming the file and what is wrong; I/O and database errors.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn open(dir: &Path, options: OpenOptions) -> Result<(Store, Vec<StoredMatch>), StoreError> {
        let (db, log, stored) = open_dir(dir, options)?;
        let failed = Arc::new(AtomicBool::new(false));
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let writer_failed = Arc::clone(&failed);
        std::thread::Builder::new()
            .name("cardhouse-store".into())
            .spawn(move || writer(db, log, &job_rx, &writer_failed))
            .map_err(|e| StoreError::Failed {
                what: format!("cannot start the writer thread: {e}"),
            })?;
        let (tx, rx) = async_mpsc::unbounded_channel();
        tokio::runtime::Handle::current().spawn(committer(rx, jobs));
        let store = Store {
            inner: Backend::Redb(Arc::new(RedbStore { writes: tx, failed })),
        };
        Ok((store, stored))
    }

    /// Closes the database file after the writes already queued; later writes fail. Call it
    /// once the server has stopped, so that the same data directory can be opened again.
    pub async fn close(&self) {
        let inner = match &self.inner {
            Backend::Memory => return,
            Backend::Postgres(pg) => {
                pg.close();
                return;
            }
            Backend::Redb(inner) => inner,
        };
        let (ack, done) = oneshot::channel();
        if inner.writes.send(Msg::Close(ack)).is_ok() {
            let _ = done.await;
        }
    }

    /// True if writes reach a database.
    #[must_use]
    pub fn is_persistent(&self) -> bool {
        !matches!(self.inner, Backend::Memory)
    }

    /// True once a write failed: the store takes no more writes.
    #[must_use]
    pub fn has_failed(&self) -> bool {
        match &self.inner {
            Backend::Redb(i) => i.failed.load(Ordering::Acquire),
            // A failed statement leaves the database consistent: only the match it was for
            // must be reloaded.
            Backend::Memory | Backend::Postgres(_) => false,
        }
    }

    /// Queues the creation of match `m` (`move_number` actions in its history; `driving`:
    /// bots or chance are to move) at once; its outcome comes from the returned [`Ack`]. A
    /// shared store refuses it ([`StoreError::Full`]) if it holds `max_matches` already.
    ///
    /// # Errors
    /// If the store's writer is gone.
    pub fn submit_create(
        &self,
        m: &StoredMatch,
        move_number: u64,
        driving: bool,
        max_matches: usize,
    ) -> Result<Ack, StoreError> {
        let Backend::Postgres(pg) = &self.inner else {
            return self.submit_put(m);
        };
        let pg = Arc::clone(pg);
        let m = m.clone();
        Ok(spawn_ack(async move {
            let row = row_of(&m, move_number, driving);
            pg.insert(&m, &row, max_matches).await
        }))
    }

    /// Queues `change` at once (the embedded store appends its actions, or rewrites the
    /// snapshot; a shared store writes the new state if the match is still at
    /// `change.version`); its outcome comes from the returned [`Ack`].
    ///
    /// # Errors
    /// If the store's writer is gone.
    pub fn submit_change(&self, change: &Change<'_>) -> Result<Ack, StoreError> {
        match &self.inner {
            Backend::Postgres(pg) => {
                let pg = Arc::clone(pg);
                let m = (change.stored)();
                let (id, version, driving) = (change.id.to_owned(), change.version, change.driving);
                let move_number = change.from + change.actions.len() as u64;
                Ok(spawn_ack(async move {
                    let row = row_of(&m, move_number, driving);
                    pg.update(&id, version, &row).await
                }))
            }
            _ if change.snapshot => self.submit_put(&(change.stored)()),
            _ => self.submit_append(change.id, change.from, change.actions),
        }
    }

    /// As [`Store::submit_change`], waiting for the outcome.
    ///
    /// # Errors
    /// As [`Ack::wait`].
    pub async fn change(&self, change: &Change<'_>) -> Result<(), StoreError> {
        self.submit_change(change)?.wait().await
    }

    /// Deletes match `id` durably.
    ///
    /// # Errors
    /// If the commit failed.
    pub async fn delete(&self, id: &str) -> Result<(), StoreError> {
        self.write(Write::Delete { key: id.to_owned() }).await
    }

    /// Queues the write of the header and state snapshot of `m` at once; its outcome comes
    /// from the returned [`Ack`]. Queued writes are committed whether or not anyone waits
    /// for them.
    ///
    /// # Errors
    /// If the store's writer is gone.
    fn submit_put(&self, m: &StoredMatch) -> Result<Ack, StoreError> {
        self.submit(Write::Header {
            key: m.id.clone(),
            value: prost::Message::encode_to_vec(m),
        })
    }

    /// Queues the append of `actions`, applied to match `id` from history index `from`, at
    /// once.
    ///
    /// # Errors
    /// If the store's writer is gone.
    fn submit_append(&self, id: &str, from: u64, actions: &[u32]) -> Result<Ack, StoreError> {
        let entry = LogEntry {
            id: id.to_owned(),
            from,
            actions: actions.to_vec(),
            ..LogEntry::default()
        };
        self.submit(Write::Log {
            value: prost::Message::encode_to_vec(&entry),
        })
    }

    fn submit(&self, write: Write) -> Result<Ack, StoreError> {
        let inner = match &self.inner {
            Backend::Redb(inner) => inner,
            Backend::Memory => return Ok(Ack(None)),
            Backend::Postgres(_) => {
                return Err(StoreError::Failed {
                    what: "a write of the embedded store's kind reached the shared store".into(),
                });
            }
        };
        let (ack, done) = oneshot::channel();
        inner
            .writes
            .send(Msg::Write(WriteOp { write, ack }))
            .map_err(|_| StoreError::WriterGone)?;
        Ok(Ack(Some(done)))
    }

    async fn write(&self, write: Write) -> Result<(), StoreError> {
        self.submit(write)?.wait().await
    }
}

/// The columns a shared store keeps of `m`.
fn row_of(m: &StoredMatch, move_number: u64, driving: bool) -> crate::pg::Row<'_> {
    crate::pg::Row {
        state: &m.state,
        move_number,
        status: m.status,
        resigned_seat: m.resigned_seat,
        ended_at_ms: m.ended_at_ms,
        touched_ms: now_ms(),
        driving,
    }
}

/// The wall clock in Unix milliseconds.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Runs `write` in a task of its own (so it completes even if the request that made it is
/// dropped) and returns the [`Ack`] of its outcome.
fn spawn_ack(write: impl Future<Output = Acked> + Send + 'static) -> Ack {
    let (ack, done) = oneshot::channel();
    tokio::spawn(async move {
        let _ = ack.send(write.await);
    });
    Ack(Some(done))
}

/// The outcome of a queued write, to wait for.
#[derive(Debug)]
pub struct Ack(Option<oneshot::Receiver<Acked>>);

impl Ack {
    /// Waits until the write is durable (or failed), without giving the acknowledgement up:
    /// if the waiting future is dropped, the same `Ack` can still be waited for.
    ///
    /// # Errors
    /// If the commit failed or the writer is gone.
    pub async fn wait_mut(&mut self) -> Result<(), StoreError> {
        let Some(done) = self.0.as_mut() else {
            return Ok(());
        };
        let result = match done.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => Err(StoreError::WriterGone),
        };
        self.0 = None;
        result
    }

    /// Waits until the write is durable (or failed).
    ///
    /// # Errors
    /// If the commit failed or the writer is gone.
    pub async fn wait(self) -> Result<(), StoreError> {
        let Some(done) = self.0 else {
            return Ok(());
        };
        match done.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => Err(StoreError::WriterGone),
        }
    }
}

/// The committer task: takes every write waiting, has the writer thread commit them as one
/// batch, then acknowledges each. Writes sent after `Close` (or after the runtime dropped
/// this task) find the queue gone and fail with [`StoreError::WriterGone`].
async fn committer(mut rx: async_mpsc::UnboundedReceiver<Msg>, jobs: mpsc::Sender<Job>) {
    let mut closing = None;
    while closing.is_none() {
        let Some(first) = rx.recv().await else {
            break;
        };
        let mut batch = Batch::default();
        batch.push(first);
        batch.drain(&mut rx);
        // Under concurrent load (more than one write waiting), let the requests already
        // running on the runtime reach the store too before committing: a yield costs
        // microseconds, a commit an `fdatasync`. A lone write is committed at once.
        for _ in 0..BATCH_YIELDS {
            if batch.closing.is_some() || batch.writes.len() < 2 {
                break;
            }
            tokio::task::yield_now().await;
            batch.drain(&mut rx);
        }
        let Batch {
            writes,
            acks,
            closing: close,
        } = batch;
        closing = close;
        if writes.is_empty() {
            continue;
        }
        let (done, result) = oneshot::channel();
        let result = match jobs.send(Job::Commit { writes, done }) {
            Ok(()) => result.await.unwrap_or_else(|_| Err(WRITER_GONE.to_owned())),
            Err(_) => Err(WRITER_GONE.to_owned()),
        };
        for ack in acks {
            // The writers run in tasks that outlive their clients, so each is still waiting.
            let _ = ack.send(result.clone().map_err(CommitError::Failed));
        }
    }
    rx.close();
    let (ack, closed) = oneshot::channel();
    if jobs.send(Job::Close(ack)).is_ok() {
        let _ = closed.await;
    }
    if let Some(ack) = closing {
        let _ = ack.send(());
    }
}

/// Writes taken from the committer's queue for one commit.
#[derive(Default)]
struct Batch {
    writes: Vec<Write>,
    acks: Vec<oneshot::Sender<Acked>>,
    /// Set once `Close` was taken: nothing after it belongs to this store.
    closing: Option<oneshot::Sender<()>>,
}

impl Batch {
    fn push(&mut self, msg: Msg) {
        match msg {
            Msg::Write(op) => {
                self.writes.push(op.write);
                self.acks.push(op.ack);
            }
            Msg::Close(ack) => self.closing = Some(ack),
        }
    }

    /// Takes whatever is waiting, up to [`MAX_GROUP`] writes or a `Close`.
    fn drain(&mut self, rx: &mut async_mpsc::UnboundedReceiver<Msg>) {
        while self.closing.is_none() && self.writes.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(msg) => self.push(msg),
                Err(_) => return,
            }
        }
    }
}

const WRITER_GONE: &str = "the match store's writer thread has stopped";

// ---------------------------------------------------------------------------------------------
// Opening a data directory
// ---------------------------------------------------------------------------------------------

/// Creates `dir` owner-only if missing, checks and opens its database and log, folds the log.
fn open_dir(
    dir: &Path,
    options: OpenOptions,
) -> Result<(Database, MoveLog, Vec<StoredMatch>), StoreError> {
    let dir_err = |source| StoreError::Dir {
        path: dir.to_owned(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(dir_err)?;
    owner_only(dir, 0o700).map_err(dir_err)?;
    let db_path = dir.join(DATABASE);
    let log_path = dir.join(MOVE_LOG);
    let corrupt = |path: &Path, what: String| StoreError::Corrupt {
        path: path.to_owned(),
        what,
    };
    let db_len = std::fs::metadata(&db_path).ok().map(|m| m.len());
    let log_len = std::fs::metadata(&log_path).ok().map(|m| m.len());
    if db_len == Some(0) {
        let what = "the database file is empty (zero bytes): its matches are gone".to_owned();
        if !options.salvage {
            return Err(corrupt(&db_path, what + SALVAGE_HINT));
        }
        let aside = dir.join(format!("{DATABASE}.zero-length"));
        std::fs::rename(&db_path, &aside).map_err(dir_err)?;
        tracing::warn!(path = %db_path.display(), moved_to = %aside.display(), "salvage: {what}; starting a new database");
    }
    if db_len.is_none() && log_len.is_some_and(|n| n > 0) {
        let what = format!(
            "the database is missing while the move log {} holds {} bytes",
            log_path.display(),
            log_len.unwrap_or(0)
        );
        if !options.salvage {
            return Err(corrupt(&db_path, what + SALVAGE_HINT));
        }
        tracing::warn!(path = %db_path.display(), "salvage: {what}; its entries are dropped");
    }
    let db = if db_len.is_some_and(|n| n > 0) {
        Database::open(&db_path).map_err(|e| corrupt(&db_path, format!("cannot open: {e}")))?
    } else {
        Database::create(&db_path).map_err(StoreError::db)?
    };
    owner_only(&db_path, 0o600).map_err(dir_err)?;
    // Make sure the tables exist so that the reader never sees them missing.
    let txn = db.begin_write().map_err(StoreError::db)?;
    txn.open_table(MATCHES).map_err(StoreError::db)?;
    txn.open_table(MOVES).map_err(StoreError::db)?;
    txn.open_table(META).map_err(StoreError::db)?;
    txn.commit().map_err(StoreError::db)?;
    let commits = read_commits(&db)?;
    if log_len.is_none() && commits > 0 {
        let what = format!(
            "the move log is missing while the database {} has made {commits} commits",
            db_path.display()
        );
        if !options.salvage {
            return Err(corrupt(&log_path, what + SALVAGE_HINT));
        }
        tracing::warn!(path = %log_path.display(), "salvage: {what}; moves after the last snapshots are lost");
    }
    let mut log = MoveLog::open(dir)?;
    let records = log.read_all(options)?;
    let stored = fold(&db, &db_path, &log_path, records, commits, options)?;
    // The log now holds nothing the snapshots lack: start a new one naming their commit.
    log.replace(dir, read_commits(&db)?)?;
    Ok((db, log, stored))
}

const SALVAGE_HINT: &str = ". Nothing was changed. Restore the data directory from a backup, or start once with \
     --salvage to keep what is consistent (everything dropped is logged)";

fn owner_only(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

fn read_commits(db: &Database) -> Result<u64, StoreError> {
    let txn = db.begin_read().map_err(StoreError::db)?;
    let meta = txn.open_table(META).map_err(StoreError::db)?;
    Ok(meta
        .get(COMMITS)
        .map_err(StoreError::db)?
        .map_or(0, |v| v.value()))
}

/// Folds the log `records` (after the `moves` table of earlier versions) into the stored
/// snapshots, commits them with the next commit counter, reads them back and compares.
fn fold(
    db: &Database,
    db_path: &Path,
    log_path: &Path,
    records: Vec<(u64, Vec<u8>)>,
    commits: u64,
    options: OpenOptions,
) -> Result<Vec<StoredMatch>, StoreError> {
    let corrupt = |path: &Path, what: String| StoreError::Corrupt {
        path: path.to_owned(),
        what,
    };
    // What salvage drops, or what stops the start.
    let problem = |path: &Path, what: String| -> Result<(), StoreError> {
        if options.salvage {
            tracing::warn!(path = %path.display(), "salvage: dropping {what}");
            Ok(())
        } else {
            Err(corrupt(path, what + SALVAGE_HINT))
        }
    };
    let txn = db.begin_read().map_err(StoreError::db)?;
    let headers = txn.open_table(MATCHES).map_err(StoreError::db)?;
    let mut matches = BTreeMap::new();
    let mut migrated = false;
    for row in headers.iter().map_err(StoreError::db)? {
        let (k, v) = row.map_err(StoreError::db)?;
        let mut m = <StoredMatch as prost::Message>::decode(v.value())
            .map_err(|e| corrupt(db_path, format!("match {} does not decode: {e}", k.value())))?;
        if m.format == 1 {
            crate::auth::migrate_clear_tokens(&mut m);
            migrated = true;
        }
        matches.insert(m.id.clone(), (m, None::<cardhouse::AnyState>));
    }
    // Entries in the order they were committed: the table's (older), then the file's.
    let mut entries = Vec::new();
    let table = txn.open_table(MOVES).map_err(StoreError::db)?;
    for row in table.iter().map_err(StoreError::db)? {
        let (k, v) = row.map_err(StoreError::db)?;
        entries.push((
            db_path.to_owned(),
            format!("move table entry {}", k.value()),
            v.value().to_vec(),
        ));
    }
    drop(table);
    drop(headers);
    drop(txn);
    for (offset, record) in records {
        entries.push((
            log_path.to_owned(),
            format!("record at offset {offset}"),
            record,
        ));
    }
    let mut decoded = Vec::with_capacity(entries.len());
    for (path, at, bytes) in &entries {
        match <LogEntry as prost::Message>::decode(bytes.as_slice()) {
            Ok(e) => decoded.push((path, at, e)),
            Err(e) => problem(path, format!("the {at}, which does not decode: {e}"))?,
        }
    }
    // Matches deleted later in the log: their earlier entries are expected to find nothing.
    let deleted: HashSet<&str> = decoded
        .iter()
        .filter(|(_, _, e)| e.deleted)
        .map(|(_, _, e)| e.id.as_str())
        .collect();
    let mut max_marker = 0;
    // A match whose history broke under salvage takes no later entries.
    let mut broken = HashSet::new();
    for (path, at, e) in &decoded {
        if let Some(c) = e.db_commit {
            max_marker = max_marker.max(c);
            continue;
        }
        if e.deleted {
            matches.remove(&e.id);
            continue;
        }
        if broken.contains(&e.id) {
            continue;
        }
        let Some((m, state)) = matches.get_mut(&e.id) else {
            if !deleted.contains(e.id.as_str()) {
                problem(
                    path,
                    format!(
                        "the {at}: moves of match {} which the database does not hold \
                         (is the database behind the log?)",
                        e.id
                    ),
                )?;
            }
            continue;
        };
        if state.is_none() {
            *state = Some(
                cardhouse::state_from_bytes(&m.state)
                    .map_err(|err| corrupt(db_path, format!("match {}: {err}", m.id)))?,
            );
        }
        let Some(state) = state.as_mut() else {
            continue;
        };
        let len = state.move_number() as u64;
        if e.from > len {
            problem(
                path,
                format!(
                    "the {at}: a gap in match {}: its history has {len} actions, the entry \
                     starts at {} (is the database behind the log?)",
                    e.id, e.from
                ),
            )?;
            broken.insert(e.id.clone());
            continue;
        }
        // Entries already inside the snapshot (written before a later header) are skipped.
        for &a in e.actions.iter().skip((len - e.from) as usize) {
            if let Err(err) = state.apply(a) {
                problem(
                    path,
                    format!("the {at}: match {} rejects action {a}: {err}", e.id),
                )?;
                broken.insert(e.id.clone());
                break;
            }
        }
    }
    if max_marker > commits {
        problem(
            db_path,
            format!(
                "the database is behind the move log: the log records database commit \
                 {max_marker}, the database has made {commits} (it fell back to an earlier \
                 commit, or is an older copy)"
            ),
        )?;
    }
    let mut out = Vec::with_capacity(matches.len());
    for (_, (mut m, state)) in matches {
        if let Some(state) = state {
            m.state = state.to_bytes();
        }
        out.push(m);
    }
    if entries.is_empty() && !migrated && max_marker == commits {
        return Ok(out);
    }
    // Commit the folded snapshots (replacing every header: deleted ones go), then verify.
    let next = commits.max(max_marker) + 1;
    let txn = db.begin_write().map_err(StoreError::db)?;
    {
        txn.delete_table(MATCHES).map_err(StoreError::db)?;
        let mut headers = txn.open_table(MATCHES).map_err(StoreError::db)?;
        for m in &out {
            headers
                .insert(m.id.as_str(), prost::Message::encode_to_vec(m).as_slice())
                .map_err(StoreError::db)?;
        }
        let mut meta = txn.open_table(META).map_err(StoreError::db)?;
        meta.insert(COMMITS, next).map_err(StoreError::db)?;
    }
    txn.delete_table(MOVES).map_err(StoreError::db)?;
    txn.open_table(MOVES).map_err(StoreError::db)?;
    txn.commit().map_err(StoreError::db)?;
    verify(db, db_path, &out, next)?;
    tracing::info!(
        matches = out.len(),
        entries = entries.len(),
        commit = next,
        "folded the move log into the snapshots"
    );
    Ok(out)
}

/// Reads the snapshots back and compares them with what was committed.
fn verify(
    db: &Database,
    db_path: &Path,
    out: &[StoredMatch],
    commit: u64,
) -> Result<(), StoreError> {
    let mismatch = |what: String| StoreError::Corrupt {
        path: db_path.to_owned(),
        what: format!("the folded snapshots do not read back: {what}; the move log is kept"),
    };
    let txn = db.begin_read().map_err(StoreError::db)?;
    let headers = txn.open_table(MATCHES).map_err(StoreError::db)?;
    let count = headers.len().map_err(StoreError::db)?;
    if count != out.len() as u64 {
        return Err(mismatch(format!("{count} matches, {} written", out.len())));
    }
    for m in out {
        let want = prost::Message::encode_to_vec(m);
        let got = headers.get(m.id.as_str()).map_err(StoreError::db)?;
        if got.as_ref().map(|v| v.value()) != Some(want.as_slice()) {
            return Err(mismatch(format!("match {} differs", m.id)));
        }
    }
    drop(headers);
    if read_commits(db)? != commit {
        return Err(mismatch("the commit counter differs".into()));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The writer thread
// ---------------------------------------------------------------------------------------------

/// The writer thread: makes each batch durable, in order, and closes the database file when
/// told to (or when the committer task is gone).
fn writer(db: Database, mut log: MoveLog, jobs: &mpsc::Receiver<Job>, failed: &AtomicBool) {
    let closed = loop {
        match jobs.recv() {
            Ok(Job::Commit { writes, done }) => {
                let result = if failed.load(Ordering::Acquire) {
                    Err("the match store failed earlier and takes no more writes".to_owned())
                } else {
                    commit(&db, &mut log, &writes).map_err(|e| {
                        tracing::error!(error = %e, writes = writes.len(), "store commit failed; refusing further writes");
                        failed.store(true, Ordering::Release);
                        "the match store could not commit".to_owned()
                    })
                };
                let _ = done.send(result);
            }
            Ok(Job::Close(ack)) => break Some(ack),
            Err(_) => break None,
        }
    };
    drop(db);
    drop(log);
    if let Some(ack) = closed {
        let _ = ack.send(());
    }
}

/// Makes `writes` durable: log records (moves, tombstones) with one append and one
/// `fdatasync`; then, if there are headers or deletions, one database transaction that also
/// counts the commit, and a marker naming that count in the log.
fn commit(db: &Database, log: &mut MoveLog, writes: &[Write]) -> Result<(), StoreError> {
    let mut records = Vec::new();
    let mut headers = Vec::new();
    let mut deletes = Vec::new();
    for write in writes {
        match write {
            Write::Header { key, value } => headers.push((key, value)),
            Write::Log { value } => frame(value, &mut records),
            Write::Delete { key } => {
                // The tombstone goes first: a log entry must never outlive its match unnamed.
                let tomb = LogEntry {
                    id: key.clone(),
                    deleted: true,
                    ..LogEntry::default()
                };
                frame(&prost::Message::encode_to_vec(&tomb), &mut records);
                deletes.push(key);
            }
        }
    }
    if !records.is_empty() {
        log.append(&records)?;
    }
    if !headers.is_empty() || !deletes.is_empty() {
        let txn = db.begin_write().map_err(StoreError::db)?;
        let count;
        {
            let mut table = txn.open_table(MATCHES).map_err(StoreError::db)?;
            for (key, value) in headers {
                table
                    .insert(key.as_str(), value.as_slice())
                    .map_err(StoreError::db)?;
            }
            for key in deletes {
                table.remove(key.as_str()).map_err(StoreError::db)?;
            }
            let mut meta = txn.open_table(META).map_err(StoreError::db)?;
            count = meta
                .get(COMMITS)
                .map_err(StoreError::db)?
                .map_or(0, |v| v.value())
                + 1;
            meta.insert(COMMITS, count).map_err(StoreError::db)?;
        }
        txn.commit().map_err(StoreError::db)?;
        let mut marker = Vec::new();
        frame(&marker_record(count), &mut marker);
        log.append(&marker)?;
    }
    Ok(())
}

fn marker_record(commit: u64) -> Vec<u8> {
    prost::Message::encode_to_vec(&LogEntry {
        db_commit: Some(commit),
        ..LogEntry::default()
    })
}

// ---------------------------------------------------------------------------------------------
// The move log file
// ---------------------------------------------------------------------------------------------

/// Bytes of a record's frame before its payload: length (u32 LE), a checksum of the length
/// (u32 LE), a checksum of the payload (u64 LE).
const FRAME: usize = 16;
/// The frame of logs written before the magic: length (u32 LE), payload checksum (u64 LE).
const LEGACY_FRAME: usize = 12;

/// Appends `payload` to `out` as one framed record.
fn frame(payload: &[u8], out: &mut Vec<u8>) {
    let len = (payload.len() as u32).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&(checksum(&len) as u32).to_le_bytes());
    out.extend_from_slice(&checksum(payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// FNV-1a (64 bit): tells a record torn by a crash or flipped on disk from a whole one.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What is at an offset of the log.
#[derive(Debug, PartialEq)]
enum Next<'a> {
    /// A whole record and its framed length.
    Record(&'a [u8], usize),
    /// A torn tail: drop from here to the end.
    Torn(&'static str),
    /// Corruption before the end.
    Corrupt(String),
}

/// Reads the record at the start of `rest` (current framing).
fn next_record(rest: &[u8]) -> Next<'_> {
    if rest.iter().all(|&b| b == 0) {
        return Next::Torn("zero bytes to the end of the file");
    }
    if rest.len() < FRAME {
        return Next::Torn("a record header cut short at the end of the file");
    }
    let len_bytes: [u8; 4] = rest[..4].try_into().unwrap_or_default();
    let len = u32::from_le_bytes(len_bytes) as usize;
    let len_sum = u32::from_le_bytes(rest[4..8].try_into().unwrap_or_default());
    if checksum(&len_bytes) as u32 != len_sum || len > MAX_RECORD {
        return Next::Corrupt("a record length that fails its checksum".into());
    }
    let sum = u64::from_le_bytes(rest[8..FRAME].try_into().unwrap_or_default());
    let Some(payload) = rest.get(FRAME..FRAME + len) else {
        return Next::Torn("a record cut short at the end of the file");
    };
    if checksum(payload) != sum {
        if FRAME + len == rest.len() {
            return Next::Torn("the last record fails its checksum (its write did not complete)");
        }
        return Next::Corrupt("a record that fails its checksum".into());
    }
    Next::Record(payload, FRAME + len)
}

/// Reads the record at the start of `rest` in the framing of logs without the magic: they
/// had no length checksum, so (as those versions did) anything bad ends the log.
fn next_legacy_record(rest: &[u8]) -> Next<'_> {
    let record = (|| {
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let sum = u64::from_le_bytes(rest.get(4..LEGACY_FRAME)?.try_into().ok()?);
        let payload = rest.get(LEGACY_FRAME..LEGACY_FRAME + len)?;
        (checksum(payload) == sum).then_some((payload, LEGACY_FRAME + len))
    })();
    match record {
        Some((p, n)) => Next::Record(p, n),
        None => Next::Torn("an incomplete record at the end of a log of an earlier version"),
    }
}

/// The append-only move log file.
struct MoveLog {
    path: PathBuf,
    file: File,
}

impl MoveLog {
    /// Opens (or creates, durably and owner-only) `dir/moves.log`.
    fn open(dir: &Path) -> Result<MoveLog, StoreError> {
        let path = dir.join(MOVE_LOG);
        let err = |source| StoreError::Log {
            path: path.clone(),
            source,
        };
        let existed = path.exists();
        let file = File::options()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(err)?;
        owner_only(&path, 0o600).map_err(err)?;
        if !existed {
            // Make the new directory entry durable too.
            File::open(dir).and_then(|d| d.sync_all()).map_err(err)?;
        }
        Ok(MoveLog { path, file })
    }

    fn err(&self, source: std::io::Error) -> StoreError {
        StoreError::Log {
            path: self.path.clone(),
            source,
        }
    }

    /// Every whole record with its offset, in order. A torn tail is dropped with a warning;
    /// corruption before the end is an error (or, with salvage, the end of what is kept).
    fn read_all(&mut self, options: OpenOptions) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let mut bytes = Vec::new();
        (&self.file)
            .read_to_end(&mut bytes)
            .map_err(|e| self.err(e))?;
        let (start, legacy) = if bytes.starts_with(LOG_MAGIC) {
            (LOG_MAGIC.len(), false)
        } else if bytes.is_empty() || LOG_MAGIC.starts_with(&bytes) {
            (bytes.len(), false)
        } else {
            (0, true)
        };
        let mut records = Vec::new();
        let mut at = start;
        while at < bytes.len() {
            let rest = &bytes[at..];
            let next = if legacy {
                next_legacy_record(rest)
            } else {
                next_record(rest)
            };
            match next {
                Next::Record(payload, n) => {
                    records.push((at as u64, payload.to_vec()));
                    at += n;
                }
                Next::Torn(why) => {
                    tracing::warn!(
                        path = %self.path.display(),
                        offset = at,
                        bytes = rest.len(),
                        "dropping a torn tail of the move log ({why}); it was never acknowledged"
                    );
                    break;
                }
                Next::Corrupt(why) => {
                    let what = format!(
                        "corrupt at offset {at} of {} bytes: {why}, followed by more data",
                        bytes.len()
                    );
                    if !options.salvage {
                        return Err(StoreError::Corrupt {
                            path: self.path.clone(),
                            what: what + SALVAGE_HINT,
                        });
                    }
                    tracing::warn!(
                        path = %self.path.display(),
                        offset = at,
                        dropped_bytes = rest.len(),
                        "salvage: {what}; dropping everything from there"
                    );
                    break;
                }
            }
        }
        Ok(records)
    }

    /// Appends framed `records` and waits until they are on disk.
    fn append(&mut self, records: &[u8]) -> Result<(), StoreError> {
        self.file
            .write_all(records)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| self.err(e))
    }

    /// Replaces the log, atomically, with one holding only the magic and a marker for
    /// database commit `commit`.
    fn replace(&mut self, dir: &Path, commit: u64) -> Result<(), StoreError> {
        let tmp = dir.join(format!("{MOVE_LOG}.new"));
        let mut bytes = LOG_MAGIC.to_vec();
        frame(&marker_record(commit), &mut bytes);
        let result = (|| {
            let mut f = File::options()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)?;
            owner_only(&tmp, 0o600)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)?;
            File::open(dir)?.sync_all()?;
            File::options().read(true).append(true).open(&self.path)
        })();
        self.file = result.map_err(|e| self.err(e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = LOG_MAGIC.to_vec();
        for p in payloads {
            frame(p, &mut out);
        }
        out
    }

    fn read(bytes: &[u8], salvage: bool) -> Result<Vec<Vec<u8>>, StoreError> {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join(MOVE_LOG), bytes).expect("write");
        let mut log = MoveLog::open(dir.path()).expect("open");
        Ok(log
            .read_all(OpenOptions { salvage })?
            .into_iter()
            .map(|(_, r)| r)
            .collect())
    }

    #[test]
    fn whole_records_are_read_and_a_torn_tail_is_dropped() {
        let mut bytes = framed(&[b"first", b""]);
        let whole = bytes.len();
        frame(b"second, torn", &mut bytes);
        for cut in whole..bytes.len() {
            assert_eq!(
                read(&bytes[..cut], false).expect("torn tail"),
                vec![b"first".to_vec(), Vec::new()],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_zero_filled_tail_is_torn() {
        let mut bytes = framed(&[b"first"]);
        bytes.extend_from_slice(&[0; 100]);
        assert_eq!(read(&bytes, false).expect("torn"), vec![b"first".to_vec()]);
    }

    #[test]
    fn a_last_record_failing_its_checksum_is_torn() {
        let mut bytes = framed(&[b"first", b"second"]);
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert_eq!(read(&bytes, false).expect("torn"), vec![b"first".to_vec()]);
    }

    #[test]
    fn a_flipped_bit_before_the_end_is_corruption() {
        let clean = framed(&[b"first", b"second", b"third"]);
        // Every byte of the first two records: payload, checksum and length alike.
        let end_of_second = LOG_MAGIC.len() + 2 * FRAME + 5 + 6;
        for i in LOG_MAGIC.len()..end_of_second {
            let mut bytes = clean.clone();
            bytes[i] ^= 0x10;
            let err = read(&bytes, false).expect_err(&format!("flip at {i}"));
            assert!(
                matches!(err, StoreError::Corrupt { .. }),
                "flip at {i}: {err}"
            );
            let kept = read(&bytes, true).expect("salvage");
            assert!(
                kept.len() < 3,
                "flip at {i}: salvage keeps the records before it"
            );
        }
    }

    #[test]
    fn legacy_logs_are_still_read() {
        let mut bytes = Vec::new();
        for p in [&b"one"[..], b"two"] {
            bytes.extend_from_slice(&(p.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&checksum(p).to_le_bytes());
            bytes.extend_from_slice(p);
        }
        assert_eq!(
            read(&bytes, false).expect("legacy"),
            vec![b"one".to_vec(), b"two".to_vec()]
        );
    }
}
