//! Where matches are kept across restarts: a data directory, or nothing (in-memory mode, for
//! tests).
//!
//! * `matches.redb`, an embedded redb database, holds one header per match (tokens, seed,
//!   seats, status and a state snapshot), written when a match is created or ends.
//! * `moves.log` is an append-only file with one small record per accepted `Act` (the
//!   actions it applied, bots' and chance's included). Each record is framed by its length
//!   and a checksum, so a record torn by a crash during its write (never acknowledged) is
//!   recognised and dropped on the next start. A commit appends a batch of records with one
//!   `write` and one `fdatasync`: about one page, where a B-tree commit rewrites a leaf, its
//!   branches, the allocator's tables and the header.
//!
//! On open, the log (and the `moves` table of data directories written by earlier versions)
//! is folded into the snapshots (replayed with the engine's checked `apply`), the snapshots
//! are committed and the log is cleared. A crash between the two only replays entries that
//! the snapshots already hold, which are skipped by their history index.
//!
//! Writes are group committed: a committer task on the async runtime collects every write
//! waiting in its queue, hands them as one batch to a dedicated writer thread that makes them
//! durable (the blocking `fsync` never runs on a runtime thread), and acknowledges each write
//! only after that returned. Writes arriving meanwhile form the next batch. A handler
//! acknowledges a move to its client only after its write was acknowledged, so nothing
//! acknowledged is lost. The hand-offs between the runtime and the writer thread are one per
//! batch, not one per write: waking a thread costs more than a small write. After a failed
//! write the store refuses every later write (the file's state is then unknown), so nothing
//! is acknowledged that a restart would not find.

use std::fs::File;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::{mpsc as async_mpsc, oneshot};

/// Match id → encoded [`StoredMatch`].
const MATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("matches");
/// Sequence number → encoded [`LogEntry`]: the move log of earlier versions, folded on open.
const MOVES: TableDefinition<u64, &[u8]> = TableDefinition::new("moves");
/// The move log's file name in the data directory.
const MOVE_LOG: &str = "moves.log";

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 4096;
/// How many times the committer yields to the runtime to let a batch grow (see `committer`).
const BATCH_YIELDS: usize = 3;

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
        let mut log = MoveLog::open(dir)?;
        let stored = load_and_compact(&db, &mut log)?;

        let (jobs, job_rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("cardhouse-store".into())
            .spawn(move || writer(db, log, &job_rx))
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

/// Writes taken from the committer's queue for one commit.
#[derive(Default)]
struct Batch {
    writes: Vec<Write>,
    acks: Vec<oneshot::Sender<CommitResult>>,
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

/// Every stored match with its logged moves folded in; then the folded snapshots replace
/// the headers (and the `moves` table of earlier versions is emptied) in one transaction,
/// and then the log file is cleared.
fn load_and_compact(db: &Database, log: &mut MoveLog) -> Result<Vec<StoredMatch>, StoreError> {
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
    // Entries in the order they were committed: the table's (older), then the file's.
    let mut entries = Vec::new();
    let table = txn.open_table(MOVES).map_err(StoreError::db)?;
    for row in table.iter().map_err(StoreError::db)? {
        let (k, v) = row.map_err(StoreError::db)?;
        entries.push((
            format!("move table entry {}", k.value()),
            v.value().to_vec(),
        ));
    }
    drop(table);
    drop(headers);
    drop(txn);
    for (i, record) in log.read_all()?.into_iter().enumerate() {
        entries.push((format!("move log record {i}"), record));
    }
    for (key, bytes) in &entries {
        let e = <LogEntry as prost::Message>::decode(bytes.as_slice())
            .map_err(|e| corrupt(key, e.to_string()))?;
        let (m, state) = matches
            .get_mut(&e.id)
            .ok_or_else(|| corrupt(key, format!("no match {}", e.id)))?;
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
                key,
                format!("gap: history has {len} actions, entry starts at {}", e.from),
            ));
        }
        // Entries already inside the snapshot (written before a later header) are skipped.
        for &a in e.actions.iter().skip((len - e.from) as usize) {
            state
                .apply(a)
                .map_err(|err| corrupt(key, err.to_string()))?;
        }
    }
    let mut out = Vec::with_capacity(matches.len());
    for (_, (mut m, state)) in matches {
        if let Some(state) = state {
            m.state = state.to_bytes();
        }
        out.push(m);
    }
    if !entries.is_empty() {
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
            entries = entries.len(),
            "folded the move log into the snapshots"
        );
    }
    // Also when nothing was folded: new records must not follow a torn one.
    log.clear()?;
    Ok(out)
}

/// The writer thread: makes each batch durable, in order, and closes the database file when
/// told to (or when the committer task is gone).
fn writer(db: Database, mut log: MoveLog, jobs: &mpsc::Receiver<Job>) {
    let mut failed = false;
    let closed = loop {
        match jobs.recv() {
            Ok(Job::Commit { writes, done }) => {
                let result = if failed {
                    Err("the match store failed earlier and takes no more writes".to_owned())
                } else {
                    commit(&db, &mut log, &writes).map_err(|e| {
                        tracing::error!(error = %e, writes = writes.len(), "store commit failed; refusing further writes");
                        failed = true;
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

/// Makes `writes` durable: the log records with one append and one `fdatasync`, the headers
/// (if any) in one redb transaction.
fn commit(db: &Database, log: &mut MoveLog, writes: &[Write]) -> Result<(), StoreError> {
    let mut records = Vec::new();
    let mut headers = Vec::new();
    for write in writes {
        match write {
            Write::Header { key, value } => headers.push((key, value)),
            Write::Log { value } => frame(value, &mut records),
        }
    }
    if !records.is_empty() {
        log.append(&records)?;
    }
    if !headers.is_empty() {
        let txn = db.begin_write().map_err(StoreError::db)?;
        {
            let mut table = txn.open_table(MATCHES).map_err(StoreError::db)?;
            for (key, value) in headers {
                table
                    .insert(key.as_str(), value.as_slice())
                    .map_err(StoreError::db)?;
            }
        }
        txn.commit().map_err(StoreError::db)?;
    }
    Ok(())
}

/// Bytes of a record's frame before its payload: length (u32 LE), checksum (u64 LE).
const FRAME: usize = 12;

/// Appends `payload` to `out` as one framed record.
fn frame(payload: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&checksum(payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// FNV-1a (64 bit): enough to tell a record torn by a crash from a whole one.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The append-only move log file.
struct MoveLog {
    path: PathBuf,
    file: File,
}

impl MoveLog {
    /// Opens (or creates, durably) `dir/moves.log`.
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

    /// Every whole record, in order. A torn or corrupt tail is dropped (logged); it was never
    /// acknowledged, since its `fdatasync` had not returned.
    fn read_all(&mut self) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut bytes = Vec::new();
        (&self.file)
            .read_to_end(&mut bytes)
            .map_err(|e| self.err(e))?;
        let mut records = Vec::new();
        let mut rest = bytes.as_slice();
        while !rest.is_empty() {
            let Some(record) = next_record(rest) else {
                tracing::warn!(
                    bytes = rest.len(),
                    records = records.len(),
                    "dropping an incomplete record at the end of the move log"
                );
                break;
            };
            rest = &rest[FRAME + record.len()..];
            records.push(record.to_vec());
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

    /// Empties the log, durably.
    fn clear(&mut self) -> Result<(), StoreError> {
        self.file
            .set_len(0)
            .and_then(|()| self.file.sync_all())
            .map_err(|e| self.err(e))
    }
}

/// The payload of the record at the start of `bytes`, if it is whole.
fn next_record(bytes: &[u8]) -> Option<&[u8]> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(bytes.get(4..FRAME)?.try_into().ok()?);
    let payload = bytes.get(FRAME..FRAME + len)?;
    (checksum(payload) == sum).then_some(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_log_keeps_whole_records_and_drops_a_torn_tail() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut log = MoveLog::open(dir.path()).expect("open");
        let mut batch = Vec::new();
        frame(b"first", &mut batch);
        frame(b"", &mut batch);
        log.append(&batch).expect("append");
        let mut torn = Vec::new();
        frame(b"second, torn", &mut torn);
        log.append(&torn[..torn.len() - 3]).expect("append");
        drop(log);

        let mut log = MoveLog::open(dir.path()).expect("reopen");
        assert_eq!(
            log.read_all().expect("read"),
            vec![b"first".to_vec(), Vec::new()]
        );
        log.clear().expect("clear");
        assert!(log.read_all().expect("read").is_empty());
    }

    #[test]
    fn a_corrupt_record_ends_the_log() {
        let mut bytes = Vec::new();
        frame(b"payload", &mut bytes);
        assert_eq!(next_record(&bytes), Some(&b"payload"[..]));
        bytes[FRAME] ^= 1;
        assert_eq!(next_record(&bytes), None);
    }
}
