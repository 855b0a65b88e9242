//! Opening a data directory: the checks of its files, the fold of the move log into the
//! snapshots, and the read-back that proves the fold (see the data directory's module docs).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata};

use crate::store::local::layout::{
    COMMITS, DATABASE, MATCHES, META, MOVE_LOG, MOVES, OpenOptions, SALVAGE_HINT, builder,
    db_error, owner_only, read_commits,
};
use crate::store::local::log::{LogEntry, MoveLog};
use crate::store::{StoreError, StoredMatch};

/// Creates `dir` owner-only if missing, checks and opens its database and log, folds the log.
pub(crate) fn open_dir(
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
        builder(options)
            .open(&db_path)
            .map_err(|e| corrupt(&db_path, format!("cannot open: {e}")))?
    } else {
        builder(options).create(&db_path).map_err(db_error)?
    };
    owner_only(&db_path, 0o600).map_err(dir_err)?;
    // Make sure the tables exist so that the reader never sees them missing.
    let txn = db.begin_write().map_err(db_error)?;
    txn.open_table(MATCHES).map_err(db_error)?;
    txn.open_table(MOVES).map_err(db_error)?;
    txn.open_table(META).map_err(db_error)?;
    txn.commit().map_err(db_error)?;
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
    let txn = db.begin_read().map_err(db_error)?;
    let headers = txn.open_table(MATCHES).map_err(db_error)?;
    let mut matches = BTreeMap::new();
    let mut migrated = false;
    for row in headers.iter().map_err(db_error)? {
        let (k, v) = row.map_err(db_error)?;
        let mut m = <StoredMatch as prost::Message>::decode(v.value())
            .map_err(|e| corrupt(db_path, format!("match {} does not decode: {e}", k.value())))?;
        migrated |= m.migrate();
        matches.insert(m.id.clone(), (m, None::<cardhouse::AnyState>));
    }
    // Entries in the order they were committed: the table's (older), then the file's.
    let mut entries = Vec::new();
    let table = txn.open_table(MOVES).map_err(db_error)?;
    for row in table.iter().map_err(db_error)? {
        let (k, v) = row.map_err(db_error)?;
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
    let txn = db.begin_write().map_err(db_error)?;
    {
        txn.delete_table(MATCHES).map_err(db_error)?;
        let mut headers = txn.open_table(MATCHES).map_err(db_error)?;
        for m in &out {
            headers
                .insert(m.id.as_str(), prost::Message::encode_to_vec(m).as_slice())
                .map_err(db_error)?;
        }
        let mut meta = txn.open_table(META).map_err(db_error)?;
        meta.insert(COMMITS, next).map_err(db_error)?;
    }
    txn.delete_table(MOVES).map_err(db_error)?;
    txn.open_table(MOVES).map_err(db_error)?;
    txn.commit().map_err(db_error)?;
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
    let txn = db.begin_read().map_err(db_error)?;
    let headers = txn.open_table(MATCHES).map_err(db_error)?;
    let count = headers.len().map_err(db_error)?;
    if count != out.len() as u64 {
        return Err(mismatch(format!("{count} matches, {} written", out.len())));
    }
    for m in out {
        let want = prost::Message::encode_to_vec(m);
        let got = headers.get(m.id.as_str()).map_err(db_error)?;
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
