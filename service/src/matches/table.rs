//! The table around a match: the human seats' clocks (a time per move and/or a bank per seat
//! with an increment, Fischer), what happens when one runs out (the match's timeout
//! policy), and the seats that are away (their stand-in bot plays their turns at once).
//!
//! The server's clock alone decides: a seat's turn starts when the change that made it the
//! seat to move is committed (its deadline is part of that change, stored with the match),
//! an `Act` at or after the deadline is refused, and the timeout is played by the server
//! (`timeouts.rs`) within about a second of the deadline, on whichever process
//! or replica holds the match. A match without a time control has no table until a seat
//! says it is away.

use cardhouse::bots::BotKind;
use cardhouse::{AnyState, Player};

use crate::store::{StandInRecord, TableRecord};

/// What happens when a seat's clock runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TimeoutPolicy {
    /// The match's stand-in bot plays the move for the seat (the default).
    Bot,
    /// The seat loses as if it had resigned (status timed out, naming the seat).
    Resign,
    /// The match is aborted.
    Abort,
}

impl TimeoutPolicy {
    /// The stored code (frozen).
    #[must_use]
    pub(super) const fn code(self) -> i32 {
        match self {
            TimeoutPolicy::Bot => 1,
            TimeoutPolicy::Resign => 2,
            TimeoutPolicy::Abort => 3,
        }
    }

    /// The policy a stored code stands for.
    #[must_use]
    pub(super) const fn from_code(code: i32) -> Option<TimeoutPolicy> {
        match code {
            1 => Some(TimeoutPolicy::Bot),
            2 => Some(TimeoutPolicy::Resign),
            3 => Some(TimeoutPolicy::Abort),
            _ => None,
        }
    }
}

/// A match's time control for its human seats (fixed at creation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TimeControl {
    /// Most milliseconds for one move (0: no limit per move).
    pub(super) move_ms: u64,
    /// Each seat's bank at the start (0: no bank).
    pub(super) bank_ms: u64,
    /// Added to a seat's bank after each of its moves.
    pub(super) increment_ms: u64,
    pub(super) on_timeout: TimeoutPolicy,
    /// Timeouts in a row after which a seat is away (0: never).
    pub(super) away_after: u32,
}

/// Why a bot played a move for a human seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StandInReason {
    /// The seat's clock ran out.
    Timeout,
    /// The seat was away.
    Away,
}

impl StandInReason {
    const fn code(self) -> i32 {
        match self {
            StandInReason::Timeout => 1,
            StandInReason::Away => 2,
        }
    }

    const fn from_code(code: i32) -> Option<StandInReason> {
        match code {
            1 => Some(StandInReason::Timeout),
            2 => Some(StandInReason::Away),
            _ => None,
        }
    }
}

/// A move the stand-in bot played for a human seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StandIn {
    /// Its index in the history.
    pub(super) index: u64,
    pub(super) seat: usize,
    pub(super) reason: StandInReason,
    /// The seat's move number before the move.
    pub(super) known: u64,
}

/// The changing part of the table: the clock of the seat to move, the banks, the timeouts
/// in a row, who is away, and the moves bots played for human seats.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Table {
    /// The seat whose move the clock times, and when its time runs out (Unix ms).
    pub(super) clock: Option<(usize, u64)>,
    /// When that seat's turn started (Unix ms).
    pub(super) turn_started_ms: u64,
    /// Each seat's bank as of the start of its last turn (empty without banks).
    pub(super) banks_ms: Vec<u64>,
    /// Each seat's timeouts in a row.
    pub(super) timeouts: Vec<u32>,
    /// Each seat away or not.
    pub(super) away: Vec<bool>,
    /// The seat whose clock ran out, whose turn the stand-in bot is to play (once).
    pub(super) covering: Option<usize>,
    pub(super) stand_ins: Vec<StandIn>,
}

impl Table {
    /// A fresh table of `seats` seats under `control`.
    #[must_use]
    pub(super) fn new(seats: usize, control: Option<&TimeControl>) -> Table {
        Table {
            clock: None,
            turn_started_ms: 0,
            banks_ms: match control {
                Some(c) if c.bank_ms > 0 => vec![c.bank_ms; seats],
                _ => Vec::new(),
            },
            timeouts: vec![0; seats],
            away: vec![false; seats],
            covering: None,
            stand_ins: Vec::new(),
        }
    }

    /// Whether `seat` is away.
    #[must_use]
    pub(super) fn is_away(&self, seat: usize) -> bool {
        self.away.get(seat).copied().unwrap_or(false)
    }

    /// Whether the stand-in bot plays `seat`'s turns now: it is away, or its clock ran out.
    #[must_use]
    pub(super) fn stood_in(&self, seat: usize) -> bool {
        self.is_away(seat) || self.covering == Some(seat)
    }

    /// Records a move the stand-in played for human `seat` (history index `index`, the
    /// seat's move number `known` before it): for a timeout if its clock had run out (the
    /// stand-in then no longer covers it), else for an away seat.
    pub(super) fn stood_in_for(&mut self, seat: usize, index: u64, known: u64) {
        let reason = if self.covering == Some(seat) {
            self.covering = None;
            StandInReason::Timeout
        } else {
            StandInReason::Away
        };
        self.stand_ins.push(StandIn {
            index,
            seat,
            reason,
            known,
        });
    }

    /// The deadline of `seat`'s move, if the clock runs for it.
    #[must_use]
    pub(super) fn deadline_of(&self, seat: usize) -> Option<u64> {
        self.clock.filter(|&(s, _)| s == seat).map(|(_, d)| d)
    }
}

/// The time `seat` has for its move now: the time per move, the bank, or the smaller.
fn allowance(control: &TimeControl, table: &Table, seat: usize) -> u64 {
    let bank = (control.bank_ms > 0).then(|| table.banks_ms.get(seat).copied().unwrap_or(0));
    match (control.move_ms, bank) {
        (0, Some(bank)) => bank,
        (per_move, Some(bank)) => per_move.min(bank),
        (per_move, None) => per_move,
    }
}

/// Charges `seat` the time its move took (it moved at `now`): its bank, less the time, plus
/// the increment; its timeouts in a row start again.
pub(super) fn moved(control: Option<&TimeControl>, table: &mut Table, seat: usize, now: u64) {
    if let Some(control) = control
        && control.bank_ms > 0
        && let Some(bank) = table.banks_ms.get_mut(seat)
    {
        let took = now.saturating_sub(table.turn_started_ms);
        *bank = bank
            .saturating_sub(took)
            .saturating_add(control.increment_ms);
    }
    if let Some(t) = table.timeouts.get_mut(seat) {
        *t = 0;
    }
}

/// Charges `seat`, whose clock ran out, its whole allowance (its bank, less the time it
/// had) and counts the timeout. Returns true if the seat is now away (its timeouts in a
/// row reached the control's `away_after`).
pub(super) fn timed_out(control: &TimeControl, table: &mut Table, seat: usize) -> bool {
    let had = allowance(control, table, seat);
    if control.bank_ms > 0
        && let Some(bank) = table.banks_ms.get_mut(seat)
    {
        *bank = bank.saturating_sub(had);
    }
    let Some(t) = table.timeouts.get_mut(seat) else {
        return false;
    };
    *t = t.saturating_add(1);
    let now_away = control.away_after > 0 && *t >= control.away_after && !table.is_away(seat);
    if now_away {
        table.away[seat] = true;
    }
    now_away
}

/// Each seat's bank as a viewer is shown it at `now`: the running seat's counted down.
#[must_use]
pub(super) fn banks_at(table: &Table, now: u64) -> Vec<u64> {
    let mut banks = table.banks_ms.clone();
    if let Some((seat, _)) = table.clock
        && let Some(bank) = banks.get_mut(seat)
    {
        *bank = bank.saturating_sub(now.saturating_sub(table.turn_started_ms));
    }
    banks
}

/// Starts or stops the clock after a change that leaves `state` (of a match whose seats
/// have `bots`, `active` or not) to move: a human seat that is not away and is to move gets
/// its allowance from `now` (a new turn when `moved`: the change applied actions, or the
/// clock ran for another seat); otherwise no clock runs.
pub(super) fn settle(
    control: Option<&TimeControl>,
    bots: &[Option<BotKind>],
    state: &AnyState,
    active: bool,
    table: &mut Table,
    moved: bool,
    now: u64,
) {
    let to_move = match state.current_player() {
        Player::Seat(s)
            if active && bots.get(s).is_some_and(Option::is_none) && !table.stood_in(s) =>
        {
            Some(s)
        }
        _ => None,
    };
    match (to_move, control) {
        (Some(s), Some(control)) => {
            let same = table.clock.is_some_and(|(c, _)| c == s);
            if moved || !same {
                table.turn_started_ms = now;
                table.clock = Some((s, now.saturating_add(allowance(control, table, s))));
            }
        }
        _ => table.clock = None,
    }
}

/// The bots that play each seat now: the match's `bots`, and `stand_in` on every seat it
/// stands in for (away, or whose clock ran out); `None` if it stands in for none.
#[must_use]
pub(super) fn playing(
    bots: &[Option<BotKind>],
    stand_in: &BotKind,
    table: Option<&Table>,
) -> Option<Vec<Option<BotKind>>> {
    let table = table?;
    if table.covering.is_none() && !table.away.iter().any(|&a| a) {
        return None;
    }
    Some(
        bots.iter()
            .enumerate()
            .map(|(s, b)| match b {
                None if table.stood_in(s) => Some(stand_in.clone()),
                other => other.clone(),
            })
            .collect(),
    )
}

/// The stored form of a match's time control and table.
#[must_use]
pub(super) fn to_record(
    control: Option<&TimeControl>,
    stand_in: &str,
    table: &Table,
) -> TableRecord {
    TableRecord {
        clocked: control.is_some(),
        move_ms: control.map_or(0, |c| c.move_ms),
        bank_ms: control.map_or(0, |c| c.bank_ms),
        increment_ms: control.map_or(0, |c| c.increment_ms),
        on_timeout: control.map_or(0, |c| c.on_timeout.code()),
        away_after: control.map_or(0, |c| c.away_after),
        stand_in: stand_in.to_owned(),
        clock_seat: table.clock.map(|(s, _)| s as u32),
        deadline_ms: table.clock.map(|(_, d)| d),
        turn_started_ms: table.turn_started_ms,
        banks_ms: table.banks_ms.clone(),
        timeouts: table.timeouts.clone(),
        away: table.away.clone(),
        covering: table.covering.map(|s| s as u32),
        stand_ins: table
            .stand_ins
            .iter()
            .map(|s| StandInRecord {
                index: s.index,
                seat: s.seat as u32,
                reason: s.reason.code(),
                known: s.known,
            })
            .collect(),
    }
}

/// A stored table back, for a match of `seats` seats with `moves` actions in its history:
/// the time control (if the match has one), the stand-in bot's name, and the table.
///
/// # Errors
/// What is impossible about it, for the operator's log (the match is then damaged).
pub(super) fn from_record(
    r: &TableRecord,
    seats: usize,
    moves: u64,
) -> Result<(Option<TimeControl>, String, Table), String> {
    let control = if r.clocked {
        let on_timeout = TimeoutPolicy::from_code(r.on_timeout)
            .ok_or_else(|| format!("unknown timeout policy {}", r.on_timeout))?;
        if r.move_ms == 0 && r.bank_ms == 0 {
            return Err("a time control with neither a time per move nor a bank".into());
        }
        Some(TimeControl {
            move_ms: r.move_ms,
            bank_ms: r.bank_ms,
            increment_ms: r.increment_ms,
            on_timeout,
            away_after: r.away_after,
        })
    } else {
        None
    };
    let sized = |what: &str, len: usize, may_be_empty: bool| {
        if len == seats || (may_be_empty && len == 0) {
            Ok(())
        } else {
            Err(format!("the table has {len} {what} for {seats} seats"))
        }
    };
    sized(
        "banks",
        r.banks_ms.len(),
        control.as_ref().is_none_or(|c| c.bank_ms == 0),
    )?;
    sized("timeout counts", r.timeouts.len(), false)?;
    sized("away flags", r.away.len(), false)?;
    let clock = match (r.clock_seat, r.deadline_ms) {
        (Some(s), Some(d)) if (s as usize) < seats && control.is_some() => Some((s as usize, d)),
        (None, None) => None,
        _ => return Err("the table's clock names no seat of the match, or no deadline".into()),
    };
    let mut stand_ins = Vec::with_capacity(r.stand_ins.len());
    for s in &r.stand_ins {
        let reason = StandInReason::from_code(s.reason)
            .ok_or_else(|| format!("unknown stand-in reason {}", s.reason))?;
        if s.seat as usize >= seats || s.index >= moves {
            return Err(format!(
                "a stand-in's move {} of seat {} is outside the match",
                s.index, s.seat
            ));
        }
        stand_ins.push(StandIn {
            index: s.index,
            seat: s.seat as usize,
            reason,
            known: s.known,
        });
    }
    let covering = match r.covering {
        Some(s) if (s as usize) < seats => Some(s as usize),
        Some(s) => return Err(format!("the stand-in covers seat {s}, outside the match")),
        None => None,
    };
    let table = Table {
        covering,
        clock,
        turn_started_ms: r.turn_started_ms,
        banks_ms: r.banks_ms.clone(),
        timeouts: r.timeouts.clone(),
        away: r.away.clone(),
        stand_ins,
    };
    Ok((control, r.stand_in.clone(), table))
}
