//! Change notices handed to the request that holds their match (a shared store only).
//!
//! A replica brings a cached match up to date from another replica's notice when the match
//! is free ([`super::replicas`]). When the notice arrives while a request holds the match (the
//! client's next move, sent to this replica by a round-robin balancer, often arrives before
//! the notice of the move before it), the notice is handed over here instead: to the request
//! if it waits for it, or parked for it. A request whose copy is behind what its client has
//! seen takes the parked notice or waits briefly ([`NOTICE_WAIT`]) before reading the match
//! from the store: one read saved per such move.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How long a request whose copy is behind waits for the notice before reading the match.
pub(super) const NOTICE_WAIT: Duration = Duration::from_millis(5);
/// Parked notices kept at most; past it, those older than [`PARKED_FOR`] are dropped.
const MAX_PARKED: usize = 4096;
/// How long an unclaimed parked notice is worth keeping.
const PARKED_FOR: Duration = Duration::from_secs(1);

/// What a change notice says of a change that was actions alone: the match's new version,
/// the move number the actions start at, and the actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Announced {
    pub(super) version: u64,
    pub(super) from: u64,
    pub(super) actions: Vec<u32>,
}

#[derive(Debug)]
enum Slot {
    Parked(Announced, Instant),
    Waiting(oneshot::Sender<Announced>),
}

/// Notices waiting for the request that holds their match, and requests waiting for them.
#[derive(Debug, Default)]
pub(super) struct Handoff {
    slots: Mutex<HashMap<String, Slot>>,
}

impl Handoff {
    /// A notice of match `id`, which a request holds: to the request if it waits, else
    /// parked for it (replacing an older one).
    pub(super) fn deliver(&self, id: &str, notice: Announced) {
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        let notice = match slots.remove(id) {
            Some(Slot::Waiting(request)) => match request.send(notice) {
                Ok(()) => return,
                Err(notice) => notice,
            },
            Some(Slot::Parked(..)) | None => notice,
        };
        if slots.len() >= MAX_PARKED {
            slots.retain(|_, s| match s {
                Slot::Parked(_, at) => at.elapsed() < PARKED_FOR,
                Slot::Waiting(_) => true,
            });
            if slots.len() >= MAX_PARKED {
                slots.retain(|_, s| matches!(s, Slot::Waiting(_)));
            }
        }
        slots.insert(id.to_owned(), Slot::Parked(notice, Instant::now()));
    }

    /// The parked notice of match `id` that makes `version`, or a receiver to wait for it
    /// on (give it up with [`Handoff::give_up`]).
    pub(super) fn take_or_wait(
        &self,
        id: &str,
        version: u64,
    ) -> Result<Announced, oneshot::Receiver<Announced>> {
        let (tx, rx) = oneshot::channel();
        let Ok(mut slots) = self.slots.lock() else {
            return Err(rx);
        };
        if let Some(Slot::Parked(notice, _)) = slots.remove(id)
            && notice.version == version
        {
            return Ok(notice);
        }
        slots.insert(id.to_owned(), Slot::Waiting(tx));
        Err(rx)
    }

    /// Stops waiting for a notice of match `id`.
    pub(super) fn give_up(&self, id: &str) {
        if let Ok(mut slots) = self.slots.lock()
            && matches!(slots.get(id), Some(Slot::Waiting(_)))
        {
            slots.remove(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Announced, Handoff};

    fn notice(version: u64) -> Announced {
        Announced {
            version,
            from: 10,
            actions: vec![1, 2],
        }
    }

    #[test]
    fn a_parked_notice_is_taken_once_and_only_for_its_version() {
        let h = Handoff::default();
        h.deliver("m", notice(4));
        assert!(h.take_or_wait("m", 5).is_err(), "another version");
        h.give_up("m");
        h.deliver("m", notice(4));
        assert_eq!(h.take_or_wait("m", 4).ok(), Some(notice(4)));
        assert!(h.take_or_wait("m", 4).is_err(), "taken already");
    }

    #[tokio::test]
    async fn a_waiting_request_receives_the_notice() {
        let h = Handoff::default();
        let rx = h.take_or_wait("m", 4).unwrap_err();
        h.deliver("m", notice(4));
        assert_eq!(rx.await.ok(), Some(notice(4)));
        // Given up: the next notice is parked.
        let rx = h.take_or_wait("m", 5).unwrap_err();
        h.give_up("m");
        drop(rx);
        h.deliver("m", notice(5));
        assert_eq!(h.take_or_wait("m", 5).ok(), Some(notice(5)));
    }
}
