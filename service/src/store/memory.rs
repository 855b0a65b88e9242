//! The store that keeps nothing (in-memory mode, for tests): every write is acknowledged at
//! once, and matches end with the process. With an outbox, the events of each write are
//! queued for the relay at once (and lost with the process, like the matches).

use crate::store::outbox::Queue;
use crate::store::{
    Ack, Change, MatchStore, Outbox, OutboxEvent, StoreError, StoreFuture, StoredMatch,
};

/// Keeps nothing (but the events waiting for the relay, with an outbox).
#[derive(Debug, Default)]
pub struct MemoryStore {
    outbox: Option<Queue>,
}

impl MemoryStore {
    /// A memory store, with an outbox if `outbox`.
    #[must_use]
    pub fn new(outbox: bool) -> MemoryStore {
        MemoryStore {
            outbox: outbox.then(Queue::default),
        }
    }

    fn queue(&self, events: &[OutboxEvent]) {
        if let Some(q) = &self.outbox {
            q.push(events.iter().cloned());
        }
    }
}

impl Outbox for Queue {
    fn pending(&self, limit: usize) -> StoreFuture<'_, Result<Vec<OutboxEvent>, StoreError>> {
        Box::pin(async move { Ok(Queue::pending(self, limit).await) })
    }

    fn relayed<'a>(&'a self, upto: &'a [(String, u64)]) -> StoreFuture<'a, Result<(), StoreError>> {
        self.remove(upto);
        Box::pin(async { Ok(()) })
    }
}

impl MatchStore for MemoryStore {
    fn backend(&self) -> &'static str {
        "memory"
    }

    fn is_persistent(&self) -> bool {
        false
    }

    fn has_failed(&self) -> bool {
        false
    }

    fn outbox(&self) -> Option<&dyn Outbox> {
        self.outbox.as_ref().map(|q| q as &dyn Outbox)
    }

    fn submit_create(
        &self,
        _m: &StoredMatch,
        _move_number: u64,
        _driving: bool,
        _max_matches: usize,
        events: &[OutboxEvent],
    ) -> Result<Ack, StoreError> {
        self.queue(events);
        Ok(Ack::done())
    }

    fn submit_change(&self, change: &Change<'_>) -> Result<Ack, StoreError> {
        self.queue(change.events);
        Ok(Ack::done())
    }

    fn submit_delete(&self, _id: &str) -> Result<Ack, StoreError> {
        Ok(Ack::done())
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async {})
    }
}
