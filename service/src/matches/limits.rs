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
    /// If set, the operator credential (`--operator-token`): the admin service takes it,
    /// and a CreateMatch carrying it may create any match.
    pub operator_token: Option<String>,
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
    /// Threads that play bots in the background, shared by every match (`--bot-workers`).
    pub bot_workers: usize,
    /// Most IS-MCTS iterations a bot may spend on one move, whatever its match asks
    /// (`CreateMatch` refuses more; a stored match asking more is held to this).
    pub max_ismcts_iterations: u32,
    /// Most determinizations a `rollout` bot may spend on one move (`--max-rollout-samples`;
    /// `CreateMatch` refuses more, a stored match asking more is held to it).
    pub max_rollout_samples: u32,
    /// Most worlds a `pimc` bot may solve for one move (`--max-pimc-worlds`; `CreateMatch`
    /// refuses more, a stored match asking more is held to it).
    pub max_pimc_worlds: u32,
    /// Most time a bot may think about one move; the search then plays its best move so far.
    pub bot_move_time: Duration,
    /// Most actions (chance, bots and seats alike) in one match: a match that reaches it is
    /// aborted, so no match costs more than this many moves of work.
    pub max_match_actions: u64,
    /// Whether a match whose every seat is a bot may be created, and by whom.
    pub all_bot_matches: AllBotMatches,
}

/// Who may create a match whose every seat is a bot (`--all-bot-matches`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllBotMatches {
    /// Anyone who may create a match.
    Allow,
    /// Only a request carrying the operator credential (`--operator-token`): a platform's
    /// back end may create bot matches, its players may not. Without an operator
    /// credential configured, nobody.
    Operator,
    /// Nobody.
    Deny,
}

impl Default for MatchLimits {
    fn default() -> Self {
        MatchLimits {
            max_matches: 100_000,
            max_watchers_per_match: 64,
            create_token: None,
            operator_token: None,
            retention: Duration::from_secs(7 * 24 * 3600),
            abandon_after: Duration::from_secs(30 * 24 * 3600),
            max_response_bytes: 16 * 1024 * 1024,
            inline_bot_actions: 256,
            bot_chunk_budget: Duration::from_millis(50),
            bot_workers: std::thread::available_parallelism().map_or(1, usize::from),
            max_ismcts_iterations: 100_000,
            max_rollout_samples: 10_000,
            max_pimc_worlds: 1_000,
            bot_move_time: Duration::from_secs(10),
            max_match_actions: 100_000,
            all_bot_matches: AllBotMatches::Allow,
        }
    }
}

impl MatchLimits {
    /// The limits on a bot's work per move.
    #[must_use]
    pub fn bot_limits(&self) -> crate::matches::seats::BotLimits {
        crate::matches::seats::BotLimits {
            max_ismcts_iterations: self.max_ismcts_iterations,
            max_rollout_samples: self.max_rollout_samples,
            max_pimc_worlds: self.max_pimc_worlds,
        }
    }
}
