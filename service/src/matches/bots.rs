//! Which moves bots and chance make: the bot of each seat, and [`advance`], which plays
//! them on a copy of a match, each choice seeded from the match's seed and move number.

use std::time::Instant;

use cardhouse::bots::{BotKind, IsmctsConfig};
use cardhouse::{AnyGame, Player, Rng, SeededRng};

use crate::clock::now_ms;
use crate::domain::{BotSeat, MatchStatus, Seat};
use crate::engine_service::mix;
use crate::matches::model::{Change, Live, Meta, Moves, apply_counted};

/// Salt that separates bot choices from chance draws of the same move number.
const BOT_SALT: u64 = 0xB07B_07B0_7B07_B07B;

/// The bot playing each seat (`None` for humans) of a match of `game` whose IS-MCTS bots
/// ask for `ismcts_iterations` a move (0: the game's default), held to `max_iterations`.
pub(super) fn seat_bots(
    seats: &[Seat],
    game: &AnyGame,
    ismcts_iterations: u32,
    max_iterations: u32,
) -> Vec<Option<BotKind>> {
    let asked = match ismcts_iterations {
        0 => game.default_ismcts_iterations(),
        n => n,
    };
    let iterations = asked.min(max_iterations).max(1);
    seats
        .iter()
        .map(|k| match k {
            Seat::Bot(BotSeat::Random) => Some(BotKind::Random),
            Seat::Bot(BotSeat::Heuristic) => Some(BotKind::Heuristic),
            Seat::Bot(BotSeat::Ismcts) => Some(BotKind::Ismcts(IsmctsConfig {
                iterations,
                ..IsmctsConfig::default()
            })),
            Seat::Human => None,
        })
        .collect()
}

/// How much [`advance`] may do in one call.
pub(super) struct Chunk<'a> {
    /// Most actions.
    pub(super) max_actions: usize,
    /// When to stop (checked before each slow bot move and every 64 other actions).
    pub(super) deadline: Option<Instant>,
    /// Whether slow bots (IS-MCTS) may move: only on the bot workers.
    pub(super) expensive: bool,
    /// The match's length limit: no action is added once the history holds this many.
    pub(super) max_total: u64,
    /// Asked during a slow bot's search: true to make it play its best move so far (its
    /// match ended, the server stops, or the move's time is up). `None`: never.
    pub(super) stop: Option<&'a mut dyn FnMut() -> bool>,
}

impl Chunk<'_> {
    /// A chunk for a request thread: cheap bots and chance only, up to `max_actions`.
    pub(super) fn inline(max_actions: usize, max_total: u64) -> Chunk<'static> {
        Chunk {
            max_actions,
            deadline: None,
            expensive: false,
            max_total,
            stop: None,
        }
    }
}

/// Applies chance and bot moves until a human seat is to move, the match ends, or the
/// chunk is spent. Returns true if bots or chance still have moves to make (false too when
/// the match reached its length limit: the caller ends it, see [`enforce_length`]).
///
/// Every choice is seeded from (match seed, move number), so a restarted server, or another
/// replica, plays on exactly as this one would have (unless a slow bot's move ran out of
/// time: then the move played is its best so far).
pub(super) fn advance(
    meta: &Meta,
    live: &mut Live,
    moves: &mut Moves,
    chunk: &mut Chunk<'_>,
) -> bool {
    let mut done = 0usize;
    let mut never = || false;
    loop {
        let state = &live.state;
        if state.move_number() as u64 >= chunk.max_total {
            return false;
        }
        let bot = match state.current_player() {
            Player::Terminal => {
                live.status = MatchStatus::Finished;
                return false;
            }
            Player::Chance => None,
            Player::Seat(s) => match meta.bots.get(s) {
                Some(Some(bot)) => Some((s, bot)),
                _ => return false,
            },
        };
        let slow = matches!(bot, Some((_, BotKind::Ismcts(_))));
        if done >= chunk.max_actions
            || (slow && !chunk.expensive)
            || chunk
                .deadline
                .is_some_and(|d| (slow || done.is_multiple_of(64)) && Instant::now() >= d)
        {
            return true;
        }
        done += 1;
        let action = match bot {
            None => {
                let mut rng = SeededRng::new(mix(meta.seed, state.move_number() as u64));
                // 53 random bits as a uniform float in [0, 1).
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                state.chance_outcome_at(u).ok()
            }
            Some((s, bot)) => {
                let mut rng = SeededRng::new(mix(meta.seed ^ BOT_SALT, state.move_number() as u64));
                match bot {
                    // As before bots of other kinds existed: the same moves for old matches.
                    BotKind::Random => state.legal_actions().choose(&mut rng),
                    _ => {
                        let thinking = Instant::now();
                        let chosen = state.bot_action(
                            bot,
                            s,
                            &mut rng,
                            stop_of(&mut chunk.stop, &mut never),
                        );
                        crate::metrics::bot_think_seconds(
                            &meta.game.name,
                            bot.name(),
                            thinking.elapsed(),
                        );
                        match chosen {
                            Ok(a) => Some(a),
                            Err(e) => {
                                tracing::error!(match_id = %meta.id, seat = s, error = %e, "a bot failed");
                                None
                            }
                        }
                    }
                }
            }
        };
        let Some(action) = action else {
            // No action at a non-terminal node would be a bug; stop here rather than loop
            // (the match stays as it is).
            tracing::error!(match_id = %meta.id, "no action available at a non-terminal state");
            return false;
        };
        // Cannot fail: unchecked.
        let _ = apply_counted(live, action, false, moves);
    }
}

/// The stop callback of a chunk, or `never` if it has none.
fn stop_of<'a>(
    stop: &'a mut Option<&mut dyn FnMut() -> bool>,
    never: &'a mut dyn FnMut() -> bool,
) -> &'a mut dyn FnMut() -> bool {
    match stop {
        Some(s) => &mut **s,
        None => never,
    }
}

/// Ends `live` if it reached the match length limit `max_total` while active: aborted, with
/// an event saying why. Returns true if it did.
pub(super) fn enforce_length(live: &mut Live, moves: &mut Moves, max_total: u64) -> bool {
    if live.status != MatchStatus::Active || (live.state.move_number() as u64) < max_total {
        return false;
    }
    live.status = MatchStatus::Aborted;
    live.ended_at_ms = now_ms();
    if moves.record {
        moves.changes.push(Change::Ended {
            after: live.clone(),
            text: format!(
                "the match was aborted: it reached the server's limit of {max_total} actions"
            ),
        });
    }
    true
}
