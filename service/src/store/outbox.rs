//! Events waiting to be relayed, in memory: the queue behind the outbox of the stores that
//! one process writes (memory, data directory). The data directory fills it from what it
//! made durable (at open, and after each commit); the memory store from every change.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::store::OutboxEvent;

/// The events committed and not yet relayed, in commit order.
#[derive(Debug, Default)]
pub struct Queue {
    events: Mutex<VecDeque<OutboxEvent>>,
    wake: Notify,
}

impl Queue {
    /// Adds events committed (in commit order) and wakes the relay.
    pub fn push(&self, events: impl IntoIterator<Item = OutboxEvent>) {
        let mut added = false;
        if let Ok(mut q) = self.events.lock() {
            for e in events {
                q.push_back(e);
                added = true;
            }
        }
        if added {
            // Stores a permit if the relay is not waiting yet: it is never missed.
            self.wake.notify_one();
        }
    }

    /// Waits until events are queued; returns up to `limit` of the oldest (kept queued).
    pub async fn pending(&self, limit: usize) -> Vec<OutboxEvent> {
        loop {
            let first: Vec<OutboxEvent> = match self.events.lock() {
                Ok(q) => q.iter().take(limit).cloned().collect(),
                Err(_) => Vec::new(),
            };
            if !first.is_empty() {
                return first;
            }
            self.wake.notified().await;
        }
    }

    /// Drops the events relayed: for each `(match id, seq)`, that match's up to `seq`.
    pub fn remove(&self, upto: &[(String, u64)]) {
        if let Ok(mut q) = self.events.lock() {
            q.retain(|e| {
                !upto
                    .iter()
                    .any(|(id, seq)| *id == e.match_id && e.seq <= *seq)
            });
        }
    }

    /// How many events are queued.
    #[must_use]
    pub fn len(&self) -> usize {
        self.events.lock().map_or(0, |q| q.len())
    }

    /// True if no event is queued.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
