//! `Engine.BotAction`: the move a bot chooses for a seat at a state the caller keeps, under
//! the limits the server's bot seats have ([`BotLimits`]). Blocking work: the caller runs
//! it off the async runtime.

use std::time::{Duration, Instant};

use cardhouse::bots::{BotKind, RolloutConfig};
use cardhouse::{AnyState, Player, SeededRng};

use crate::convert::decode_state;
use crate::error::ApiError;
use crate::pb;

/// How much thinking one bot move may take: the limits of the server's bot seats
/// (`--max-ismcts-iterations`, `--bot-move-ms`) and of rollouts (`--max-rollout-playouts`).
#[derive(Clone, Debug)]
pub struct BotLimits {
    /// Most IS-MCTS iterations a move; `ismcts:N` above it is refused, and `ismcts` (the
    /// game's default) is held to it.
    pub max_ismcts_iterations: u32,
    /// Most playouts of a rollout bot's move; `rollout:N` above it is refused (each
    /// determinization plays at least one), and a move with many plans samples fewer
    /// determinizations (at least one).
    pub max_rollout_playouts: u32,
    /// Most time a bot thinks about a move; a search then plays its best move so far.
    pub move_time: Duration,
}

impl Default for BotLimits {
    fn default() -> Self {
        BotLimits {
            max_ismcts_iterations: 100_000,
            max_rollout_playouts: 10_000,
            move_time: Duration::from_secs(10),
        }
    }
}

/// `BotAction`: decodes the state, checks the bot against `limits` and the seat against the
/// state, and asks the bot (seeded from the request; stopped early once `limits.move_time`
/// has passed or `cancelled` says the client went away).
///
/// # Errors
/// `INVALID_ARGUMENT` for a state that does not decode, an unknown bot name, a bot over a
/// limit, a policy of another game or a seat that does not exist; `FAILED_PRECONDITION` if
/// the seat (or anyone) is not to act; `CANCELLED` if the client went away.
pub fn bot_action(
    req: &pb::BotActionRequest,
    limits: &BotLimits,
    cancelled: &dyn Fn() -> bool,
) -> Result<pb::BotActionResponse, ApiError> {
    let state = decode_state(&req.state)?;
    let seat = seat_to_act(&state, req.seat)?;
    let bot: BotKind = req.bot.parse()?;
    let bot = held(bot, &state, seat, limits)?;
    bot.check_game(&state.game())?;
    let deadline = Instant::now() + limits.move_time;
    let mut stop = || cancelled() || Instant::now() >= deadline;
    let action = state.bot_action(&bot, seat, &mut SeededRng::new(req.seed), &mut stop)?;
    if cancelled() {
        return Err(ApiError::Cancelled);
    }
    Ok(pb::BotActionResponse {
        action_id: Some(action),
        action_text: state.action_to_string(action),
        seat: Some(seat as u32),
    })
}

/// The seat to decide for: `asked`, which must be to act, or else the seat to act.
fn seat_to_act(state: &AnyState, asked: Option<u32>) -> Result<usize, ApiError> {
    let n = state.game().num_players();
    if let Some(s) = asked
        && s as usize >= n
    {
        return Err(cardhouse::Error::InvalidSeat {
            seat: i64::from(s),
            last: n - 1,
        }
        .into());
    }
    let to_act = match state.current_player() {
        Player::Seat(s) => s,
        Player::Chance => {
            return Err(cardhouse::Error::WrongNode(
                "no seat is to act: a chance event is pending (resolve it with ApplyChance)".into(),
            )
            .into());
        }
        Player::Terminal => return Err(cardhouse::Error::GameOver.into()),
    };
    match asked {
        Some(s) if s as usize != to_act => Err(cardhouse::Error::WrongNode(format!(
            "seat {s} is not to act: seat {to_act} is"
        ))
        .into()),
        _ => Ok(to_act),
    }
}

/// `bot` held to `limits` for a move of `seat` at `state`.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the limit and this server's value if the bot asks for more.
fn held(
    bot: BotKind,
    state: &AnyState,
    seat: usize,
    limits: &BotLimits,
) -> Result<BotKind, ApiError> {
    Ok(match bot {
        BotKind::Ismcts(mut config) => {
            let max = limits.max_ismcts_iterations;
            if config.iterations == 0 {
                config.iterations = state.game().default_ismcts_iterations().min(max).max(1);
            } else if config.iterations > max {
                return Err(ApiError::InvalidArgument(format!(
                    "`bot` ismcts:{} asks for {} IS-MCTS iterations a move; this server allows \
                     at most {max} (--max-ismcts-iterations)",
                    config.iterations, config.iterations
                )));
            }
            BotKind::Ismcts(config)
        }
        BotKind::Rollout(config) => {
            let max = limits.max_rollout_playouts;
            if config.samples > max {
                return Err(ApiError::InvalidArgument(format!(
                    "`bot` rollout:{} asks for {} determinizations a move, each at least one \
                     playout; this server allows at most {max} playouts a move \
                     (--max-rollout-playouts)",
                    config.samples, config.samples
                )));
            }
            BotKind::Rollout(within_playouts(config, state, seat, max))
        }
        other => other,
    })
}

/// A rollout bot's `config` held to `max` playouts for a move of `seat` at `state`: its
/// determinizations each play every plan of the seat out once, so it runs as a budget of
/// `samples × plans` playouts, at most `max` (the engine's `playouts` budget, which it
/// shares out among the plans it finds: the same determinizations as `samples` when that
/// is within `max`, fewer when not, at least one).
fn within_playouts(
    config: RolloutConfig,
    state: &AnyState,
    seat: usize,
    max: u32,
) -> RolloutConfig {
    let plans = plans(state, seat, config.depth);
    let wanted = u64::from(config.samples.max(1)) * plans;
    RolloutConfig {
        playouts: u32::try_from(wanted.min(u64::from(max))).unwrap_or(max),
        ..config
    }
}

/// The plans the rollout bot weighs for `seat` (to act) at `state`: each legal action, and
/// where the seat acts again right after it (plans of up to `depth` actions, two at most),
/// each of its next legal actions after it. Counted on the real state: the seat's own
/// actions are the same in every determinization of what it knows.
fn plans(state: &AnyState, seat: usize, depth: u8) -> u64 {
    state
        .legal_actions()
        .iter()
        .map(|a| {
            let mut after = state.clone();
            after.apply_unchecked(a);
            if depth >= 2 && after.current_player() == Player::Seat(seat) {
                after.legal_actions().len() as u64
            } else {
                1
            }
        })
        .sum::<u64>()
        .max(1)
}
