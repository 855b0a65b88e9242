//! The layout of a data directory: its file names, the database's tables, the
//! permissions, and its configuration ([`DirConfig`]: where it is, its page cache, salvage),
//! shared by everything that opens it.

use std::path::{Path, PathBuf};

use redb::TableDefinition;

use crate::store::StoreError;

/// Match id → encoded [`StoredMatch`].
pub(crate) const MATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("matches");
/// Sequence number → encoded [`LogEntry`]: the move log of earlier versions, folded on open,
/// and the entries of matches set aside as damaged (kept here, unchanged, by every fold).
pub(crate) const MOVES: TableDefinition<u64, &[u8]> = TableDefinition::new("moves");
/// Store facts: [`COMMITS`].
pub(crate) const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// The outbox (`--events`): events written with a header (a match created or ended) and,
/// at each fold, those of the log not yet relayed; keyed by match id and sequence number,
/// each an encoded `LoggedEvent`.
pub(crate) const OUTBOX: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("outbox");
/// Key in [`META`]: how many commits the store made (each logs a marker with the count).
pub(crate) const COMMITS: &str = "commits";
/// The database's file name in the data directory.
pub(crate) const DATABASE: &str = "matches.redb";
/// The move log's file name in the data directory.
pub(crate) const MOVE_LOG: &str = "moves.log";
/// The first bytes of a move log in the current framing (older logs have no magic).
pub(crate) const LOG_MAGIC: &[u8; 8] = b"CHLOG2\n\0";

/// A data directory store's configuration (`--data-dir`, `--store-cache-mb`, `--salvage`).
#[derive(Clone, Debug)]
pub struct DirConfig {
    /// The directory (created owner-only if missing).
    pub path: PathBuf,
    /// The database's page cache, in bytes: the most memory it keeps of the file.
    pub cache_bytes: usize,
    /// Instead of refusing to start on corruption, keep what is consistent (the log up to the
    /// first bad record, the matches the database holds, each match up to its first bad
    /// entry) and log each thing dropped. For an operator who has read the error first.
    pub salvage: bool,
}

impl DirConfig {
    /// The data directory `path`, with the default page cache ([`DEFAULT_CACHE_BYTES`]),
    /// refusing to start on corruption.
    #[must_use]
    pub fn new(path: impl Into<PathBuf>) -> DirConfig {
        DirConfig {
            path: path.into(),
            cache_bytes: DEFAULT_CACHE_BYTES,
            salvage: false,
        }
    }
}

/// The database's page cache unless configured (redb's own default is 1 GiB).
pub const DEFAULT_CACHE_BYTES: usize = 32 << 20;

/// A database builder with the configured page cache.
pub(crate) fn builder(options: &DirConfig) -> redb::Builder {
    let mut b = redb::Database::builder();
    b.set_cache_size(options.cache_bytes);
    b
}

/// A database error as the store reports it.
pub(crate) fn db_error(e: impl Into<redb::Error>) -> StoreError {
    StoreError::Db(e.into().to_string())
}

pub(crate) const SALVAGE_HINT: &str = ". Nothing was changed. Restore the data directory from a backup, or start once with \
     --salvage to keep what is consistent (everything dropped is logged)";

pub(crate) fn owner_only(path: &Path, mode: u32) -> std::io::Result<()> {
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
