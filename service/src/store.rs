//! Where matches are kept across restarts: an embedded redb database, or nothing (in-memory
//! mode, for tests).
//!
//! Writes go through one writer thread that commits every write waiting in its queue in one
//! durable transaction (group commit) and acknowledges each write only after that commit
//! returned. A handler acknowledges a move to its client only after its write was
//! acknowledged, so nothing acknowledged is lost.

use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::oneshot;

/// Match id → encoded [`StoredMatch`].
const MATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("matches");

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

struct WriteOp {
    key: String,
    value: Vec<u8>,
    ack: oneshot::Sender<Result<(), String>>,
}

enum Msg {
    Write(WriteOp),
    /// Stop the writer and close the database file; acknowledged once it is closed.
    Close(oneshot::Sender<()>),
}

/// A match store. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    inner: Option<Arc<RedbStore>>,
}

struct RedbStore {
    writes: mpsc::Sender<Msg>,
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

    /// Opens (or creates) `dir/matches.redb` and reads every stored match.
    ///
    /// # Errors
    /// If the directory cannot be created, the database cannot be opened or a record does
    /// not decode.
    pub fn open(dir: &Path) -> Result<(Store, Vec<StoredMatch>), StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir {
            path: dir.to_owned(),
            source,
        })?;
        let db = Database::create(dir.join("matches.redb")).map_err(StoreError::db)?;
        // Make sure the table exists so that the reader never sees it missing.
        let txn = db.begin_write().map_err(StoreError::db)?;
        txn.open_table(MATCHES).map_err(StoreError::db)?;
        txn.commit().map_err(StoreError::db)?;
        let stored = load_all(&db)?;

        let (tx, rx) = mpsc::channel::<Msg>();
        std::thread::Builder::new()
            .name("cardhouse-store".into())
            .spawn(move || writer(db, &rx))
            .map_err(|e| StoreError::Corrupt {
                key: String::new(),
                reason: format!("cannot start the writer thread: {e}"),
            })?;
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

    /// Stores `m` durably; returns once it is committed.
    ///
    /// # Errors
    /// If the commit failed; the caller must not acknowledge the change.
    pub async fn put(&self, m: &StoredMatch) -> Result<(), StoreError> {
        let Some(inner) = &self.inner else {
            return Ok(());
        };
        let (ack, done) = oneshot::channel();
        inner
            .writes
            .send(Msg::Write(WriteOp {
                key: m.id.clone(),
                value: prost::Message::encode_to_vec(m),
                ack,
            }))
            .map_err(|_| StoreError::WriterGone)?;
        match done.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(reason)) => Err(StoreError::Corrupt {
                key: m.id.clone(),
                reason,
            }),
            Err(_) => Err(StoreError::WriterGone),
        }
    }
}

/// Every stored match.
fn load_all(db: &Database) -> Result<Vec<StoredMatch>, StoreError> {
    let txn = db.begin_read().map_err(StoreError::db)?;
    let table = txn.open_table(MATCHES).map_err(StoreError::db)?;
    let mut out = Vec::new();
    for row in table.iter().map_err(StoreError::db)? {
        let (k, v) = row.map_err(StoreError::db)?;
        let m = <StoredMatch as prost::Message>::decode(v.value()).map_err(|e| {
            StoreError::Corrupt {
                key: k.value().to_owned(),
                reason: e.to_string(),
            }
        })?;
        out.push(m);
    }
    Ok(out)
}

fn writer(db: Database, rx: &mpsc::Receiver<Msg>) {
    let mut closing = None;
    while let Ok(first) = rx.recv() {
        let mut batch = Vec::new();
        match first {
            Msg::Write(op) => batch.push(op),
            Msg::Close(ack) => closing = Some(ack),
        }
        while closing.is_none() && batch.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(Msg::Write(op)) => batch.push(op),
                Ok(Msg::Close(ack)) => closing = Some(ack),
                Err(_) => break,
            }
        }
        if !batch.is_empty() {
            commit_and_ack(&db, batch);
        }
        if closing.is_some() {
            break;
        }
    }
    drop(db);
    if let Some(ack) = closing {
        let _ = ack.send(());
    }
    // Writes sent after Close find the receiver gone and fail with WriterGone.
}

fn commit_and_ack(db: &Database, batch: Vec<WriteOp>) {
    let result = commit(db, &batch).map_err(|e| {
        tracing::error!(error = %e, writes = batch.len(), "store commit failed");
        "the match store could not commit".to_owned()
    });
    for op in batch {
        // The handler may have gone away (client cancelled); the write stands anyway.
        let _ = op.ack.send(result.clone());
    }
}

fn commit(db: &Database, batch: &[WriteOp]) -> Result<(), redb::Error> {
    let txn = db.begin_write()?;
    {
        let mut table = txn.open_table(MATCHES)?;
        for op in batch {
            table.insert(op.key.as_str(), op.value.as_slice())?;
        }
    }
    txn.commit()?;
    Ok(())
}
