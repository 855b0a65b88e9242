//! The clocks in the API's terms: a `CreateMatch` request's time control checked
//! ([`time_control_of`]), and the clocks as every viewer may see them ([`clock_view`]).

use cardhouse::AnyGame;
use cardhouse::bots::BotKind;

use crate::error::ApiError;
use crate::matches::model::{Live, Meta};
use crate::matches::seats::{BotLimits, bot_for};
use crate::matches::table::{TimeControl, TimeoutPolicy, banks_at};
use crate::pb;

/// The stand-in bot when the request names none.
pub(super) const DEFAULT_STAND_IN: &str = "heuristic";

/// Timeouts in a row after which a seat is away, when the request does not say.
const DEFAULT_AWAY_AFTER: u32 = 2;

/// Most milliseconds of a time per move or a bank (a day).
const MAX_MS: u64 = 86_400_000;

/// Least milliseconds of a time per move or a bank.
const MIN_MS: u64 = 1_000;

/// Most milliseconds of an increment (an hour).
const MAX_INCREMENT_MS: u64 = 3_600_000;

/// The time control a request asks for (`None`: no clock), its stand-in bot and that bot's
/// name, checked: the times in range, the bot known, able to play `game` and within
/// `limits`.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field, its value and what is allowed.
pub(super) fn time_control_of(
    asked: Option<&pb::TimeControl>,
    game: &AnyGame,
    limits: BotLimits,
) -> Result<(Option<TimeControl>, BotKind, String), ApiError> {
    let Some(c) = asked else {
        let bot = bot_for(DEFAULT_STAND_IN, game, limits)?;
        return Ok((None, bot, DEFAULT_STAND_IN.to_owned()));
    };
    let in_range = |field: &str, v: u64| {
        if v == 0 || (MIN_MS..=MAX_MS).contains(&v) {
            Ok(())
        } else {
            Err(ApiError::InvalidArgument(format!(
                "`time_control.{field}` {v} is out of range: give {MIN_MS} to {MAX_MS} \
                 milliseconds, or 0 for none"
            )))
        }
    };
    in_range("move_ms", c.move_ms)?;
    in_range("bank_ms", c.bank_ms)?;
    if c.move_ms == 0 && c.bank_ms == 0 {
        return Err(ApiError::InvalidArgument(
            "`time_control` needs `move_ms` (a time per move), `bank_ms` (a bank per seat) \
             or both; leave `time_control` unset for a match without a clock"
                .into(),
        ));
    }
    if c.increment_ms > MAX_INCREMENT_MS {
        return Err(ApiError::InvalidArgument(format!(
            "`time_control.increment_ms` {} is out of range: give 0 to {MAX_INCREMENT_MS}",
            c.increment_ms
        )));
    }
    if c.increment_ms > 0 && c.bank_ms == 0 {
        return Err(ApiError::InvalidArgument(format!(
            "`time_control.increment_ms` {} needs a bank (`bank_ms`): the increment is added \
             to a seat's bank after each of its moves",
            c.increment_ms
        )));
    }
    let on_timeout = match pb::TimeoutPolicy::try_from(c.on_timeout) {
        Ok(pb::TimeoutPolicy::Unspecified | pb::TimeoutPolicy::Bot) => TimeoutPolicy::Bot,
        Ok(pb::TimeoutPolicy::Resign) => TimeoutPolicy::Resign,
        Ok(pb::TimeoutPolicy::Abort) => TimeoutPolicy::Abort,
        Err(_) => {
            return Err(ApiError::InvalidArgument(format!(
                "`time_control.on_timeout` {} is not a policy: TIMEOUT_POLICY_BOT, \
                 TIMEOUT_POLICY_RESIGN or TIMEOUT_POLICY_ABORT",
                c.on_timeout
            )));
        }
    };
    let away_after = c.away_after.unwrap_or(DEFAULT_AWAY_AFTER);
    if away_after > 100 {
        return Err(ApiError::InvalidArgument(format!(
            "`time_control.away_after` {away_after} is out of range: give 0 (never away) to 100"
        )));
    }
    let name = match c.timeout_bot.trim() {
        "" => DEFAULT_STAND_IN,
        name => name,
    };
    let bot = bot_for(name, game, limits)
        .map_err(|e| ApiError::InvalidArgument(format!("`time_control.timeout_bot`: {e}")))?;
    let control = TimeControl {
        move_ms: c.move_ms,
        bank_ms: c.bank_ms,
        increment_ms: c.increment_ms,
        on_timeout,
        away_after,
    };
    Ok((Some(control), bot, name.to_owned()))
}

/// A match's time control as the API words it.
pub(super) fn control_pb(c: &TimeControl, stand_in: &str) -> pb::TimeControl {
    pb::TimeControl {
        move_ms: c.move_ms,
        bank_ms: c.bank_ms,
        increment_ms: c.increment_ms,
        on_timeout: match c.on_timeout {
            TimeoutPolicy::Bot => pb::TimeoutPolicy::Bot,
            TimeoutPolicy::Resign => pb::TimeoutPolicy::Resign,
            TimeoutPolicy::Abort => pb::TimeoutPolicy::Abort,
        } as i32,
        timeout_bot: stand_in.to_owned(),
        away_after: Some(c.away_after),
    }
}

/// The clocks of a match with a time control, at the server's time `now` (the same for
/// every viewer: the clocks are public).
pub(super) fn clock_view(meta: &Meta, live: &Live, now: u64) -> Option<pb::ClockView> {
    let control = meta.time.as_ref()?;
    let table = live.table.as_ref()?;
    Some(pb::ClockView {
        seat: table.clock.map(|(s, _)| s as u32),
        deadline_ms: table.clock.map_or(0, |(_, d)| d),
        bank_ms: banks_at(table, now),
        server_now_ms: now,
        control: Some(control_pb(control, &meta.stand_in_name)),
    })
}

/// Whether each seat is away, by seat (empty if no seat ever was and the match has no
/// clock).
pub(super) fn away_view(live: &Live) -> Vec<bool> {
    live.table
        .as_ref()
        .map(|t| t.away.clone())
        .unwrap_or_default()
}
