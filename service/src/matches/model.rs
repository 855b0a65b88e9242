//! What the service holds of a match: its fixed facts ([`Meta`]), its changing state
//! ([`Live`]), the cached match ([`Match`]), and what one request applies to it ([`Moves`],
//! broadcast to watchers as [`Change`]s), with the counting of each viewer's move number.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use cardhouse::bots::BotKind;
use cardhouse::{Action, AnyState, Player, Viewer};
use tokio::sync::broadcast;

use crate::clock::now_ms;
use crate::domain::{MatchStatus, Seat};
use crate::matches::table::{self, Table, TimeControl};
use crate::pb;

/// Capacity of a match's broadcast of changes to its watchers.
pub(super) const BROADCAST: usize = 128;

/// The parts of a match that never change.
#[derive(Debug)]
pub(super) struct Meta {
    pub(super) id: String,
    pub(super) game: pb::GameInfo,
    pub(super) seed: u64,
    pub(super) seats: Vec<Seat>,
    /// The bot of each bot seat.
    pub(super) bots: Vec<Option<BotKind>>,
    /// The name of each seat's bot as asked for, for seats of kind
    /// [`BotSeat::Named`](crate::domain::BotSeat::Named) (stored beside the seat).
    pub(super) bot_names: Vec<Option<String>>,
    /// IS-MCTS iterations per move as stored (0: the default).
    pub(super) ismcts_iterations: u32,
    pub(super) seat_tokens: Vec<Option<String>>,
    /// The human seats' clock, if the match has one.
    pub(super) time: Option<TimeControl>,
    /// The bot that plays for a human seat whose clock ran out, or that is away, and its
    /// name as asked for (`heuristic` unless the time control named another).
    pub(super) stand_in: BotKind,
    pub(super) stand_in_name: String,
    pub(super) owner_token: String,
    pub(super) spectator_token: String,
}

/// The parts of a match that every accepted request replaces.
#[derive(Clone, Debug)]
pub(super) struct Live {
    pub(super) state: AnyState,
    pub(super) status: MatchStatus,
    pub(super) resigned_seat: Option<u32>,
    /// Move number per seat, then the spectator's (index `num_players`).
    pub(super) known: Vec<u64>,
    /// When the match ended (Unix milliseconds); 0 while active.
    pub(super) ended_at_ms: u64,
    /// The match's events so far (`--events`), its end's aside: created, each action the
    /// spectator learns of, each deal ended, each notice. The sequence number of the last.
    pub(super) events: u64,
    /// Notices about seats so far (stored: the history does not hold them).
    pub(super) notices: u64,
    /// The clock and the away seats (`None`: no time control, and no seat was ever away).
    pub(super) table: Option<Table>,
}

/// One change, as broadcast to watchers; each watcher redacts it for its own viewer.
#[derive(Debug)]
pub(super) enum Change {
    /// Actions applied by one commit (a client's, then bots' and chance's) to `before`. Each
    /// watcher replays them to build its own events: one entry of the broadcast per commit,
    /// however many actions (a background chunk of bot moves holds up to
    /// `driver::CHUNK_ACTIONS`), and one state in memory rather than one per action.
    Actions { before: Live, actions: Vec<Action> },
    /// The match ended early (resignation, abort, or its length limit), as `text` says.
    Ended { after: Live, text: String },
    /// Something happened to a seat (not an action), leaving the match at `after`.
    Notice {
        after: Live,
        seat: usize,
        kind: NoticeKind,
    },
}

/// What happened to a seat at the table, as a [`Change::Notice`] tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NoticeKind {
    /// Its clock ran out: the match's timeout policy applies.
    TimedOut,
    /// It is away: its stand-in bot plays its turns at once.
    Away,
    /// It is back: it plays its own turns again.
    Back,
}

/// A match as the service caches it, behind its own lock.
#[derive(Debug)]
pub(super) struct Match {
    pub(super) meta: Arc<Meta>,
    pub(super) live: Live,
    pub(super) changes: broadcast::Sender<Arc<Change>>,
    /// When a request last changed the match (for abandonment).
    pub(super) touched: Instant,
    /// A background task of this process is playing bot and chance moves.
    pub(super) driving: bool,
    /// Changes committed (a shared store's row version; counted alike by the embedded one).
    pub(super) version: u64,
    /// A shared store's write for this match failed with an unknown outcome: reload it
    /// before serving it again.
    pub(super) stale: bool,
    /// When a request last used the cached match (a shared store's cache forgets idle ones).
    pub(super) used: Instant,
    /// Set to stop the bot thinking about this match's next move (its job then commits
    /// nothing): a resignation or an abort sets it.
    pub(super) thinking: Option<Arc<AtomicBool>>,
    /// Bot work this process spent on the match: bot and chance actions played in the
    /// background, and the time their chunks took.
    pub(super) bot_actions: u64,
    pub(super) bot_micros: u64,
}

impl Match {
    /// A match as created or resumed: not yet changed through this process.
    pub(super) fn new(meta: Arc<Meta>, live: Live, driving: bool) -> Match {
        Match {
            meta,
            live,
            changes: broadcast::channel(BROADCAST).0,
            touched: Instant::now(),
            driving,
            version: 0,
            stale: false,
            used: Instant::now(),
            thinking: None,
            bot_actions: 0,
            bot_micros: 0,
        }
    }

    /// Stops the bot thinking about this match, if one is.
    pub(super) fn cancel_thinking(&mut self) {
        if let Some(flag) = self.thinking.take() {
            flag.store(true, Ordering::Release);
        }
    }

    /// Whether anyone watches the match (its changes are then recorded for them).
    pub(super) fn watched(&self) -> bool {
        self.changes.receiver_count() > 0
    }
}

/// What one request applies to a match: the actions (what the store appends) and, only if
/// someone watches the match, the changes to broadcast.
#[derive(Debug, Default)]
pub(super) struct Moves {
    pub(super) actions: Vec<Action>,
    pub(super) record: bool,
    /// The match before the first action (kept only if `record`).
    pub(super) before: Option<Live>,
    /// Changes to broadcast before the actions' (a seat timed out, or is back).
    pub(super) pre: Vec<Change>,
    /// Changes to broadcast after the actions' (an end by resignation or abort).
    pub(super) changes: Vec<Change>,
}

impl Moves {
    pub(super) fn new(record: bool) -> Moves {
        Moves {
            record,
            ..Moves::default()
        }
    }

    /// What watchers are sent: the notices before the actions, the actions as one change,
    /// then the others.
    pub(super) fn into_changes(self) -> Vec<Change> {
        let mut changes = Vec::with_capacity(self.pre.len() + self.changes.len() + 1);
        changes.extend(self.pre);
        if let Some(before) = self.before
            && !self.actions.is_empty()
        {
            changes.push(Change::Actions {
                before,
                actions: self.actions,
            });
        }
        changes.extend(self.changes);
        changes
    }
}

/// Applies `action`, counting it for every viewer that learns of it. `checked` actions come
/// from clients and are validated (the state is unchanged on error); others (chance, bots)
/// are legal by construction.
pub(super) fn apply_counted(
    live: &mut Live,
    action: Action,
    checked: bool,
    moves: &mut Moves,
) -> Result<(), cardhouse::Error> {
    if checked {
        live.state.check_action(action)?;
    }
    if moves.record && moves.before.is_none() {
        moves.before = Some(live.clone());
    }
    step(live, action);
    moves.actions.push(action);
    Ok(())
}

/// Applies legal `action` to `live`, counting it for every viewer that learns of it, and in
/// the match's events.
pub(super) fn step(live: &mut Live, action: Action) {
    let public = count_known(&live.state, action, &mut live.known);
    live.state.apply_unchecked(action);
    live.events += events_of(public, &live.state);
    if live.state.is_terminal() {
        live.status = MatchStatus::Finished;
        live.ended_at_ms = now_ms();
    }
}

/// Adds `action` (about to be applied at `state`) to the move number of every viewer that
/// learns of it; returns whether a spectator does.
pub(super) fn count_known(state: &AnyState, action: Action, known: &mut [u64]) -> bool {
    let n = known.len() - 1;
    let actor = state.current_player();
    let mut public = false;
    for (v, k) in known.iter_mut().enumerate() {
        let viewer = if v == n {
            Viewer::Spectator
        } else {
            Viewer::Seat(v)
        };
        // A seat always knows its own actions: no need to ask the engine.
        if actor == Player::Seat(v) || state.action_visible_to(viewer, action) {
            *k += 1;
            public |= v == n;
        }
    }
    public
}

/// The match's events an action makes (see [`Live::events`]): one if a spectator learns of
/// it (`public`), one more if it ended a deal (`after` is the state it left).
pub(super) fn events_of(public: bool, after: &AnyState) -> u64 {
    u64::from(public) + u64::from(after.deal_outcome().is_some())
}

/// Starts or stops the clock of `live` after a change (`moved`: it applied actions), at the
/// server's time now: see [`table::settle`].
pub(super) fn settle_clock(meta: &Meta, live: &mut Live, moved: bool) {
    if let Some(table) = live.table.as_mut() {
        let active = live.status == MatchStatus::Active;
        table::settle(
            meta.time.as_ref(),
            &meta.bots,
            &live.state,
            active,
            table,
            moved,
            now_ms(),
        );
    }
}

/// A stored status (checked), made consistent with the state: an active match whose state
/// is `terminal` is finished (its last moves were logged, its final header not yet written).
pub(super) fn status_of(stored: MatchStatus, terminal: bool) -> MatchStatus {
    match stored {
        MatchStatus::Active if terminal => MatchStatus::Finished,
        status => status,
    }
}

/// Whether bots or chance are to move in `live` (a human seat the stand-in bot plays, away
/// or timed out, counts as a bot's).
pub(super) fn bots_to_move(meta: &Meta, live: &Live) -> bool {
    match live.state.current_player() {
        Player::Chance => true,
        Player::Seat(seat) => {
            meta.bots.get(seat).is_some_and(Option::is_some)
                || live.table.as_ref().is_some_and(|t| t.stood_in(seat))
        }
        Player::Terminal => false,
    }
}

/// A status as the errors word it.
pub(super) fn status_name(s: MatchStatus) -> &'static str {
    match s {
        MatchStatus::Active => "active",
        MatchStatus::Finished => "finished",
        MatchStatus::Resigned => "a seat resigned",
        MatchStatus::Aborted => "aborted",
        MatchStatus::TimedOut => "a seat's clock ran out (it lost on time)",
    }
}

/// The event text of a match that ended early at `live` (resigned, lost on time or
/// aborted).
pub(super) fn ended_text(live: &Live) -> String {
    match (live.status, live.resigned_seat) {
        (MatchStatus::TimedOut, Some(s)) => format!("seat {s} lost on time: its clock ran out"),
        (_, Some(s)) => format!("seat {s} resigned"),
        _ => "the match was aborted".to_owned(),
    }
}
