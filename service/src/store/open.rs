//! Which store the server uses ([`StoreConfig`], each backend's configuration inside its
//! variant), and opening it: the one place that names every backend.

pub use crate::store::local::DirConfig;
use crate::store::local::LocalStore;
use crate::store::memory::MemoryStore;
pub use crate::store::pg::PgConfig;
use crate::store::pg::PgStore;
use crate::store::{Opened, Store, StoreError};

/// Where matches are kept, and how.
#[derive(Clone, Debug)]
pub enum StoreConfig {
    /// Nowhere: matches end with the process (tests).
    Memory,
    /// An embedded database in a directory (created if missing).
    Dir(DirConfig),
    /// A PostgreSQL database, shared by any number of replicas; the server creates and
    /// migrates its schema.
    Postgres(PgConfig),
}

/// Opens the store `config` names: the store, the matches an exclusive store holds (a
/// shared store's are loaded on demand: none here) and those it set aside as damaged. Must
/// run inside a Tokio runtime; the data directory's checks run on a blocking thread.
///
/// # Errors
/// As each backend's open: corruption of the store as a whole naming the file, an
/// unreachable database, ...
pub async fn open(config: &StoreConfig) -> Result<(Store, Opened), StoreError> {
    open_with(config, false).await
}

/// [`open`], with an outbox if `outbox` (`--events`: see [`crate::store`]'s docs).
///
/// # Errors
/// As [`open`].
pub async fn open_with(config: &StoreConfig, outbox: bool) -> Result<(Store, Opened), StoreError> {
    Ok(match config.clone() {
        StoreConfig::Memory => (Store::new(MemoryStore::new(outbox)), Opened::default()),
        StoreConfig::Dir(dir) => {
            let (store, opened) =
                tokio::task::spawn_blocking(move || LocalStore::open_with(&dir, outbox))
                    .await
                    .map_err(|e| StoreError::Failed {
                        what: format!("opening the data directory: {e}"),
                    })??;
            (Store::new(store), opened)
        }
        StoreConfig::Postgres(pg) => {
            let store = PgStore::open_with(&pg, outbox).await?;
            (Store::new(store), Opened::default())
        }
    })
}
