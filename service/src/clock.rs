//! The wall clock, in the one unit the stores and the match service keep (retention and
//! abandonment survive restarts, so they are measured in Unix time, not `Instant`s).

use std::time::SystemTime;

/// The wall clock in Unix milliseconds (0 if the clock is before 1970).
#[must_use]
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
