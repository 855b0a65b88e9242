//! Opening a data directory in two phases: every check first, reading only (so that a
//! refused start changes no byte of any file), then, once the start goes ahead, the writes:
//! the files salvage keeps aside, the fold committed and read back, a new move log.
//!
//! # Reading a redb database without writing it
//!
//! redb writes to a database file when it opens it writable: it marks the file as open (so
//! that a crash is noticed) and, after a crash, repairs it in place. A read-only open
//! (`ReadOnlyDatabase`) writes nothing, but refuses a file that was not closed cleanly
//! (`RepairAborted`). So:
//!
//! * a database closed cleanly is checked through a read-only handle, which is dropped
//!   before the write phase opens the file writable;
//! * a database left open by a crash is copied to `matches.redb.check` in the same
//!   directory, and the copy is opened writable (redb repairs the copy, never the original)
//!   and checked. If the start goes ahead, the copy (still open) is renamed over the
//!   original, atomically; if it is refused, the copy is removed and the original is as it
//!   was. The copy costs one read and one write of the database file at each start after a
//!   crash, and as much free disk space for the moment; a leftover copy of a start that was
//!   itself killed is removed by the next start.
//!
//! Every write transaction asks redb for a quick repair (its allocator state saved with the
//! commit, two-phase commit): a database reopened after a crash then loads that state
//! instead of re-verifying every page, so one damaged page (a match's header) is found by
//! that header's own checksum and sets that one match aside, where a full repair would have
//! refused the whole database ("all roots are corrupted").
//!
//! # Salvage
//!
//! With salvage, damage to the store as a whole does not stop the start: a database that
//! cannot be opened (or has zero bytes) is moved aside and a new one started, log entries
//! past a corrupt record or naming matches the database lacks are dropped, and every file
//! something was dropped from is kept aside as `<file>.salvaged-<unix ms>` (never deleted).
//! What was dropped is logged, with the ids of the matches that lost moves.

use std::path::{Path, PathBuf};

use redb::{
    Database, DatabaseError, ReadOnlyDatabase, ReadableDatabase, ReadableTable, TableError,
};

use crate::store::local::fold::{Folded, Inputs, fold};
use crate::store::local::header;
use crate::store::local::layout::{
    COMMITS, DATABASE, DirConfig, MATCHES, META, MOVE_LOG, MOVES, OUTBOX, SALVAGE_HINT, builder,
    db_error, owner_only,
};
use crate::store::local::log::{MoveLog, read_log};
use crate::store::local::outbox::{self, Pending};
use crate::store::{Damaged, Opened, OutboxEvent, StoreError, StoredMatch};

/// The repaired copy of a database left open by a crash (see the module docs).
const CHECK_COPY: &str = "matches.redb.check";

/// What opening a data directory gives: the database, the new move log, the matches, and
/// the events of the outbox still to relay.
pub(crate) type OpenedDir = (Database, MoveLog, Opened, Vec<OutboxEvent>);

/// Checks and opens the data directory `options.path` (created owner-only if missing), folds
/// its log.
pub(crate) fn open_dir(options: &DirConfig) -> Result<OpenedDir, StoreError> {
    let dir = options.path.as_path();
    let dir_err = |source| StoreError::Dir {
        path: dir.to_owned(),
        source,
    };
    if !dir.exists() {
        std::fs::create_dir_all(dir).map_err(dir_err)?;
        owner_only(dir, 0o700).map_err(dir_err)?;
    }
    let copy = dir.join(CHECK_COPY);
    let survey = match survey(dir, options) {
        Ok(survey) => survey,
        Err(e) => {
            // Our own copy, never the operator's data.
            let _ = std::fs::remove_file(&copy);
            return Err(e);
        }
    };
    write(dir, survey, options)
}

/// The database to go on with once the checks passed.
enum Source {
    /// None (missing, or moved aside by salvage): a new one is created.
    New,
    /// Closed cleanly; checked read-only, to be opened writable.
    Clean,
    /// Left open by a crash: a repaired copy, open, to be renamed over the original.
    Repaired(Database),
}

/// Everything the read-only phase found.
struct Survey {
    source: Source,
    /// Files salvage keeps aside (renamed, or copied if still needed), with why.
    aside: Vec<(PathBuf, &'static str)>,
    /// A table of the database is missing (never created): the write phase creates it.
    tables_missing: bool,
    commits: u64,
    folded: Folded,
    outbox: Pending,
}

/// The read-only phase: every check, nothing written (but our own repaired copy).
fn survey(dir: &Path, options: &DirConfig) -> Result<Survey, StoreError> {
    let db_path = dir.join(DATABASE);
    let log_path = dir.join(MOVE_LOG);
    let corrupt = |path: &Path, what: String| StoreError::Corrupt {
        path: path.to_owned(),
        what,
    };
    // What stops the start, or what salvage moves aside.
    let problem = |path: &Path, what: String| -> Result<(), StoreError> {
        if options.salvage {
            tracing::warn!(path = %path.display(), "salvage: {what}");
            Ok(())
        } else {
            Err(corrupt(path, what + SALVAGE_HINT))
        }
    };
    let db_len = std::fs::metadata(&db_path).ok().map(|m| m.len());
    let log_len = std::fs::metadata(&log_path).ok().map(|m| m.len());
    let mut aside = Vec::new();
    let mut source = Source::New;
    let mut contents = Contents::default();
    if db_len == Some(0) {
        problem(
            &db_path,
            "the database file is empty (zero bytes): its matches are gone".into(),
        )?;
        aside.push((db_path.clone(), "the empty database file"));
    } else if db_len.is_none() && log_len.is_some_and(|n| n > 0) {
        problem(
            &db_path,
            format!(
                "the database is missing while the move log {} holds {} bytes",
                log_path.display(),
                log_len.unwrap_or(0)
            ),
        )?;
    } else if db_len.is_some() {
        match read_database(dir, &db_path, options) {
            Ok((s, c)) => (source, contents) = (s, c),
            Err(Unreadable::InUse(e)) => {
                return Err(corrupt(
                    &db_path,
                    format!("cannot open it: {e} (is another server using this directory?)"),
                ));
            }
            Err(Unreadable::Damaged(what)) => {
                problem(&db_path, format!("cannot read the database: {what}"))?;
                aside.push((db_path.clone(), "the database that cannot be read"));
            }
            Err(Unreadable::Io(e)) => return Err(e),
        }
    }
    if log_len.is_none() && contents.commits > 0 {
        problem(
            &log_path,
            format!(
                "the move log is missing while the database {} has made {} commits",
                db_path.display(),
                contents.commits
            ),
        )?;
    }
    let log = match log_len {
        Some(_) => read_log(&log_path, options)?,
        None => Default::default(),
    };
    let outbox = outbox::pending(std::mem::take(&mut contents.outbox), &log.records);
    let folded = fold(Inputs {
        headers: contents.headers,
        table: contents.moves,
        log: log.records,
        commits: contents.commits,
        db_path: &db_path,
        log_path: &log_path,
        options,
    })?;
    if (log.dropped.is_some() || folded.dropped_from_log) && log_len.is_some() {
        aside.push((log_path, "the move log (entries were dropped from it)"));
    }
    if folded.dropped_from_table && !matches!(source, Source::New) {
        aside.push((
            db_path,
            "the database (entries were dropped from its move table)",
        ));
    }
    Ok(Survey {
        source,
        aside,
        tables_missing: contents.tables_missing,
        commits: contents.commits,
        folded,
        outbox,
    })
}

/// What the database holds, read raw (nothing decoded yet).
#[derive(Default)]
struct Contents {
    headers: Vec<(String, Vec<u8>)>,
    moves: Vec<(u64, Vec<u8>)>,
    commits: u64,
    tables_missing: bool,
    /// The `outbox` table's rows (a database of an earlier version has none).
    outbox: Vec<((String, u64), Vec<u8>)>,
}

/// Why the database could not be read.
enum Unreadable {
    /// Another process has it open.
    InUse(DatabaseError),
    /// The file is damaged as a whole (redb's error, or a panic reading it).
    Damaged(String),
    Io(StoreError),
}

/// Opens the database without writing it (see the module docs) and reads it.
fn read_database(
    dir: &Path,
    db_path: &Path,
    options: &DirConfig,
) -> Result<(Source, Contents), Unreadable> {
    let damaged = |e: &dyn std::fmt::Display| Unreadable::Damaged(e.to_string());
    match ReadOnlyDatabase::open(db_path) {
        Ok(db) => {
            let contents = read_guarded(&db)?;
            drop(db);
            Ok((Source::Clean, contents))
        }
        Err(DatabaseError::RepairAborted) => {
            let copy = dir.join(CHECK_COPY);
            let io = |source| {
                Unreadable::Io(StoreError::Dir {
                    path: copy.clone(),
                    source,
                })
            };
            let _ = std::fs::remove_file(&copy);
            std::fs::copy(db_path, &copy).map_err(io)?;
            owner_only(&copy, 0o600).map_err(io)?;
            tracing::info!(
                path = %db_path.display(),
                copy = %copy.display(),
                "the database was not closed cleanly: checking a repaired copy"
            );
            let opened = std::panic::catch_unwind(|| builder(options).open(&copy));
            let db = match opened {
                Ok(Ok(db)) => db,
                Ok(Err(e)) => return Err(damaged(&e)),
                Err(_) => return Err(damaged(&"redb panicked opening it")),
            };
            let contents = read_guarded(&db)?;
            Ok((Source::Repaired(db), contents))
        }
        Err(e @ DatabaseError::DatabaseAlreadyOpen) => Err(Unreadable::InUse(e)),
        Err(e) => Err(damaged(&e)),
    }
}

/// [`read`], a panic of redb on a damaged file counted as damage.
fn read_guarded(db: &impl ReadableDatabase) -> Result<Contents, Unreadable> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(db))) {
        Ok(Ok(contents)) => Ok(contents),
        Ok(Err(e)) => Err(Unreadable::Damaged(e.to_string())),
        Err(_) => Err(Unreadable::Damaged("redb panicked reading it".into())),
    }
}

/// Every header, every entry of the old move table, and the commit counter.
fn read(db: &impl ReadableDatabase) -> Result<Contents, redb::Error> {
    let txn = db.begin_read()?;
    let mut contents = Contents::default();
    match txn.open_table(MATCHES) {
        Ok(table) => {
            for row in table.iter()? {
                let (k, v) = row?;
                contents
                    .headers
                    .push((k.value().to_owned(), v.value().to_vec()));
            }
        }
        Err(TableError::TableDoesNotExist(_)) => contents.tables_missing = true,
        Err(e) => return Err(e.into()),
    }
    match txn.open_table(MOVES) {
        Ok(table) => {
            for row in table.iter()? {
                let (k, v) = row?;
                contents.moves.push((k.value(), v.value().to_vec()));
            }
        }
        Err(TableError::TableDoesNotExist(_)) => contents.tables_missing = true,
        Err(e) => return Err(e.into()),
    }
    match txn.open_table(META) {
        Ok(table) => contents.commits = table.get(COMMITS)?.map_or(0, |v| v.value()),
        Err(TableError::TableDoesNotExist(_)) => contents.tables_missing = true,
        Err(e) => return Err(e.into()),
    }
    match txn.open_table(OUTBOX) {
        Ok(table) => {
            for row in table.iter()? {
                let (k, v) = row?;
                let (id, seq) = k.value();
                contents
                    .outbox
                    .push(((id.to_owned(), seq), v.value().to_vec()));
            }
        }
        Err(TableError::TableDoesNotExist(_)) => {}
        Err(e) => return Err(e.into()),
    }
    Ok(contents)
}

/// The write phase: the checks passed (or salvage accepted the losses).
fn write(dir: &Path, survey: Survey, options: &DirConfig) -> Result<OpenedDir, StoreError> {
    let dir_err = |source| StoreError::Dir {
        path: dir.to_owned(),
        source,
    };
    let db_path = dir.join(DATABASE);
    owner_only(dir, 0o700).map_err(dir_err)?;
    let Survey {
        source,
        aside,
        tables_missing,
        commits,
        folded,
        outbox,
    } = survey;
    let stamp = crate::clock::now_ms();
    for (path, what) in &aside {
        let kept = PathBuf::from(format!("{}.salvaged-{stamp}", path.display()));
        // The database is still needed when only entries were dropped from it: a copy.
        let still_used = *path == db_path && matches!(source, Source::Clean);
        let moved = if still_used {
            std::fs::copy(path, &kept).map(drop)
        } else {
            std::fs::rename(path, &kept)
        };
        moved.map_err(|source| StoreError::Dir {
            path: path.clone(),
            source,
        })?;
        tracing::warn!(path = %path.display(), kept = %kept.display(), "salvage: kept {what} aside");
    }
    // A new database gets its tables; a repaired copy is committed as what goes on.
    let not_clean = !matches!(source, Source::Clean);
    let db = match source {
        Source::New => builder(options).create(&db_path).map_err(db_error)?,
        Source::Clean => builder(options)
            .open(&db_path)
            .map_err(|e| StoreError::Corrupt {
                path: db_path.clone(),
                what: format!("cannot open it after checking it: {e}"),
            })?,
        Source::Repaired(db) => {
            std::fs::rename(dir.join(CHECK_COPY), &db_path)
                .and_then(|()| std::fs::File::open(dir)?.sync_all())
                .map_err(dir_err)?;
            db
        }
    };
    owner_only(&db_path, 0o600).map_err(dir_err)?;
    let Folded {
        matches,
        set_aside,
        aliases,
        max_marker,
        changed,
        lost,
        ..
    } = folded;
    let next = commits.max(max_marker) + 1;
    let written = if changed || tables_missing || not_clean || !aside.is_empty() || outbox.changed {
        commit_fold(&db, &db_path, &matches, &set_aside, &outbox.events, next)?;
        tracing::info!(
            matches = matches.len(),
            set_aside = set_aside.len(),
            commit = next,
            "folded the move log into the snapshots"
        );
        next
    } else {
        commits
    };
    let log = MoveLog::start(dir, written)?;
    if !lost.is_empty() {
        let mut lost = lost;
        lost.sort();
        lost.dedup();
        tracing::warn!(matches = ?lost, "salvage: these matches lost moves (all of them, or from a damaged entry on)");
    }
    let mut damaged: Vec<Damaged> = Vec::with_capacity(set_aside.len());
    for aside in set_aside {
        tracing::error!(
            match_id = %aside.damaged.id,
            path = %aside.damaged.place,
            "match set aside: {}; its stored data is kept unchanged and every request for \
             it is answered DATA_LOSS",
            aside.damaged.what
        );
        damaged.push(aside.damaged);
    }
    // A damaged key: requests come with the id its header names (unless a whole match has it).
    for alias in aliases {
        if !matches.iter().any(|m| m.id == alias.id) {
            damaged.push(alias);
        }
    }
    Ok((db, log, Opened { matches, damaged }, outbox.events))
}

/// Commits the fold (every header replaced: the folded matches re-encoded, the damaged ones
/// byte for byte; the `moves` table holding only the damaged matches' entries; the commit
/// counter `next`), then reads it back and compares.
fn commit_fold(
    db: &Database,
    db_path: &Path,
    matches: &[StoredMatch],
    set_aside: &[crate::store::local::fold::SetAside],
    outbox_events: &[OutboxEvent],
    next: u64,
) -> Result<(), StoreError> {
    let headers: Vec<(&str, Vec<u8>)> = matches
        .iter()
        .map(|m| (m.id.as_str(), header::encode(m)))
        .chain(set_aside.iter().map(|a| (a.key.as_str(), a.header.clone())))
        .collect();
    let mut txn = db.begin_write().map_err(db_error)?;
    txn.set_quick_repair(true);
    {
        txn.delete_table(MATCHES).map_err(db_error)?;
        let mut table = txn.open_table(MATCHES).map_err(db_error)?;
        for (key, value) in &headers {
            table.insert(*key, value.as_slice()).map_err(db_error)?;
        }
        txn.delete_table(MOVES).map_err(db_error)?;
        let mut moves = txn.open_table(MOVES).map_err(db_error)?;
        for (i, entry) in set_aside.iter().flat_map(|a| &a.entries).enumerate() {
            moves.insert(i as u64, entry.as_slice()).map_err(db_error)?;
        }
        let mut meta = txn.open_table(META).map_err(db_error)?;
        meta.insert(COMMITS, next).map_err(db_error)?;
    }
    outbox::replace(&txn, outbox_events)?;
    txn.commit().map_err(db_error)?;
    verify(db, db_path, &headers, next)
}

/// Reads the headers back and compares them with what was committed.
fn verify(
    db: &Database,
    db_path: &Path,
    headers: &[(&str, Vec<u8>)],
    commit: u64,
) -> Result<(), StoreError> {
    let mismatch = |what: String| StoreError::Corrupt {
        path: db_path.to_owned(),
        what: format!("the folded snapshots do not read back: {what}; the move log is kept"),
    };
    let txn = db.begin_read().map_err(db_error)?;
    let table = txn.open_table(MATCHES).map_err(db_error)?;
    let count = redb::ReadableTableMetadata::len(&table).map_err(db_error)?;
    if count != headers.len() as u64 {
        return Err(mismatch(format!(
            "{count} matches, {} written",
            headers.len()
        )));
    }
    for (key, want) in headers {
        let got = table.get(*key).map_err(db_error)?;
        if got.as_ref().map(|v| v.value()) != Some(want.as_slice()) {
            return Err(mismatch(format!("match {key} differs")));
        }
    }
    let meta = txn.open_table(META).map_err(db_error)?;
    if meta.get(COMMITS).map_err(db_error)?.map(|v| v.value()) != Some(commit) {
        return Err(mismatch("the commit counter differs".into()));
    }
    Ok(())
}
