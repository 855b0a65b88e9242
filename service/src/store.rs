//! Where matches are kept across restarts: an embedded redb database, or nothing (in-memory
//! mode, for tests).
//!
//! Two tables: `matches` holds one header per match (tokens, seed, seats, status and a state
//! snapshot), written when a match is created or ends; `moves` is an append-only log keyed by
//! a global sequence number, one small entry per accepted `Act` (the actions it applied,
//! bots' and chance's included). Appending at the end of one B-tree keeps each commit to a
//! few pages, where rewriting every match's state under its own key would rewrite a page per
//! match. On open, the log is folded into the snapshots (replayed with the engine's checked
//! `apply`) and cleared.
//!
//! Writes are group committed: a committer task on the async runtime collects every write
//! waiting in its queue, hands them as one batch to a dedicated writer thread that commits
//! them in one durable transaction (the blocking `fsync` never runs on a runtime thread), and
//! acknowledges each write only after that commit returned. Writes arriving meanwhile form
//! the next batch. A handler acknowledges a move to its client only after its write was
//! acknowledged, so nothing acknowledged is lost. The hand-offs between the runtime and the
//! writer thread are one per batch, not one per write: waking a thread costs more than a
//! small write.

use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::{mpsc as async_mpsc, oneshot};

/// Match id → encoded [`StoredMatch`].
const MATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("matches");
/// Sequence number → encoded [`LogEntry`].
const MOVES: TableDefinition<u64, &[u8]> = TableDefinition::new("moves");

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 4096;

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
    /// Token per seat; empty for bot seats.
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
}

/// Actions appended to a match's history by one accepted request.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogEntry {
    #[prost(string, tag = "1")]
    pub id: String,
    /// History index of the first action (the match's move number before them).
    #[prost(uint64, tag = "2")]
    pub from: u64,
    #[prost(uint32, repeated, tag = "3")]
    pub actions: Vec<u32>,
}

/// The current [`StoredMatch::format`].
pub const STORED_FORMAT: u32 = 1;

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
    #[error("record {key}: {reason}")]
    Corrupt { key: String, reason: String },
}

impl StoreError {
    fn db(e: impl Into<redb::Error>) -> StoreError {
        StoreError::Db(e.into())
    }
}

enum Write {
    Header { key: String, value: Vec<u8> },
    Log { value: Vec<u8> },
}

/// The outcome of a commit, as each write of its batch is told.
type CommitResult = Result<(), String>;

struct WriteOp {
    write: Write,
    ack: oneshot::Sender<CommitResult>,
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
    /// Commit these writes in one durable transaction.
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
    inner: Option<Arc<RedbStore>>,
}

struct RedbStore {
    writes: async_mpsc::UnboundedSender<Msg>,
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
        Store { inner: None }
    }

    /// Opens (or creates) `dir/matches.redb` and reads every stored match. Blocks; call it
    /// from a blocking context inside a Tokio runtime, which runs the store's committer task.
    ///
    /// # Errors
    /// If the directory cannot be created, the database cannot be opened or a record does
    /// not decode.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn open(dir: &Path) -> Result<(Store, Vec<StoredMatch>), StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir {
            path: dir.to_owned(),
            source,
        })?;
        let db = Database::create(dir.join("matches.redb")).map_err(StoreError::db)?;
        // Make sure the tables exist so that the reader never sees them missing.
        let txn = db.begin_write().map_err(StoreError::db)?;
        txn.open_table(MATCHES).map_err(StoreError::db)?;
        txn.open_table(MOVES).map_err(StoreError::db)?;
        txn.commit().map_err(StoreError::db)?;
        let stored = load_and_compact(&db)?;
        let next_seq = last_seq(&db).map_err(StoreError::Db)?;

        let (jobs, job_rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("cardhouse-store".into())
            .spawn(move || writer(db, next_seq, &job_rx))
            .map_err(|e| StoreError::Corrupt {
                key: String::new(),
                reason: format!("cannot start the writer thread: {e}"),
            })?;
        let (tx, rx) = async_mpsc::unbounded_channel();
        tokio::runtime::Handle::current().spawn(committer(rx, jobs));
        let store = Store {
            inner: Some(Arc::new(RedbStore { writes: tx })),
        };
        Ok((store, stored))
    }

    /// Closes the database file after the writes already queued; later writes fail. Call it
    /// once the server has stopped, so that the same data directory can be opened again.
    pub async fn close(&self) {
        let Some(inner) = &self.inner else {
            return;
        };
        let (ack, done) = oneshot::channel();
        if inner.writes.send(Msg::Close(ack)).is_ok() {
            let _ = done.await;
        }
    }

    /// True if writes reach a database.
    #[must_use]
    pub fn is_persistent(&self) -> bool {
        self.inner.is_some()
    }

    /// Stores the header and state snapshot of `m` durably; returns once it is committed.
    ///
    /// # Errors
    /// If the commit failed; the caller must not acknowledge the change.
    pub async fn put(&self, m: &StoredMatch) -> Result<(), StoreError> {
        let write = Write::Header {
            key: m.id.clone(),
            value: prost::Message::encode_to_vec(m),
        };
        self.write(&m.id, write).await
    }

    /// Appends `actions`, applied to match `id` from history index `from`, durably.
    ///
    /// # Errors
    /// If the commit failed; the caller must not acknowledge the change.
    pub async fn append(&self, id: &str, from: u64, actions: &[u32]) -> Result<(), StoreError> {
        let entry = LogEntry {
            id: id.to_owned(),
            from,
            actions: actions.to_vec(),
        };
        let write = Write::Log {
            value: prost::Message::encode_to_vec(&entry),
        };
        self.write(id, write).await
    }

    async fn write(&self, id: &str, write: Write) -> Result<(), StoreError> {
        let Some(inner) = &self.inner else {
            return Ok(());
        };
        let (ack, done) = oneshot::channel();
        inner
            .writes
            .send(Msg::Write(WriteOp { write, ack }))
            .map_err(|_| StoreError::WriterGone)?;
        match done.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(reason)) => Err(StoreError::Corrupt {
                key: id.to_owned(),
                reason,
            }),
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
        let mut writes = Vec::new();
        let mut acks = Vec::new();
        let mut next = Some(first);
        while let Some(msg) = next {
            match msg {
                Msg::Write(op) => {
                    writes.push(op.write);
                    acks.push(op.ack);
                }
                Msg::Close(ack) => {
                    closing = Some(ack);
                    break;
                }
            }
            next = if writes.len() < MAX_GROUP {
                rx.try_recv().ok()
            } else {
                None
            };
        }
        if writes.is_empty() {
            continue;
        }
        let (done, result) = oneshot::channel();
        let result = match jobs.send(Job::Commit { writes, done }) {
            Ok(()) => result.await.unwrap_or_else(|_| Err(WRITER_GONE.to_owned())),
            Err(_) => Err(WRITER_GONE.to_owned()),
        };
        for ack in acks {
            // The handler may have gone away (client cancelled); the write stands anyway.
            let _ = ack.send(result.clone());
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

const WRITER_GONE: &str = "the match store's writer thread has stopped";

/// Every stored match with its logged moves folded in; then the folded snapshots replace
/// the headers and the log is cleared, in one transaction.
fn load_and_compact(db: &Database) -> Result<Vec<StoredMatch>, StoreError> {
    let corrupt = |key: &str, reason: String| StoreError::Corrupt {
        key: key.to_owned(),
        reason,
    };
    let txn = db.begin_read().map_err(StoreError::db)?;
    let headers = txn.open_table(MATCHES).map_err(StoreError::db)?;
    let mut matches = std::collections::BTreeMap::new();
    for row in headers.iter().map_err(StoreError::db)? {
        let (k, v) = row.map_err(StoreError::db)?;
        let m = <StoredMatch as prost::Message>::decode(v.value())
            .map_err(|e| corrupt(k.value(), e.to_string()))?;
        matches.insert(m.id.clone(), (m, None::<cardhouse::AnyState>));
    }
    let log = txn.open_table(MOVES).map_err(StoreError::db)?;
    let mut logged = 0usize;
    for row in log.iter().map_err(StoreError::db)? {
        let (k, v) = row.map_err(StoreError::db)?;
        let key = format!("move log entry {}", k.value());
        let e = <LogEntry as prost::Message>::decode(v.value())
            .map_err(|e| corrupt(&key, e.to_string()))?;
        let (m, state) = matches
            .get_mut(&e.id)
            .ok_or_else(|| corrupt(&key, format!("no match {}", e.id)))?;
        if state.is_none() {
            *state = Some(
                cardhouse::state_from_bytes(&m.state).map_err(|e| corrupt(&m.id, e.to_string()))?,
            );
        }
        let Some(state) = state.as_mut() else {
            continue;
        };
        let len = state.move_number() as u64;
        if e.from > len {
            return Err(corrupt(
                &key,
                format!("gap: history has {len} actions, entry starts at {}", e.from),
            ));
        }
        // Entries already inside the snapshot (written before a later header) are skipped.
        for &a in e.actions.iter().skip((len - e.from) as usize) {
            state
                .apply(a)
                .map_err(|err| corrupt(&key, err.to_string()))?;
        }
        logged += 1;
    }
    drop(log);
    drop(headers);
    drop(txn);
    let mut out = Vec::with_capacity(matches.len());
    for (_, (mut m, state)) in matches {
        if let Some(state) = state {
            m.state = state.to_bytes();
        }
        out.push(m);
    }
    if logged > 0 {
        let txn = db.begin_write().map_err(StoreError::db)?;
        {
            let mut headers = txn.open_table(MATCHES).map_err(StoreError::db)?;
            for m in &out {
                headers
                    .insert(m.id.as_str(), prost::Message::encode_to_vec(m).as_slice())
                    .map_err(StoreError::db)?;
            }
        }
        txn.delete_table(MOVES).map_err(StoreError::db)?;
        txn.open_table(MOVES).map_err(StoreError::db)?;
        txn.commit().map_err(StoreError::db)?;
        tracing::info!(
            matches = out.len(),
            entries = logged,
            "folded the move log into the snapshots"
        );
    }
    Ok(out)
}

/// The writer thread: commits each batch durably, in order, and closes the database file
/// when told to (or when the committer task is gone).
fn writer(db: Database, mut next_seq: u64, jobs: &mpsc::Receiver<Job>) {
    let closed = loop {
        match jobs.recv() {
            Ok(Job::Commit { writes, done }) => {
                let result = commit(&db, &writes, &mut next_seq).map_err(|e| {
                    tracing::error!(error = %e, writes = writes.len(), "store commit failed");
                    "the match store could not commit".to_owned()
                });
                let _ = done.send(result);
            }
            Ok(Job::Close(ack)) => break Some(ack),
            Err(_) => break None,
        }
    };
    drop(db);
    if let Some(ack) = closed {
        let _ = ack.send(());
    }
}

/// The sequence number after the log's last entry.
fn last_seq(db: &Database) -> Result<u64, redb::Error> {
    let txn = db.begin_read()?;
    let log = txn.open_table(MOVES)?;
    Ok(log.last()?.map_or(0, |(k, _)| k.value() + 1))
}

fn commit(db: &Database, writes: &[Write], next_seq: &mut u64) -> Result<(), redb::Error> {
    let txn = db.begin_write()?;
    let mut seq = *next_seq;
    {
        let mut headers = txn.open_table(MATCHES)?;
        let mut log = txn.open_table(MOVES)?;
        for write in writes {
            match write {
                Write::Header { key, value } => {
                    headers.insert(key.as_str(), value.as_slice())?;
                }
                Write::Log { value } => {
                    log.insert(seq, value.as_slice())?;
                    seq += 1;
                }
            }
        }
    }
    txn.commit()?;
    *next_seq = seq;
    Ok(())
}
