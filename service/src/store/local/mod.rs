//! The data-directory store (`--data-dir`, the default): one server's matches in an
//! embedded redb database and an append-only move log, with group commit. An exclusive
//! store (see [`crate::store`]): every match is read at open.
//!
//! | file | concern |
//! |---|---|
//! | `layout.rs` | file names, tables, permissions, the salvage option |
//! | `log.rs` | the move log: record framing, checksums, reading back, appending |
//! | `recover.rs` | opening: the checks, the fold of the log into the snapshots, the read-back |
//! | `writer.rs` | group commit: the committer task and the writer thread |
//!
//! # Files
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

mod layout;
mod log;
mod recover;
mod writer;

use std::path::Path;

pub use layout::OpenOptions;
use log::LogEntry;
use writer::{Write, Writes};

use crate::store::{Ack, Change, MatchStore, StoreError, StoreFuture, StoredMatch};

/// The data-directory store.
pub struct LocalStore {
    writes: Writes,
}

impl std::fmt::Debug for LocalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalStore").finish_non_exhaustive()
    }
}

impl LocalStore {
    /// Opens (or creates) the data directory `dir` and reads every stored match, checking
    /// everything the module docs list. Blocks; call it from a blocking context inside a
    /// Tokio runtime, which runs the store's committer task.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] naming the file and what is wrong; I/O and database errors.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn open(
        dir: &Path,
        options: OpenOptions,
    ) -> Result<(LocalStore, Vec<StoredMatch>), StoreError> {
        let (db, log, stored) = recover::open_dir(dir, options)?;
        let writes = Writes::start(db, log)?;
        Ok((LocalStore { writes }, stored))
    }

    /// Queues the write of the header and state snapshot of `m`.
    fn submit_put(&self, m: &StoredMatch) -> Result<Ack, StoreError> {
        self.writes.submit(Write::Header {
            key: m.id.clone(),
            value: prost::Message::encode_to_vec(m),
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

    fn submit_create(
        &self,
        m: &StoredMatch,
        _move_number: u64,
        _driving: bool,
        _max_matches: usize,
    ) -> Result<Ack, StoreError> {
        // The match service counts an exclusive store's matches itself.
        self.submit_put(m)
    }

    /// Appends the change's actions to the move log, or with `snapshot` rewrites the match's
    /// header and snapshot.
    fn submit_change(&self, change: &Change<'_>) -> Result<Ack, StoreError> {
        if change.snapshot {
            return self.submit_put(&(change.stored)());
        }
        let entry = LogEntry {
            id: change.id.to_owned(),
            from: change.from,
            actions: change.actions.to_vec(),
            ..LogEntry::default()
        };
        self.writes.submit(Write::Log {
            value: prost::Message::encode_to_vec(&entry),
        })
    }

    fn submit_delete(&self, id: &str) -> Result<Ack, StoreError> {
        self.writes.submit(Write::Delete { key: id.to_owned() })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.writes.close())
    }
}
