//! Which moves bots and chance make: the bot of each seat, and [`advance`], which plays
//! them on a copy of a match, each choice seeded from the match's seed and move number.

use std::time::Instant;

use cardhouse::bots::{BotKind, IsmctsConfig};
use cardhouse::{Player, Rng, SeededRng};

use crate::engine_service::mix;
use crate::matches::model::{Live, Meta, Moves, apply_counted};
use crate::pb;

/// Salt that separates bot choices from chance draws of the same move number.
const BOT_SALT: u64 = 0xB07B_07B0_7B07_B07B;

/// The bot playing each seat (`None` for humans).
pub(super) fn seat_bots(seats: &[pb::SeatKind], ismcts_iterations: u32) -> Vec<Option<BotKind>> {
    seats
        .iter()
        .map(|k| match k {
            pb::SeatKind::RandomBot => Some(BotKind::Random),
            pb::SeatKind::HeuristicBot => Some(BotKind::Heuristic),
            pb::SeatKind::IsmctsBot => Some(BotKind::Ismcts(IsmctsConfig {
                // 0: the game's default.
                iterations: ismcts_iterations,
                ..IsmctsConfig::default()
            })),
            pb::SeatKind::Human | pb::SeatKind::Unspecified => None,
        })
        .collect()
}

/// Applies chance and bot moves until a human seat is to move, the match ends, or the
/// budget (`max_actions`, and `deadline` if given) is spent. IS-MCTS bots (milliseconds a
/// move) play only when `expensive` is set, which only the background driver does, on a
/// blocking thread. Returns true if bots or chance still have moves to make.
///
/// Every choice is seeded from (match seed, move number), so a restarted server, or another
/// replica, plays on exactly as this one would have.
pub(super) fn advance(
    meta: &Meta,
    live: &mut Live,
    moves: &mut Moves,
    max_actions: usize,
    deadline: Option<Instant>,
    expensive: bool,
) -> bool {
    let mut done = 0usize;
    loop {
        let state = &live.state;
        let bot = match state.current_player() {
            Player::Terminal => {
                live.status = pb::MatchStatus::Finished;
                return false;
            }
            Player::Chance => None,
            Player::Seat(s) => match meta.bots.get(s) {
                Some(Some(bot)) => Some((s, bot)),
                _ => return false,
            },
        };
        let slow = matches!(bot, Some((_, BotKind::Ismcts(_))));
        if done >= max_actions
            || (slow && !expensive)
            || deadline.is_some_and(|d| (slow || done.is_multiple_of(64)) && Instant::now() >= d)
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
                        let chosen = state.bot_action(bot, s, &mut rng, &mut || false);
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
