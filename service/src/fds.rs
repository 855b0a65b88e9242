//! File descriptors: at start the server raises its soft `RLIMIT_NOFILE` to the hard limit,
//! and keeps `--max-connections` below what it can then hold, so that a flood of
//! connections meets the connection limit (and is handled: see [`crate::connections`])
//! instead of the descriptor limit (where `accept` fails and new clients wait in the
//! kernel's queue, served by nobody).
//!
//! Every client connection is one descriptor. The rest of the process needs
//! [`RESERVED`] at most, with a wide margin: standard input, output and error (3); the
//! runtime's epoll and wake-up descriptors (2-3); the signal handlers' pipe (2); the listener
//! (1); the data directory's database and move log (2), plus while opening it the
//! directory, a repaired copy of the database and the new log (3); the `--addr-file` being
//! written (1); one accepted connection beyond the limit, held only until it is closed (1):
//! about 16. A PostgreSQL store adds its pool (`--store-pool-size`) and two connections (one
//! listening for change notices, one sending them), and one more while migrating.

/// Descriptors kept for everything but client connections (about 16 used; see the module
/// docs), before a PostgreSQL store's connections.
pub const RESERVED: u64 = 64;

/// Raises the soft `RLIMIT_NOFILE` to the hard limit (to 2^20 if the hard limit is
/// unlimited) and returns the soft limit in force afterwards (`None`: unlimited, or not
/// known on this platform). If raising fails, the limit stays as it was.
#[must_use]
pub fn raise_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let now = getrlimit(Resource::Nofile);
        let target = now.maximum.unwrap_or(1 << 20);
        if now.current.is_some_and(|soft| soft < target) {
            let raised = Rlimit {
                current: Some(target),
                maximum: now.maximum,
            };
            if let Err(e) = setrlimit(Resource::Nofile, raised) {
                tracing::warn!(error = %e, soft = now.current, hard = now.maximum, "cannot raise the file descriptor limit");
            }
        }
        getrlimit(Resource::Nofile).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The connection limit to serve with: `requested`, or less if `limit` descriptors (`None`:
/// unlimited) cannot hold it besides the `reserved` ones (then at least one connection, and
/// at most half the descriptors kept for the rest).
#[must_use]
pub fn max_connections(requested: usize, limit: Option<u64>, reserved: u64) -> usize {
    let Some(limit) = limit else {
        return requested;
    };
    let room = limit.saturating_sub(reserved.min(limit / 2)).max(1);
    requested.min(usize::try_from(room).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_keeps_room_for_the_rest() {
        assert_eq!(max_connections(4096, Some(256), RESERVED), 192);
        assert_eq!(max_connections(4096, Some(256), RESERVED + 18), 174);
        assert_eq!(max_connections(100, Some(256), RESERVED), 100);
        assert_eq!(max_connections(4096, None, RESERVED), 4096);
        assert_eq!(max_connections(4096, Some(1_048_576), RESERVED), 4096);
        // A tiny limit: half of it for connections, at least one.
        assert_eq!(max_connections(4096, Some(40), RESERVED), 20);
        assert_eq!(max_connections(4096, Some(1), RESERVED), 1);
        assert_eq!(max_connections(4096, Some(0), RESERVED), 1);
    }
}
