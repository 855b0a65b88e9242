//! Which moves bots and chance make: the bot of each seat, and [`advance`], which plays
//! them on a copy of a match through the engine's play-until-a-decision loop, each choice
//! seeded from the match's seed and move number.

use std::time::Instant;

use cardhouse::bots::BotKind;
use cardhouse::bots::autoplay::{Autoplay, PerMove, Until, play_until};
use cardhouse::{Action, AnyState, Player};

use crate::clock::now_ms;
use crate::domain::MatchStatus;
use crate::matches::model::{Change, Live, Meta, Moves, count_known};
use crate::matches::seats::is_slow;
use crate::matches::table;

/// How much [`advance`] may do in one call.
pub(super) struct Chunk<'a> {
    /// Most actions.
    pub(super) max_actions: usize,
    /// When to stop (checked before each slow bot move and every 64 other actions).
    pub(super) deadline: Option<Instant>,
    /// Whether slow bots (searches: IS-MCTS, rollouts) may move: only on the bot workers.
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
/// chunk is spent: the engine's play-until-a-decision loop with the match's per-move seeding
/// ([`PerMove`]). Returns true if bots or chance still have moves to make (false too when
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
    // Away seats are played by the stand-in bot.
    let away = table::playing(&meta.bots, &meta.stand_in, live.table.as_ref());
    let bots = away.as_deref().unwrap_or(&meta.bots);
    let mut auto = Metered {
        inner: PerMove {
            bots,
            seed: meta.seed,
        },
        meta,
    };
    let Live {
        state,
        status,
        resigned_seat,
        known,
        ended_at_ms,
        events,
        notices,
        table,
    } = live;
    let (expensive, deadline, max_actions) = (chunk.expensive, chunk.deadline, chunk.max_actions);
    let mut done = 0usize;
    let mut proceed = |_: &AnyState, actor: Player| {
        let slow = matches!(actor, Player::Seat(s)
            if bots.get(s).is_some_and(|b| b.as_ref().is_some_and(is_slow)));
        let go = (expensive || !slow)
            && !deadline.is_some_and(|d| (slow || done.is_multiple_of(64)) && Instant::now() >= d);
        done += usize::from(go);
        go
    };
    let mut observe = |at: &AnyState, actor: Player, action| {
        if moves.record && moves.before.is_none() {
            moves.before = Some(Live {
                state: at.clone(),
                status: *status,
                resigned_seat: *resigned_seat,
                known: known.clone(),
                ended_at_ms: *ended_at_ms,
                events: *events,
                notices: *notices,
                table: table.clone(),
            });
        }
        // A human seat's move played by its stand-in (its clock ran out, or it is away).
        if let Player::Seat(s) = actor
            && meta.bots.get(s).is_some_and(Option::is_none)
            && let Some(table) = table.as_mut()
        {
            table.stood_in_for(s, at.move_number() as u64, known[s]);
        }
        count_known(at, action, known);
        moves.actions.push(action);
    };
    let mut stop = || chunk.stop.as_mut().is_some_and(|stop| stop());
    let mut until = Until {
        max_actions,
        max_history: usize::try_from(chunk.max_total).unwrap_or(usize::MAX),
        proceed: Some(&mut proceed),
        stop: Some(&mut stop),
        observe: Some(&mut observe),
    };
    let played = play_until(state, &mut auto, &mut until);
    if state.is_terminal() && *status == MatchStatus::Active {
        *status = MatchStatus::Finished;
        *ended_at_ms = now_ms();
    }
    match played {
        Ok(played) => played.stopped.more(),
        Err(e) => {
            // A bug (no bot fails on a legal position): the match stays where the last
            // good move left it, and waits.
            tracing::error!(match_id = %meta.id, error = %e, "bot or chance moves failed");
            false
        }
    }
}

/// The match's bots and chance ([`PerMove`]), each bot's thinking time counted in the
/// metrics.
struct Metered<'a> {
    inner: PerMove<'a>,
    meta: &'a Meta,
}

impl Autoplay for Metered<'_> {
    type Error = cardhouse::Error;

    fn plays(&self, seat: usize) -> bool {
        self.inner.plays(seat)
    }

    fn chance(&mut self, state: &mut AnyState) -> Result<Option<Action>, cardhouse::Error> {
        self.inner.chance(state)
    }

    fn bot(
        &mut self,
        state: &AnyState,
        seat: usize,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Action, cardhouse::Error> {
        let thinking = Instant::now();
        let chosen = self.inner.bot(state, seat, stop);
        if let Some(Some(bot)) = self.inner.bots.get(seat)
            && !matches!(bot, BotKind::Random)
        {
            crate::metrics::bot_think_seconds(&self.meta.game.name, bot.name(), thinking.elapsed());
        }
        chosen
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
