//! Which store the server uses ([`StoreConfig`]), and opening it: the one place that names
//! every backend.

use std::path::PathBuf;

use crate::store::local::{LocalStore, OpenOptions};
use crate::store::memory::MemoryStore;
use crate::store::pg::PgStore;
use crate::store::{Opened, Store, StoreError};

/// Where matches are kept.
#[derive(Clone, Debug)]
pub enum StoreConfig {
    /// Nowhere: matches end with the process (tests).
    Memory,
    /// An embedded database in this directory (created if missing).
    Dir(PathBuf),
    /// A PostgreSQL database (`postgres://user@host:port/dbname`), shared by any number of
    /// replicas; the server creates and migrates its schema.
    Postgres(String),
}

/// How to open the store, beyond where it is.
#[derive(Clone, Copy, Debug)]
pub struct OpenSettings {
    /// A data directory: salvage a corrupt one instead of refusing to start (see
    /// [`OpenOptions::salvage`]).
    pub salvage: bool,
    /// A data directory: the database's page cache, in bytes.
    pub cache_bytes: usize,
    /// PostgreSQL: connections in the pool.
    pub pool_size: usize,
    /// PostgreSQL: send and listen for change notices (`LISTEN`/`NOTIFY`).
    pub notices: bool,
}

/// Opens the store `config` names: the store, the matches an exclusive store holds (a
/// shared store's are loaded on demand: none here) and those it set aside as damaged. Must
/// run inside a Tokio runtime; the data directory's checks run on a blocking thread.
///
/// # Errors
/// As each backend's open: corruption of the store as a whole naming the file, an
/// unreachable database, ...
pub async fn open(
    config: &StoreConfig,
    settings: OpenSettings,
) -> Result<(Store, Opened), StoreError> {
    Ok(match config.clone() {
        StoreConfig::Memory => (Store::new(MemoryStore), Opened::default()),
        StoreConfig::Dir(dir) => {
            let options = OpenOptions {
                salvage: settings.salvage,
                cache_bytes: settings.cache_bytes,
            };
            let (store, opened) =
                tokio::task::spawn_blocking(move || LocalStore::open(&dir, options))
                    .await
                    .map_err(|e| StoreError::Failed {
                        what: format!("opening the data directory: {e}"),
                    })??;
            (Store::new(store), opened)
        }
        StoreConfig::Postgres(url) => {
            let store = PgStore::open(&url, settings.pool_size, settings.notices).await?;
            (Store::new(store), Opened::default())
        }
    })
}
