//! The store that keeps nothing (in-memory mode, for tests): every write is acknowledged at
//! once, and matches end with the process.

use crate::store::{Ack, Change, MatchStore, StoreError, StoreFuture, StoredMatch};

/// Keeps nothing.
#[derive(Debug, Default)]
pub struct MemoryStore;

impl MatchStore for MemoryStore {
    fn is_persistent(&self) -> bool {
        false
    }

    fn has_failed(&self) -> bool {
        false
    }

    fn submit_create(
        &self,
        _m: &StoredMatch,
        _move_number: u64,
        _driving: bool,
        _max_matches: usize,
    ) -> Result<Ack, StoreError> {
        Ok(Ack::done())
    }

    fn submit_change(&self, _change: &Change<'_>) -> Result<Ack, StoreError> {
        Ok(Ack::done())
    }

    fn submit_delete(&self, _id: &str) -> Result<Ack, StoreError> {
        Ok(Ack::done())
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async {})
    }
}
