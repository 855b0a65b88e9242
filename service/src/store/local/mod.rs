//! The data-directory store (`--data-dir`, the default): one server's matches in an
//! embedded redb database and an append-only move log, with group commit. An exclusive
//! store (see [`crate::store`]): every match is read at open.
//!
//! | file | concern | may call |
//! |---|---|---|
//! | `layout.rs` | file names, tables, permissions, the configuration ([`DirConfig`]) | — |
//! | `log.rs` | the move log: record framing, checksums, reading back, appending | `layout` |
//! | `header.rs` | a match's header in the database: its checksum, decoding and checks | `log` |
//! | `recover.rs` | opening: the read-only checks, then the writes (salvage, fold, new log) | `fold`, `header`, `layout`, `log`, `outbox` |
//! | `fold.rs` | the fold of the log into the headers, in memory; matches set aside | `header`, `layout`, `log` |
//! | `writer.rs` | group commit: the committer task and the writer thread | `layout`, `log`, `outbox` |
//! | `outbox.rs` | the outbox (`--events`): events in log entries and a table, pending at open | `layout`, `log` |
//! | `mod.rs` | [`LocalStore`]: the contract kept in a data directory | `header`, `layout`, `log`, `outbox`, `recover`, `writer` |
//!
//! # Files
//!
//! * `matches.redb`, an embedded redb database: one header per match (hashed tokens, seed,
//!   seats, status and a state snapshot, behind a checksum), written when a match is created
//!   or ends, and the database's commit counter (table `meta`); with `--events`, the
//!   outbox's events written with a header and, from each start, those still to relay
//!   (table `outbox`: see `outbox.rs`).
//! * `moves.log`, an append-only file with one small record per accepted `Act` (the actions
//!   it applied, bots' and chance's included, and with `--events` the events they made), a
//!   tombstone per deleted match, a marker after every database commit naming that commit's
//!   counter, and with `--events` a marker per batch of events relayed. Each record is framed by its
//!   length (with its own checksum) and a checksum of the payload.
//!
//! The directory is created owner-only (0700) and its files are owner-only (0600).
//!
//! A commit appends a batch of records with one `write` and one `fdatasync`: about one page,
//! where a B-tree commit rewrites a leaf, its branches, the allocator's tables and the header.
//! A batch with headers or deletions also commits the database (tombstones are logged before
//! the database forgets a match; the marker after the database commit).
//!
//! **What open checks** (reading only: a refused start changes no byte of any file; see
//! `recover.rs` for how redb is read without writing). The log is read record by record. A record cut short at the end of
//! the file, a last record whose payload fails its checksum, or zero bytes to the end (a
//! file extended but not written by a crash) are a torn tail: dropped, with a warning naming
//! the file and offset. A bad length or checksum anywhere before the last record is
//! corruption. So is a database behind the log (the log names a database commit the database
//! does not have: it fell back to an earlier commit), a log entry for a match the database
//! does not hold (and that no tombstone deleted), a gap in a match's history, a zero-length
//! database file, a database redb cannot open, a missing database beside a non-empty log,
//! and a missing log beside a database that has committed. Each stops the start, naming the
//! file, unless salvaging.
//!
//! **One damaged match is set aside.** A header that fails its checksum, does not decode or
//! is impossible (`store::check`), or a log entry the engine rejects for its match, sets
//! that match aside: the server starts without it and answers its requests `DATA_LOSS`.
//! Its header stays in the `matches` table byte for byte and its entries are kept in the
//! `moves` table (which every fold reads first), so nothing of it is lost: once an operator
//! repairs it, the next start serves it whole. It is never swept by retention.
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

mod fold;
mod header;
mod layout;
mod log;
mod outbox;
mod recover;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use redb::{Database, ReadableDatabase};

use layout::{DATABASE, MATCHES, db_error};
pub use layout::{DEFAULT_CACHE_BYTES, DirConfig};
use log::{LogEntry, Relayed};
use writer::{Write, Writes};

use crate::store::outbox::Queue;
use crate::store::{
    Ack, Change, Damaged, MatchStore, Opened, Outbox, OutboxEvent, StoreError, StoreFuture,
    StoredMatch,
};

/// The data-directory store.
pub struct LocalStore {
    writes: Writes,
    /// The database, for reading ended matches back (`None` once closed, so that the file
    /// closes with the writer), and its path.
    reader: Mutex<Option<Arc<Database>>>,
    path: PathBuf,
    /// With `--events`: the events committed and not yet relayed.
    outbox: Option<Arc<Queue>>,
}

impl std::fmt::Debug for LocalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalStore").finish_non_exhaustive()
    }
}

impl LocalStore {
    /// Opens (or creates) the data directory `config` names and reads every stored match, checking
    /// everything the module docs list: the matches to serve, and those set aside as
    /// damaged. Blocks; call it from a blocking context inside a Tokio runtime, which runs
    /// the store's committer task.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] naming the file and what is wrong; I/O and database errors.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn open(config: &DirConfig) -> Result<(LocalStore, Opened), StoreError> {
        LocalStore::open_with(config, false)
    }

    /// [`LocalStore::open`], with an outbox if `outbox` (`--events`): the events still to
    /// relay are handed to it at once. (Without one, events an earlier run left are kept,
    /// not relayed.)
    ///
    /// # Errors
    /// As [`LocalStore::open`].
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn open_with(config: &DirConfig, outbox: bool) -> Result<(LocalStore, Opened), StoreError> {
        let (db, log, opened, pending) = recover::open_dir(config)?;
        let db = Arc::new(db);
        let queue = outbox.then(|| {
            let q = Arc::new(Queue::default());
            q.push(pending);
            q
        });
        let writes = Writes::start(Arc::clone(&db), log, queue.clone())?;
        let store = LocalStore {
            writes,
            reader: Mutex::new(Some(db)),
            path: config.path.join(DATABASE),
            outbox: queue,
        };
        Ok((store, opened))
    }

    /// Queues the write of the header and state snapshot of `m`, with its `events`.
    fn submit_put(&self, m: &StoredMatch, events: &[OutboxEvent]) -> Result<Ack, StoreError> {
        self.writes.submit(Write::Header {
            key: m.id.clone(),
            value: header::encode(m),
            events: self.events(events),
        })
    }

    /// The events to write: none without an outbox.
    fn events(&self, events: &[OutboxEvent]) -> Vec<OutboxEvent> {
        if self.outbox.is_some() {
            events.to_vec()
        } else {
            Vec::new()
        }
    }
}

impl Outbox for LocalStore {
    fn pending(&self, limit: usize) -> StoreFuture<'_, Result<Vec<OutboxEvent>, StoreError>> {
        Box::pin(async move {
            match &self.outbox {
                Some(q) => Ok(q.pending(limit).await),
                None => Ok(Vec::new()),
            }
        })
    }

    /// Forgets the events in memory, and appends a marker to the log so that a restart
    /// does not hand them out again.
    fn relayed<'a>(&'a self, upto: &'a [(String, u64)]) -> StoreFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if upto.is_empty() {
                return Ok(());
            }
            if let Some(q) = &self.outbox {
                q.remove(upto);
            }
            let marker = LogEntry {
                relayed: upto
                    .iter()
                    .map(|(id, seq)| Relayed {
                        id: id.clone(),
                        seq: *seq,
                    })
                    .collect(),
                ..LogEntry::default()
            };
            self.writes
                .submit(Write::Log {
                    value: prost::Message::encode_to_vec(&marker),
                    events: Vec::new(),
                })?
                .wait()
                .await
        })
    }
}

impl MatchStore for LocalStore {
    fn backend(&self) -> &'static str {
        "local"
    }

    fn is_persistent(&self) -> bool {
        true
    }

    fn has_failed(&self) -> bool {
        self.writes.has_failed()
    }

    fn outbox(&self) -> Option<&dyn Outbox> {
        self.outbox.is_some().then_some(self as &dyn Outbox)
    }

    fn submit_create(
        &self,
        m: &StoredMatch,
        _move_number: u64,
        _driving: bool,
        _max_matches: usize,
        events: &[OutboxEvent],
    ) -> Result<Ack, StoreError> {
        // The match service counts an exclusive store's matches itself.
        self.submit_put(m, events)
    }

    /// Appends the change's actions to the move log, or with `snapshot` rewrites the match's
    /// header and snapshot.
    fn submit_change(&self, change: &Change<'_>) -> Result<Ack, StoreError> {
        if change.snapshot {
            return self.submit_put(&(change.stored)(), change.events);
        }
        let events = self.events(change.events);
        let entry = LogEntry {
            id: change.id.to_owned(),
            from: change.from,
            actions: change.actions.to_vec(),
            events: events.iter().map(outbox::logged).collect(),
            ..LogEntry::default()
        };
        self.writes.submit(Write::Log {
            value: prost::Message::encode_to_vec(&entry),
            events,
        })
    }

    fn submit_delete(&self, id: &str) -> Result<Ack, StoreError> {
        self.writes.submit(Write::Delete { key: id.to_owned() })
    }

    fn load_stored<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Option<StoredMatch>, StoreError>> {
        let db = self.reader.lock().ok().and_then(|r| r.clone());
        let id = id.to_owned();
        Box::pin(async move {
            let Some(db) = db else {
                return Err(StoreError::WriterGone);
            };
            let path = self.path.clone();
            tokio::task::spawn_blocking(move || read_header(&db, &path, &id))
                .await
                .map_err(|e| StoreError::Failed {
                    what: format!("reading a match: {e}"),
                })?
        })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        if let Ok(mut reader) = self.reader.lock() {
            reader.take();
        }
        Box::pin(self.writes.close())
    }
}

/// Match `id`'s header and snapshot as committed.
/// Match `id`'s header and snapshot as committed, checked ([`header::decode`]).
fn read_header(db: &Database, path: &Path, id: &str) -> Result<Option<StoredMatch>, StoreError> {
    let txn = db.begin_read().map_err(db_error)?;
    let table = txn.open_table(MATCHES).map_err(db_error)?;
    let Some(value) = table.get(id).map_err(db_error)? else {
        return Ok(None);
    };
    match header::decode(id, value.value()) {
        Ok(read) => Ok(Some(read.stored)),
        Err(bad) => Err(StoreError::Damaged(Damaged {
            id: id.to_owned(),
            place: format!("{}, table matches", path.display()),
            what: bad.what,
        })),
    }
}
