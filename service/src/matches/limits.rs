//! The limits of the Matches service ([`MatchLimits`]), which the server's flags set.

use std::time::Duration;

/// Limits of the Matches service.
#[derive(Clone, Debug)]
pub struct MatchLimits {
    /// Most matches held (finished ones included until their retention ends). Exact under
    /// concurrency: a slot is reserved before a match is created.
    pub max_matches: usize,
    /// Most concurrent Watch streams per match.
    pub max_watchers_per_match: usize,
    /// If set, CreateMatch needs `authorization: Bearer <this>`.
    pub create_token: Option<String>,
    /// How long a finished, resigned or aborted match stays (its record fetchable) before
    /// it leaves memory and the store.
    pub retention: Duration,
    /// How long an active match may go without any accepted request before it is aborted
    /// as abandoned (and then kept for `retention` like any ended match).
    pub abandon_after: Duration,
    /// Largest response message; GetRecord pages its steps to fit.
    pub max_response_bytes: usize,
    /// Bot and chance actions one request may apply on the runtime's worker thread; beyond
    /// that the match is played on by a background task, on a blocking thread, in chunks.
    pub inline_bot_actions: usize,
    /// Time budget of one chunk of bot and chance actions in the background.
    pub bot_chunk_budget: Duration,
}

impl Default for MatchLimits {
    fn default() -> Self {
        MatchLimits {
            max_matches: 100_000,
            max_watchers_per_match: 64,
            create_token: None,
            retention: Duration::from_secs(7 * 24 * 3600),
            abandon_after: Duration::from_secs(30 * 24 * 3600),
            max_response_bytes: 16 * 1024 * 1024,
            inline_bot_actions: 256,
            bot_chunk_budget: Duration::from_millis(50),
        }
    }
}
