//! `Engine.BotAction`: the move a bot chooses for a seat at a state the caller keeps, under
//! the limits the server's bot seats have (the same [`BotLimits`], checked by the same
//! [`bot_for`], and the same move time). Blocking work: the caller runs it off the async
//! runtime.

use std::time::{Duration, Instant};

use cardhouse::{AnyState, Player, SeededRng};

use crate::convert::decode_state;
use crate::error::ApiError;
use crate::matches::{BotLimits, bot_for};
use crate::pb;

/// `BotAction`: decodes the state, checks the seat against it and the bot against
/// `limits` (as a bot seat of a new match is checked), and asks the bot (seeded from the
/// request; stopped early once `move_time` has passed or `cancelled` says the client went
/// away).
///
/// # Errors
/// `INVALID_ARGUMENT` for a state that does not decode, an unknown bot name, a bot over a
/// limit (naming the limit's flag and value), a policy of another game or a seat that does
/// not exist; `FAILED_PRECONDITION` if the seat (or anyone) is not to act; `CANCELLED` if
/// the client went away.
pub fn bot_action(
    req: &pb::BotActionRequest,
    limits: BotLimits,
    move_time: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<pb::BotActionResponse, ApiError> {
    let state = decode_state(&req.state)?;
    let seat = seat_to_act(&state, req.seat)?;
    let bot = bot_for(&req.bot, &state.game(), limits)?;
    let deadline = Instant::now() + move_time;
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
