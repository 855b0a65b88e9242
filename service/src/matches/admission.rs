//! Admission under the match limit (`--max-matches`): a slot is reserved before a match is
//! created, so the limit is exact under concurrency. A shared store counts its matches
//! itself, in the statement that creates one.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::ApiError;

/// The count the match limit applies to.
#[derive(Debug)]
pub(super) struct Admission {
    /// Matches held plus creations in progress (an exclusive store only).
    reserved: AtomicUsize,
    max: usize,
    /// The store counts matches itself: nothing to reserve here.
    counted_by_store: bool,
}

/// A slot under the match limit, released on drop unless the match was kept.
#[derive(Debug)]
pub(super) struct Reservation<'a> {
    admission: &'a Admission,
    kept: bool,
}

impl Reservation<'_> {
    /// The match was created: the slot stays taken until [`Admission::release`].
    pub(super) fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.kept {
            self.admission.release();
        }
    }
}

impl Admission {
    /// Admission for `held` matches already held, up to `max`.
    pub(super) fn new(held: usize, max: usize, counted_by_store: bool) -> Admission {
        Admission {
            reserved: AtomicUsize::new(held),
            max,
            counted_by_store,
        }
    }

    /// Reserves a slot (exact under concurrency).
    ///
    /// # Errors
    /// `RESOURCE_EXHAUSTED` at the limit.
    pub(super) fn reserve(&self) -> Result<Reservation<'_>, ApiError> {
        if self.counted_by_store {
            return Ok(Reservation {
                admission: self,
                kept: true,
            });
        }
        self.reserved
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max).then_some(n + 1)
            })
            .map_err(|_| self.full())?;
        Ok(Reservation {
            admission: self,
            kept: false,
        })
    }

    /// A match left: its slot is free.
    pub(super) fn release(&self) {
        if !self.counted_by_store {
            self.reserved.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// The error at the limit.
    pub(super) fn full(&self) -> ApiError {
        ApiError::ResourceExhausted(format!(
            "the server holds its limit of {} matches; ended matches leave after their \
             retention period",
            self.max
        ))
    }
}
