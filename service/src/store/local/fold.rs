//! The fold of the move log into the stored headers, in memory (nothing here writes): each
//! header decoded and checked, each log entry replayed with the engine's checked `apply`.
//! A match whose header or entries are damaged is set aside with its bytes unchanged; damage
//! to the store as a whole stops the start (or, with salvage, is dropped and logged).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use cardhouse::AnyState;

use crate::store::local::header;
use crate::store::local::layout::DirConfig;
use crate::store::local::layout::SALVAGE_HINT;
use crate::store::local::log::LogEntry;
use crate::store::{Damaged, StoreError, StoredMatch};

/// What the fold reads: the database's headers and old move table, and the log's records.
pub(crate) struct Inputs<'a> {
    /// Key and stored bytes of each header of the `matches` table.
    pub(crate) headers: Vec<(String, Vec<u8>)>,
    /// The `moves` table: entries of earlier versions, and of matches set aside.
    pub(crate) table: Vec<(u64, Vec<u8>)>,
    /// The log's records, with their offsets.
    pub(crate) log: Vec<(u64, Vec<u8>)>,
    /// The database's commit counter.
    pub(crate) commits: u64,
    pub(crate) db_path: &'a Path,
    pub(crate) log_path: &'a Path,
    pub(crate) options: &'a DirConfig,
}

/// A match set aside: its header's bytes and its entries, kept exactly as they were.
#[derive(Debug)]
pub(crate) struct SetAside {
    pub(crate) key: String,
    pub(crate) header: Vec<u8>,
    pub(crate) entries: Vec<Vec<u8>>,
    pub(crate) damaged: Damaged,
}

/// What the fold made of the inputs.
#[derive(Debug, Default)]
pub(crate) struct Folded {
    /// The matches to serve, with the log's moves applied.
    pub(crate) matches: Vec<StoredMatch>,
    /// The matches set aside.
    pub(crate) set_aside: Vec<SetAside>,
    /// Another match id under which a damaged header names itself (its key was damaged).
    pub(crate) aliases: Vec<Damaged>,
    /// The highest database commit the log names.
    pub(crate) max_marker: u64,
    /// Something must be written (entries were folded, headers rewritten, the commit
    /// counter moves on).
    pub(crate) changed: bool,
    /// Salvage dropped entries of the log (it must be kept aside).
    pub(crate) dropped_from_log: bool,
    /// Salvage dropped entries of the database's `moves` table (a copy must be kept aside).
    pub(crate) dropped_from_table: bool,
    /// Salvage: matches whose moves were dropped (all or from some point).
    pub(crate) lost: Vec<String>,
}

/// A match being folded.
struct Good {
    stored: StoredMatch,
    /// The header as stored (kept if the match is set aside later).
    raw: Vec<u8>,
    state: AnyState,
    rewrite: bool,
    /// Its entries applied so far (kept if it is set aside later).
    entries: Vec<Vec<u8>>,
}

/// Where an entry came from: the database's `moves` table or the log; or (for the log's
/// markers against the commit counter) the database as a whole.
#[derive(Clone, Copy, PartialEq)]
enum From {
    Table,
    Log,
    Database,
}

/// The files and options of a fold.
struct Ctx<'a> {
    db_path: &'a Path,
    log_path: &'a Path,
    options: &'a DirConfig,
}

impl Ctx<'_> {
    fn path(&self, from: From) -> &Path {
        match from {
            From::Table | From::Database => self.db_path,
            From::Log => self.log_path,
        }
    }

    /// What salvage drops (logged, and the file it came from kept aside), or what stops the
    /// start.
    fn problem(&self, out: &mut Folded, from: From, what: String) -> Result<(), StoreError> {
        let path = self.path(from);
        if !self.options.salvage {
            return Err(StoreError::Corrupt {
                path: path.to_owned(),
                what: what + SALVAGE_HINT,
            });
        }
        tracing::warn!(path = %path.display(), "salvage: {what}; dropped");
        match from {
            From::Table => out.dropped_from_table = true,
            From::Log | From::Database => out.dropped_from_log = true,
        }
        Ok(())
    }
}

/// Folds `inputs` (see the module docs).
///
/// # Errors
/// [`StoreError::Corrupt`] for damage to the store as a whole, unless salvaging.
pub(crate) fn fold(inputs: Inputs<'_>) -> Result<Folded, StoreError> {
    let Inputs {
        headers,
        table,
        log,
        commits,
        db_path,
        log_path,
        options,
    } = inputs;
    let ctx = Ctx {
        db_path,
        log_path,
        options,
    };
    let mut out = Folded {
        changed: !table.is_empty() || !log.is_empty(),
        ..Folded::default()
    };
    let mut good = BTreeMap::new();
    let mut bad: BTreeMap<String, SetAside> = BTreeMap::new();
    for (key, raw) in headers {
        match header::decode(&key, &raw) {
            Ok(read) => {
                let entry = Good {
                    stored: read.stored,
                    raw,
                    state: read.state,
                    rewrite: read.rewrite,
                    entries: Vec::new(),
                };
                good.insert(key, entry);
            }
            Err(bad_header) => {
                let damaged = Damaged {
                    id: key.clone(),
                    place: db_path.display().to_string(),
                    what: bad_header.what,
                };
                if let Some(named) = bad_header.names {
                    out.aliases.push(Damaged {
                        id: named,
                        ..damaged.clone()
                    });
                }
                let aside = SetAside {
                    key: key.clone(),
                    header: raw,
                    entries: Vec::new(),
                    damaged,
                };
                bad.insert(key, aside);
            }
        }
    }
    // Entries in the order they were committed: the table's (older), then the file's.
    let mut entries = Vec::with_capacity(table.len() + log.len());
    for (k, bytes) in table {
        entries.push((From::Table, format!("move table entry {k}"), bytes));
    }
    for (offset, bytes) in log {
        entries.push((From::Log, format!("record at offset {offset}"), bytes));
    }
    let mut decoded = Vec::with_capacity(entries.len());
    for (from, at, bytes) in entries {
        match <LogEntry as prost::Message>::decode(bytes.as_slice()) {
            Ok(e) => decoded.push((from, at, e, bytes)),
            Err(e) => ctx.problem(
                &mut out,
                from,
                format!("the {at}, which does not decode: {e}"),
            )?,
        }
    }
    // Matches deleted later in the log: their earlier entries are expected to find nothing.
    let deleted: HashSet<String> = decoded
        .iter()
        .filter(|(_, _, e, _)| e.deleted)
        .map(|(_, _, e, _)| e.id.clone())
        .collect();
    // A match whose history broke under salvage takes no later entries.
    let mut broken = HashSet::new();
    for (from, at, e, bytes) in decoded {
        if let Some(c) = e.db_commit {
            out.max_marker = out.max_marker.max(c);
            continue;
        }
        // A relay marker names no match's moves (the outbox's, read by `recover`).
        if e.id.is_empty() && !e.relayed.is_empty() {
            continue;
        }
        // A match set aside keeps every entry, its tombstone included, untouched.
        if let Some(aside) = bad.get_mut(&e.id) {
            aside.entries.push(bytes);
            continue;
        }
        if e.deleted {
            good.remove(&e.id);
            continue;
        }
        if broken.contains(&e.id) {
            continue;
        }
        let Some(m) = good.get_mut(&e.id) else {
            if !deleted.contains(&e.id) {
                // Said of the database (it lacks what the log has); salvage drops the entry.
                let holder = if from == From::Table {
                    "its move table"
                } else {
                    "the move log"
                };
                ctx.problem(
                    &mut out,
                    From::Database,
                    format!(
                        "the database does not hold match {}, whose moves {holder} has (the \
                         {at} of {}): is the database behind the log?",
                        e.id,
                        ctx.path(from).display()
                    ),
                )?;
                out.dropped_from_table |= from == From::Table;
                out.lost.push(e.id.clone());
                broken.insert(e.id.clone());
            }
            continue;
        };
        let len = m.state.move_number() as u64;
        if e.from > len {
            ctx.problem(
                &mut out,
                From::Database,
                format!(
                    "a gap in match {}: its snapshot and moves have {len} actions, the {at} \
                     of {} starts at {}: is the database behind the log?",
                    e.id,
                    ctx.path(from).display(),
                    e.from
                ),
            )?;
            out.dropped_from_table |= from == From::Table;
            out.lost.push(e.id.clone());
            broken.insert(e.id.clone());
            continue;
        }
        // Entries already inside the snapshot (written before a later header) are skipped.
        let mut rejected = None;
        for &a in e.actions.iter().skip((len - e.from) as usize) {
            if let Err(err) = m.state.apply(a) {
                rejected = Some(format!("the {at}: action {a} is rejected: {err}"));
                break;
            }
        }
        m.entries.push(bytes);
        let Some(what) = rejected else {
            continue;
        };
        if options.salvage {
            // The operator asked to keep what is consistent: the match up to this entry.
            ctx.problem(
                &mut out,
                from,
                format!("{what} (match {}, from there on)", e.id),
            )?;
            out.lost.push(e.id.clone());
            broken.insert(e.id.clone());
            continue;
        }
        // The match is set aside as it was stored: header and every entry.
        let Some(m) = good.remove(&e.id) else {
            continue;
        };
        let aside = SetAside {
            key: e.id.clone(),
            header: m.raw,
            entries: m.entries,
            damaged: Damaged {
                id: e.id.clone(),
                place: ctx.path(from).display().to_string(),
                what,
            },
        };
        bad.insert(e.id.clone(), aside);
    }
    if out.max_marker > commits {
        let max_marker = out.max_marker;
        // Said of the database; under salvage the log is kept aside as the evidence.
        ctx.problem(
            &mut out,
            From::Database,
            format!(
                "the database is behind the move log: the log records database commit {}, \
                 the database has made {commits} (it fell back to an earlier commit, or is an \
                 older copy)",
                max_marker
            ),
        )?;
    }
    out.changed |= out.max_marker != commits;
    for (_, m) in good {
        let mut stored = m.stored;
        if !m.entries.is_empty() {
            stored.state = m.state.to_bytes();
        }
        out.changed |= m.rewrite;
        out.matches.push(stored);
    }
    out.set_aside = bad.into_values().collect();
    Ok(out)
}
