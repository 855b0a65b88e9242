//! `cardhouse.v1.Matches`: server-held matches with per-seat bearer tokens.
//!
//! Each match lives in memory behind its own async mutex; every change is made on a copy,
//! stored durably, and only then swapped in, broadcast to watchers and acknowledged. A
//! failed or rejected request leaves the match exactly as it was.
//!
//! **Move numbers.** Each viewer (seat or spectator) has its own move number: the number of
//! actions it knows have happened (those for which the engine's `action_to_string_for` gives
//! it a text, plus a seat's own actions). It reveals nothing the viewer's events do not, and
//! it grows with every action of the seat itself, so a retried or stale `Act` is always
//! `ABORTED`, even for private actions that leave the same seat to move.
//!
//! **Randomness.** Chance and bot choices use the engine's reference generator seeded from
//! (match seed, move number), so a restarted server continues exactly as it would have.
//!
//! **Logging.** Logs name the match, the seat and the move number, never an action's text or
//! id (a card played is public, but a card dealt or a private declaration is not).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime};

use cardhouse::bots::{BotKind, IsmctsConfig};
use cardhouse::{Action, AnyGame, AnyState, Player, Rng, SeededRng, Viewer};
use tokio::sync::{Mutex, OwnedMutexGuard, broadcast, mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};

use crate::auth::{bearer, check_credential, hash_token, same};
use crate::convert::{
    game_info, json_to_struct, options_from_pb, player_legal_actions, player_to_pb,
};
use crate::engine_service::mix;
use crate::error::{ApiError, guard};
use crate::pb;
use crate::pb::matches_server::Matches;
use crate::pg::{Loaded, Newer, Notice, PgStore};
use crate::shutdown::UntilShutdown;
use crate::store::{Ack, Change as StoreChange, STORED_FORMAT, Store, StoreError, StoredMatch};

/// Salt that separates bot choices from chance draws of the same move number.
const BOT_SALT: u64 = 0xB07B_07B0_7B07_B07B;

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

/// A shared store: how often watched matches are revalidated and stalled bots looked for.
const POLL: Duration = Duration::from_secs(1);
/// A shared store: an active match whose bots or chance are to move and that no replica
/// changed for this long is played on by whichever replica notices.
const STALLED: Duration = Duration::from_secs(3);
/// A shared store: a cached match unused for this long (unwatched, not played by us) is
/// dropped from memory.
const CACHE_IDLE: Duration = Duration::from_secs(60);

/// Most actions in one background chunk (bounds the memory of the changes it broadcasts).
const CHUNK_ACTIONS: usize = 1024;
/// Capacity of a match's broadcast of changes to its watchers.
const BROADCAST: usize = 128;

/// What a token of a match stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Role {
    Seat(usize),
    Owner,
    Spectator,
}

impl Role {
    fn viewer(self) -> Viewer {
        match self {
            Role::Seat(s) => Viewer::Seat(s),
            Role::Owner | Role::Spectator => Viewer::Spectator,
        }
    }
}

/// The parts of a match that never change.
#[derive(Debug)]
struct Meta {
    id: String,
    game: pb::GameInfo,
    seed: u64,
    seats: Vec<pb::SeatKind>,
    /// The bot of each bot seat.
    bots: Vec<Option<BotKind>>,
    /// IS-MCTS iterations per move as stored (0: the default).
    ismcts_iterations: u32,
    seat_tokens: Vec<Option<String>>,
    owner_token: String,
    spectator_token: String,
}

/// The parts of a match that every accepted request replaces.
#[derive(Clone, Debug)]
struct Live {
    state: AnyState,
    status: pb::MatchStatus,
    resigned_seat: Option<u32>,
    /// Move number per seat, then the spectator's (index `num_players`).
    known: Vec<u64>,
    /// When the match ended (Unix milliseconds); 0 while active.
    ended_at_ms: u64,
}

/// One change, as broadcast to watchers; each watcher redacts it for its own viewer.
#[derive(Debug)]
enum Change {
    /// Actions applied by one commit (a client's, then bots' and chance's) to `before`. Each
    /// watcher replays them to build its own events: one entry of the broadcast per commit,
    /// however many actions (a background chunk of bot moves holds up to
    /// [`CHUNK_ACTIONS`]), and one state in memory rather than one per action.
    Actions { before: Live, actions: Vec<Action> },
    /// The match ended by resignation or abort.
    Ended { after: Live },
}

#[derive(Debug)]
struct Match {
    meta: Arc<Meta>,
    live: Live,
    changes: broadcast::Sender<Arc<Change>>,
    /// When a request last changed the match (for abandonment).
    touched: Instant,
    /// A background task of this process is playing bot and chance moves.
    driving: bool,
    /// Changes committed (a shared store's row version; counted alike by the embedded one).
    version: u64,
    /// A shared store's write for this match failed with an unknown outcome: reload it
    /// before serving it again.
    stale: bool,
    /// When a request last used the cached match (a shared store's cache forgets idle ones).
    used: Instant,
}

/// The shared state of the Matches service.
#[derive(Debug)]
pub struct Hub {
    matches: RwLock<HashMap<String, Arc<Mutex<Match>>>>,
    /// Matches held plus creations in progress: the exact count the limit applies to.
    reserved: AtomicUsize,
    store: Store,
    limits: MatchLimits,
    shutdown: watch::Receiver<bool>,
}

/// The Matches service.
#[derive(Clone, Debug)]
pub struct MatchesService {
    hub: Arc<Hub>,
}

impl MatchesService {
    /// A service over `store`, resuming `stored` matches. Watch streams end when `shutdown`
    /// becomes true.
    ///
    /// # Errors
    /// If a stored match cannot be resumed (a state that no longer decodes).
    pub fn new(
        store: Store,
        stored: Vec<StoredMatch>,
        notices: Option<tokio::sync::mpsc::UnboundedReceiver<Notice>>,
        limits: MatchLimits,
        shutdown: watch::Receiver<bool>,
    ) -> Result<MatchesService, ApiError> {
        let mut matches = HashMap::with_capacity(stored.len());
        for s in stored {
            let id = s.id.clone();
            let m = resume(s).map_err(|e| ApiError::Internal(format!("match {id}: {e}")))?;
            matches.insert(id, Arc::new(Mutex::new(m)));
        }
        tracing::info!(
            matches = matches.len(),
            persistent = store.is_persistent(),
            "matches loaded"
        );
        let driving: Vec<String> = matches
            .iter()
            .filter(|(_, m)| m.try_lock().is_ok_and(|m| m.driving))
            .map(|(id, _)| id.clone())
            .collect();
        let count = matches.len();
        let hub = Arc::new(Hub {
            matches: RwLock::new(matches),
            reserved: AtomicUsize::new(count),
            store,
            limits,
            shutdown,
        });
        // Matches whose bots were still playing when the server stopped play on.
        for id in driving {
            Hub::drive(&hub, id);
        }
        if let Some(mut notices) = notices {
            let weak = Arc::downgrade(&hub);
            tokio::spawn(async move {
                while let Some(notice) = notices.recv().await {
                    let Some(hub) = weak.upgrade() else { return };
                    hub.on_notice(notice);
                }
            });
        }
        if hub.store.is_shared() {
            let weak = Arc::downgrade(&hub);
            let mut stop = hub.shutdown.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(POLL);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tokio::select! {
                        _ = tick.tick() => {}
                        () = stopped(&mut stop) => return,
                    }
                    let Some(hub) = weak.upgrade() else { return };
                    hub.poll().await;
                }
            });
        }
        Ok(MatchesService { hub })
    }

    /// Removes ended matches past their retention and aborts abandoned ones; returns how
    /// many matches were removed. The server calls it periodically.
    pub async fn sweep(&self) -> usize {
        self.hub.sweep().await
    }

    /// Whether the service must stop taking changes (its store failed).
    #[must_use]
    pub fn store_failed(&self) -> bool {
        self.hub.store.has_failed()
    }
}

impl MatchesService {
    /// Number of matches held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.hub.matches.read().map_or(0, |m| m.len())
    }

    /// True if no match is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The bot playing each seat (`None` for humans).
fn seat_bots(seats: &[pb::SeatKind], ismcts_iterations: u32) -> Vec<Option<BotKind>> {
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

fn seat_kind(k: i32) -> pb::SeatKind {
    pb::SeatKind::try_from(k).unwrap_or(pb::SeatKind::Unspecified)
}

fn resume(s: StoredMatch) -> Result<Match, ApiError> {
    if s.format != STORED_FORMAT {
        return Err(ApiError::Internal(format!(
            "stored format {} is not {STORED_FORMAT}",
            s.format
        )));
    }
    let final_state = cardhouse::state_from_bytes(&s.state)?;
    let game = final_state.game();
    // Recompute every viewer's move number by replaying the history.
    let n = game.num_players();
    let mut known = vec![0u64; n + 1];
    let mut state = game.new_initial_state();
    for a in final_state.history() {
        count_known(&state, a, &mut known);
        state.apply(a)?;
    }
    let seats: Vec<pb::SeatKind> = s.seats.iter().map(|&k| seat_kind(k)).collect();
    let meta = Meta {
        id: s.id,
        game: game_info(&game),
        seed: s.seed,
        bots: seat_bots(&seats, s.ismcts_iterations),
        ismcts_iterations: s.ismcts_iterations,
        seat_tokens: s
            .seat_tokens
            .into_iter()
            .map(|t| (!t.is_empty()).then_some(t))
            .collect(),
        seats,
        owner_token: s.owner_token,
        spectator_token: s.spectator_token,
    };
    let terminal = state.is_terminal();
    let driving = match state.current_player() {
        Player::Chance => true,
        Player::Seat(seat) => meta.bots.get(seat).is_some_and(Option::is_some),
        Player::Terminal => false,
    };
    let mut m = Match {
        meta: Arc::new(meta),
        live: Live {
            state,
            status: status_of(s.status, terminal),
            resigned_seat: s.resigned_seat,
            known,
            ended_at_ms: s.ended_at_ms,
        },
        changes: broadcast::channel(BROADCAST).0,
        touched: Instant::now(),
        driving: false,
        version: 0,
        stale: false,
        used: Instant::now(),
    };
    if m.live.status == pb::MatchStatus::Active {
        m.driving = driving;
    } else if m.live.ended_at_ms == 0 {
        // Ended before retention was recorded: its retention starts now.
        m.live.ended_at_ms = now_ms();
    }
    Ok(m)
}

/// A stored status, made consistent with the state (`terminal`).
fn status_of(stored: i32, terminal: bool) -> pb::MatchStatus {
    match pb::MatchStatus::try_from(stored) {
        Ok(pb::MatchStatus::Active | pb::MatchStatus::Unspecified) | Err(_) if terminal => {
            pb::MatchStatus::Finished
        }
        Ok(pb::MatchStatus::Unspecified) | Err(_) => pb::MatchStatus::Active,
        Ok(status) => status,
    }
}

/// Brings cached match `m` up to `loaded` (a newer version in a shared store): the new
/// actions are applied to the cached state, so that its watchers receive each of them as
/// on one node, followed by the end of the match if it was resigned or aborted.
fn adopt(m: &mut Match, loaded: Loaded) -> Result<(), ApiError> {
    // Read without replaying: the cached state is the start of the stored one whenever its
    // game, options and rules version are the same (a match's never change, but a replica
    // of another release may write another rules version), and only the new actions are
    // applied (checked).
    let record = cardhouse::codec::Record::from_bytes(&loaded.stored.state)?;
    let game = m.live.state.game();
    // Options are stored as text: compare the games they make.
    let same_game = record.game == game.name()
        && record.rules_version == game.rules_version()
        && cardhouse::new_game(&record.game, &record.options).is_ok_and(|g| g == game);
    let new = record.history;
    let old = m.live.state.history();
    let mut moves = Moves::new(m.changes.receiver_count() > 0);
    let mut live = if same_game && new.len() >= old.len() && new[..old.len()] == old[..] {
        let mut live = m.live.clone();
        for &a in &new[old.len()..] {
            apply_counted(&mut live, a, true, &mut moves)?;
        }
        live
    } else {
        // Histories only grow; a match replaced wholesale is resumed from scratch (its
        // watchers see the next change).
        tracing::warn!(match_id = %m.meta.id, "a stored match is not an extension of its cached copy");
        resume(loaded.stored.clone())?.live
    };
    let status = status_of(loaded.stored.status, live.state.is_terminal());
    let ended_early = status != pb::MatchStatus::Active
        && status != pb::MatchStatus::Finished
        && live.status == pb::MatchStatus::Active;
    live.status = status;
    live.resigned_seat = loaded.stored.resigned_seat;
    live.ended_at_ms = loaded.stored.ended_at_ms;
    if ended_early && moves.record {
        moves.changes.push(Change::Ended {
            after: live.clone(),
        });
    }
    m.live = live;
    m.version = loaded.version;
    m.stale = false;
    for c in moves.into_changes() {
        let _ = m.changes.send(Arc::new(c));
    }
    Ok(())
}

/// The wall clock in Unix milliseconds (for retention, which survives restarts).
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn stored(meta: &Meta, live: &Live) -> StoredMatch {
    StoredMatch {
        format: STORED_FORMAT,
        id: meta.id.clone(),
        state: live.state.to_bytes(),
        seed: meta.seed,
        seats: meta.seats.iter().map(|&k| k as i32).collect(),
        seat_tokens: meta
            .seat_tokens
            .iter()
            .map(|t| t.clone().unwrap_or_default())
            .collect(),
        owner_token: meta.owner_token.clone(),
        spectator_token: meta.spectator_token.clone(),
        status: live.status as i32,
        resigned_seat: live.resigned_seat,
        ended_at_ms: live.ended_at_ms,
        ismcts_iterations: meta.ismcts_iterations,
    }
}

/// Adds `action` (about to be applied at `state`) to the move number of every viewer that
/// learns of it.
fn count_known(state: &AnyState, action: Action, known: &mut [u64]) {
    let n = known.len() - 1;
    let actor = state.current_player();
    for (v, k) in known.iter_mut().enumerate() {
        let viewer = if v == n {
            Viewer::Spectator
        } else {
            Viewer::Seat(v)
        };
        // A seat always knows its own actions: no need to ask the engine.
        if actor == Player::Seat(v) || state.action_visible_to(viewer, action) {
            *k += 1;
        }
    }
}

/// 128 random bits from the OS, as 32 hex digits.
fn random_hex() -> Result<String, ApiError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| ApiError::Internal(format!("OS randomness: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

fn random_u64() -> Result<u64, ApiError> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| ApiError::Internal(format!("OS randomness: {e}")))?;
    Ok(u64::from_le_bytes(b))
}

fn role_of(meta: &Meta, token: &str) -> Result<Role, ApiError> {
    // Hash once; compare against every stored hash in constant time.
    let hashed = hash_token(token);
    if same(&hashed, &meta.owner_token) {
        return Ok(Role::Owner);
    }
    if same(&hashed, &meta.spectator_token) {
        return Ok(Role::Spectator);
    }
    for (seat, t) in meta.seat_tokens.iter().enumerate() {
        if let Some(t) = t
            && same(&hashed, t)
        {
            return Ok(Role::Seat(seat));
        }
    }
    Err(ApiError::Unauthenticated(
        "this token is not valid for this match",
    ))
}

/// The view of `live` for `role` (with the structured view only if `with_view`).
fn match_view_with(
    meta: &Meta,
    live: &Live,
    role: Role,
    with_view: bool,
) -> Result<pb::MatchView, ApiError> {
    let state = &live.state;
    let n = meta.seats.len();
    let (pb_role, seat, known) = match role {
        Role::Seat(s) => (pb::Role::Seat, s, live.known[s]),
        Role::Owner => (pb::Role::Owner, 0, live.known[n]),
        Role::Spectator => (pb::Role::Spectator, 0, live.known[n]),
    };
    let my_turn = live.status == pb::MatchStatus::Active
        && matches!(role, Role::Seat(s) if state.current_player() == Player::Seat(s));
    let legal_actions = if my_turn {
        player_legal_actions(state)
    } else {
        Vec::new()
    };
    let current = if live.status == pb::MatchStatus::Active {
        state.current_player()
    } else {
        Player::Terminal
    };
    Ok(pb::MatchView {
        match_id: meta.id.clone(),
        game: with_view.then(|| meta.game.clone()),
        role: pb_role as i32,
        seat: matches!(role, Role::Seat(_)).then_some(seat as u32),
        status: live.status as i32,
        current_player: Some(player_to_pb(current)),
        move_number: known,
        legal_actions,
        view: if with_view {
            Some(json_to_struct(state.view(role.viewer())?))
        } else {
            None
        },
        returns: state.returns().to_vec(),
        seats: meta.seats.iter().map(|&k| k as i32).collect(),
        resigned_seat: live.resigned_seat,
    })
}

/// The full view of `live` for `role`.
fn match_view(meta: &Meta, live: &Live, role: Role) -> Result<pb::MatchView, ApiError> {
    match_view_with(meta, live, role, true)
}

/// Applies chance and bot moves until a human seat is to move, the match ends, or the
/// budget (`max_actions`, and `deadline` if given) is spent. IS-MCTS bots (milliseconds a
/// move) play only when `expensive` is set, which only the background driver does, on a
/// blocking thread. Returns true if bots or chance still have moves to make.
///
/// Every choice is seeded from (match seed, move number), so a restarted server, or another
/// replica, plays on exactly as this one would have.
fn advance(
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
                    _ => match state.bot_action(bot, s, &mut rng, &mut || false) {
                        Ok(a) => Some(a),
                        Err(e) => {
                            tracing::error!(match_id = %meta.id, seat = s, error = %e, "a bot failed");
                            None
                        }
                    },
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

/// What one request applies to a match: the actions (what the store appends) and, only if
/// someone watches the match, the changes to broadcast.
#[derive(Debug, Default)]
struct Moves {
    actions: Vec<Action>,
    record: bool,
    /// The match before the first action (kept only if `record`).
    before: Option<Live>,
    /// Changes to broadcast after the actions' (an end by resignation or abort).
    changes: Vec<Change>,
}

impl Moves {
    fn new(record: bool) -> Moves {
        Moves {
            record,
            ..Moves::default()
        }
    }

    /// What watchers are sent: the actions as one change, then the others.
    fn into_changes(self) -> Vec<Change> {
        let mut changes = Vec::with_capacity(self.changes.len() + 1);
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
fn apply_counted(
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

/// Applies legal `action` to `live`, counting it for every viewer that learns of it.
fn step(live: &mut Live, action: Action) {
    count_known(&live.state, action, &mut live.known);
    live.state.apply_unchecked(action);
    if live.state.is_terminal() {
        live.status = pb::MatchStatus::Finished;
        live.ended_at_ms = now_ms();
    }
}

/// A slot under the match limit, released on drop unless the match was kept.
struct Reservation<'a> {
    hub: &'a Hub,
    kept: bool,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.kept {
            self.hub.reserved.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// A change whose write is queued and whose in-memory application must follow it. If the
/// request is dropped while it waits (the client cancelled, or its deadline passed), `Drop`
/// hands the rest to a task: it waits for the write and applies the change (or, if the write
/// failed, leaves the match as it was), holding the match's lock throughout. So the durable
/// and the in-memory match never differ, and the common path needs no task of its own.
struct PendingCommit {
    m: Option<OwnedMutexGuard<Match>>,
    change: Option<(Live, Moves)>,
    ack: Option<Ack>,
    /// The store is shared (see [`apply_after`]).
    shared: bool,
}

impl PendingCommit {
    /// Waits for the write, then applies the change; returns the match's guard with the
    /// outcome (the guard also when the change was not applied, e.g. on a conflict).
    async fn finish(mut self) -> Result<(OwnedMutexGuard<Match>, Result<(), ApiError>), ApiError> {
        let result = match self.ack.as_mut() {
            Some(ack) => ack.wait_mut().await,
            None => Ok(()),
        };
        self.ack = None;
        let mut m = self
            .m
            .take()
            .ok_or_else(|| ApiError::Internal("commit guard reused".into()))?;
        let change = self.change.take();
        let outcome = apply_after(&mut m, change, result, self.shared);
        Ok((m, outcome))
    }
}

impl Drop for PendingCommit {
    fn drop(&mut self) {
        let (Some(mut m), Some(ack)) = (self.m.take(), self.ack.take()) else {
            return;
        };
        let change = self.change.take();
        let shared = self.shared;
        let finish = async move {
            let result = ack.wait().await;
            let _ = apply_after(&mut m, change, result, shared);
        };
        // Without a runtime the process is ending; the store's log is the truth on restart.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(finish);
        }
    }
}

/// Applies `change` to the match once its write has `result`. A conflict (another replica
/// changed the match first) applies nothing; a failed write of a shared store marks the
/// match for reloading; one of the embedded store stops all changes (the store refuses
/// them from then on).
fn apply_after(
    m: &mut Match,
    change: Option<(Live, Moves)>,
    result: Result<(), StoreError>,
    shared: bool,
) -> Result<(), ApiError> {
    match result {
        Ok(()) => {}
        Err(StoreError::Conflict) => return Err(ApiError::Conflict),
        Err(StoreError::Full) => {
            return Err(ApiError::Internal("a change met the match limit".into()));
        }
        Err(e) => {
            tracing::error!(match_id = %m.meta.id, error = %e, "storing a change failed");
            if shared {
                m.stale = true;
                return Err(ApiError::StoreUnavailable);
            }
            return Err(ApiError::StoreFailed);
        }
    }
    if let Some((live, moves)) = change {
        m.live = live;
        m.touched = Instant::now();
        m.version += 1;
        for c in moves.into_changes() {
            let _ = m.changes.send(Arc::new(c));
        }
    }
    Ok(())
}

/// Runs a state-changing request in its own task and waits for it. If the client goes away
/// (cancellation, deadline), the task still runs to the end: a change is written and applied
/// in memory together, or neither. A client that did not see the reply learns the outcome
/// from its move number (a retry is `ABORTED` once the move was applied).
async fn detached<T: Send + 'static>(
    work: impl Future<Output = Result<T, ApiError>> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::spawn(work)
        .await
        .unwrap_or_else(|e| Err(ApiError::Internal(format!("request task: {e}"))))
}

impl Hub {
    /// The cached match `id`, if it is cached.
    fn cached(&self, id: &str) -> Result<Option<Arc<Mutex<Match>>>, ApiError> {
        let matches = self
            .matches
            .read()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?;
        Ok(matches.get(id).cloned())
    }

    /// Match `id`: from memory, or else (a shared store) loaded from the database. A shared
    /// store's match must still be revalidated ([`Hub::fresh`]) once locked.
    async fn get(&self, id: &str) -> Result<Arc<Mutex<Match>>, ApiError> {
        if let Some(m) = self.cached(id)? {
            return Ok(m);
        }
        let Some(pg) = self.store.shared() else {
            return Err(ApiError::MatchNotFound(id.to_owned()));
        };
        let loaded = pg.load(id).await.map_err(unavailable)?;
        let Some(loaded) = loaded else {
            return Err(ApiError::MatchNotFound(id.to_owned()));
        };
        let version = loaded.version;
        let mut m = resume(loaded.stored)?;
        // Whoever plays its bots, it is not this process yet (see `Hub::poll`).
        m.driving = false;
        m.version = version;
        let mut table = self
            .matches
            .write()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?;
        Ok(Arc::clone(
            table
                .entry(id.to_owned())
                .or_insert_with(|| Arc::new(Mutex::new(m))),
        ))
    }

    /// Brings cached match `m` up to date with a shared store (one query, which returns
    /// the match only if another replica changed it). A no-op for the embedded store, whose
    /// memory is the truth.
    async fn fresh(&self, m: &mut Match) -> Result<(), ApiError> {
        let Some(pg) = self.store.shared() else {
            return Ok(());
        };
        m.used = Instant::now();
        let known = (!m.stale).then_some(m.version);
        match pg
            .load_newer(&m.meta.id, known)
            .await
            .map_err(unavailable)?
        {
            Newer::Same => Ok(()),
            Newer::Changed(loaded) => guard(|| adopt(m, loaded)),
            Newer::Gone => {
                self.forget(&m.meta.id);
                Err(ApiError::MatchNotFound(m.meta.id.clone()))
            }
        }
    }

    /// Reloads cached match `m` from a shared store (see [`adopt`]).
    async fn reload(&self, m: &mut Match) -> Result<(), ApiError> {
        if !self.store.is_shared() {
            return Ok(());
        }
        m.stale = true;
        self.fresh(m).await
    }

    /// Drops match `id` from the cache (its watchers' streams end).
    fn forget(&self, id: &str) {
        if let Ok(mut table) = self.matches.write() {
            table.remove(id);
        }
    }

    /// Refuses changes once the store has failed: the outcome of the failed write is
    /// unknown, so nothing may be acknowledged on top of it until an operator restarts.
    fn writable(&self) -> Result<(), ApiError> {
        if self.store.has_failed() {
            return Err(ApiError::StoreFailed);
        }
        Ok(())
    }

    /// Queues the write of a change from `m`'s current state to `live` (the new actions,
    /// or with `snapshot` the whole match).
    fn submit(
        &self,
        m: &Match,
        live: &Live,
        moves: &Moves,
        snapshot: bool,
    ) -> Result<Ack, ApiError> {
        let change = StoreChange {
            id: &m.meta.id,
            version: m.version,
            from: m.live.state.move_number() as u64,
            actions: &moves.actions,
            snapshot,
            stored: &|| stored(&m.meta, live),
            driving: live.status == pb::MatchStatus::Active && bots_to_move(&m.meta, live),
        };
        self.store.submit_change(&change).map_err(|e| {
            tracing::error!(match_id = %m.meta.id, error = %e, "storing a change failed");
            ApiError::StoreFailed
        })
    }

    /// Stores `live` durably (the new actions only, or with `snapshot` the whole match),
    /// then makes it the match's state and tells watchers. Called only from detached tasks
    /// ([`detached`]), so the write and the in-memory swap happen together or not at all,
    /// whatever the client does meanwhile. [`ApiError::Conflict`] if another replica changed
    /// the match first (nothing applied).
    async fn commit(
        &self,
        m: &mut Match,
        live: Live,
        moves: Moves,
        snapshot: bool,
    ) -> Result<(), ApiError> {
        let result = self.submit(m, &live, &moves, snapshot)?.wait().await;
        apply_after(m, Some((live, moves)), result, self.store.is_shared())
    }

    /// Reserves a slot under the match limit (exact under concurrency). A shared store
    /// counts matches itself, in the statement that creates one: nothing to reserve here.
    fn reserve(&self) -> Result<Reservation<'_>, ApiError> {
        if self.store.is_shared() {
            return Ok(Reservation {
                hub: self,
                kept: true,
            });
        }
        let max = self.limits.max_matches;
        self.reserved
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| self.full())?;
        Ok(Reservation {
            hub: self,
            kept: false,
        })
    }

    fn full(&self) -> ApiError {
        ApiError::ResourceExhausted(format!(
            "the server holds its limit of {} matches; ended matches leave after their \
             retention period",
            self.limits.max_matches
        ))
    }

    async fn create(
        self: &Arc<Self>,
        md: &MetadataMap,
        req: pb::CreateMatchRequest,
    ) -> Result<pb::CreateMatchResponse, ApiError> {
        check_credential(
            md,
            self.limits.create_token.as_deref(),
            "this server needs its create credential to create matches \
             (`authorization: Bearer <token>`)",
        )?;
        self.writable()?;
        let game: AnyGame = cardhouse::new_game(&req.game, &options_from_pb(&req.options))?;
        let n = game.num_players();
        let seats: Vec<pb::SeatKind> = if req.seats.is_empty() {
            vec![pb::SeatKind::Human; n]
        } else {
            if req.seats.len() != n {
                return Err(ApiError::InvalidArgument(format!(
                    "`seats` has {} entries; {} has {n} seats (or leave it empty for all human)",
                    req.seats.len(),
                    game.name()
                )));
            }
            req.seats
                .iter()
                .map(|&k| match seat_kind(k) {
                    pb::SeatKind::Unspecified => Err(ApiError::InvalidArgument(format!(
                        "seat kind {k} is not allowed: every seat must be SEAT_KIND_HUMAN, \
                         SEAT_KIND_RANDOM_BOT, SEAT_KIND_HEURISTIC_BOT or SEAT_KIND_ISMCTS_BOT"
                    ))),
                    kind => Ok(kind),
                })
                .collect::<Result<_, _>>()?
        };
        let ismcts_iterations = match req.ismcts_iterations {
            None => 0,
            Some(n @ 1..=100_000) => n,
            Some(n) => {
                return Err(ApiError::InvalidArgument(format!(
                    "`ismcts_iterations` {n} is out of range: 1 to 100000 (or leave it unset)"
                )));
            }
        };
        let mut reservation = self.reserve()?;
        let seed = match req.seed {
            Some(s) => s,
            None => random_u64()?,
        };
        let seat_tokens = seats
            .iter()
            .map(|k| match k {
                pb::SeatKind::Human => random_hex().map(Some),
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let owner_token = random_hex()?;
        let spectator_token = random_hex()?;
        let meta = Arc::new(Meta {
            id: random_hex()?,
            game: game_info(&game),
            seed,
            bots: seat_bots(&seats, ismcts_iterations),
            ismcts_iterations,
            seats,
            seat_tokens: seat_tokens
                .iter()
                .map(|t| t.as_deref().map(hash_token))
                .collect(),
            owner_token: hash_token(&owner_token),
            spectator_token: hash_token(&spectator_token),
        });
        let mut live = Live {
            state: game.new_initial_state(),
            status: pb::MatchStatus::Active,
            resigned_seat: None,
            known: vec![0; n + 1],
            ended_at_ms: 0,
        };
        let more = guard(|| {
            Ok(advance(
                &meta,
                &mut live,
                &mut Moves::new(false),
                self.limits.inline_bot_actions,
                None,
                false,
            ))
        })?;
        let created = self.store.submit_create(
            &stored(&meta, &live),
            live.state.move_number() as u64,
            more,
            self.limits.max_matches,
        );
        match match created {
            Ok(ack) => ack.wait().await,
            Err(e) => Err(e),
        } {
            Ok(()) => {}
            Err(StoreError::Full) => return Err(self.full()),
            Err(e) => {
                tracing::error!(match_id = %meta.id, error = %e, "storing a new match failed");
                return Err(if self.store.is_shared() {
                    ApiError::StoreUnavailable
                } else {
                    ApiError::StoreFailed
                });
            }
        }
        let view = match_view(&meta, &live, Role::Spectator)?;
        let response = pb::CreateMatchResponse {
            match_id: meta.id.clone(),
            seat_tokens: seat_tokens
                .iter()
                .enumerate()
                .filter_map(|(seat, t)| {
                    t.as_ref().map(|t| pb::SeatToken {
                        seat: Some(seat as u32),
                        token: t.clone(),
                    })
                })
                .collect(),
            owner_token,
            spectator_token,
            seed,
            view: Some(view),
        };
        tracing::info!(match_id = %meta.id, game = %meta.game.name, "match created");
        let m = Match {
            meta: Arc::clone(&meta),
            live,
            changes: broadcast::channel(BROADCAST).0,
            touched: Instant::now(),
            driving: more,
            version: 0,
            stale: false,
            used: Instant::now(),
        };
        self.matches
            .write()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?
            .insert(meta.id.clone(), Arc::new(Mutex::new(m)));
        reservation.kept = true;
        if more {
            Hub::drive(self, meta.id.clone());
        }
        Ok(response)
    }

    /// Plays the bot and chance moves of match `id` in the background, a chunk at a time
    /// on a blocking thread (never on the runtime's workers), each chunk committed before
    /// the next, until a human seat is to move or the match ends.
    fn drive(hub: &Arc<Hub>, id: String) {
        let hub = Arc::clone(hub);
        tokio::spawn(async move {
            loop {
                let Ok(m) = hub.get(&id).await else { return };
                let mut m = m.lock_owned().await;
                if m.live.status != pb::MatchStatus::Active || hub.writable().is_err() {
                    m.driving = false;
                    return;
                }
                let meta = Arc::clone(&m.meta);
                let live = m.live.clone();
                let record = m.changes.receiver_count() > 0;
                let budget = hub.limits.bot_chunk_budget;
                let chunk = tokio::task::spawn_blocking(move || {
                    let mut live = live;
                    let mut moves = Moves::new(record);
                    let deadline = Instant::now() + budget;
                    let more = guard(|| {
                        Ok(advance(
                            &meta,
                            &mut live,
                            &mut moves,
                            CHUNK_ACTIONS,
                            Some(deadline),
                            true,
                        ))
                    });
                    (live, moves, more)
                })
                .await;
                let Ok((live, moves, Ok(more))) = chunk else {
                    tracing::error!(match_id = %id, "bot moves failed; the match waits");
                    m.driving = false;
                    return;
                };
                if moves.actions.is_empty() {
                    m.driving = false;
                    return;
                }
                let snapshot = live.status != pb::MatchStatus::Active;
                match hub.commit(&mut m, live, moves, snapshot).await {
                    Ok(()) => {}
                    // Another replica moved first (it plays the same moves: they follow
                    // from the seed and the move number): catch up and go on from there.
                    Err(ApiError::Conflict) => {
                        if hub.reload(&mut m).await.is_err() {
                            m.driving = false;
                            return;
                        }
                        continue;
                    }
                    Err(_) => {
                        m.driving = false;
                        return;
                    }
                }
                if !more {
                    m.driving = false;
                    return;
                }
                drop(m);
                tokio::task::yield_now().await;
            }
        });
    }

    async fn get_view(&self, md: &MetadataMap, id: &str) -> Result<pb::MatchView, ApiError> {
        let token = bearer(md)?;
        let m = self.get(id).await?;
        let mut m = m.lock().await;
        let role = role_of(&m.meta, &token)?;
        self.fresh(&mut m).await?;
        guard(|| match_view(&m.meta, &m.live, role))
    }

    async fn act(
        self: &Arc<Self>,
        md: &MetadataMap,
        req: pb::ActRequest,
    ) -> Result<pb::MatchView, ApiError> {
        let token = bearer(md)?;
        let m = self.get(&req.match_id).await?;
        let mut m = m.lock_owned().await;
        let seat = match role_of(&m.meta, &token)? {
            Role::Seat(s) => s,
            Role::Owner | Role::Spectator => {
                return Err(ApiError::PermissionDenied(
                    "only a seat token can act; this is an owner or spectator token",
                ));
            }
        };
        // A shared store's cached copy is used as it is, and the write checks that it was
        // current (its version); a request that fails a check against it, or whose write
        // meets a newer version, is checked again against the reloaded match.
        m.used = Instant::now();
        let mut refreshed = !self.store.is_shared() || m.stale;
        if m.stale {
            self.reload(&mut m).await?;
        }
        for attempt in 0.. {
            let (live, moves, more) = match self.prepare_act(&m, seat, &req) {
                Ok(prepared) => prepared,
                Err(_) if !refreshed => {
                    refreshed = true;
                    self.fresh(&mut m).await?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            // A match that just finished gets a full snapshot with its final status.
            let snapshot = live.status != pb::MatchStatus::Active;
            let ack = self.submit(&m, &live, &moves, snapshot)?;
            // From here the change completes even if this request is dropped.
            let pending = PendingCommit {
                m: Some(m),
                change: Some((live, moves)),
                ack: Some(ack),
                shared: self.store.is_shared(),
            };
            let (guard_, outcome) = pending.finish().await?;
            m = guard_;
            match outcome {
                Ok(()) => {}
                Err(ApiError::Conflict) if attempt < 3 => {
                    refreshed = true;
                    self.reload(&mut m).await?;
                    continue;
                }
                Err(e) => return Err(e),
            }
            tracing::debug!(
                match_id = %m.meta.id,
                seat,
                move_number = m.live.known[m.meta.seats.len()],
                "seat acted"
            );
            let view =
                guard(|| match_view_with(&m.meta, &m.live, Role::Seat(seat), req.include_view));
            if more && !m.driving {
                m.driving = true;
                Hub::drive(self, m.meta.id.clone());
            }
            return view;
        }
        Err(ApiError::Conflict)
    }

    /// Checks `req` of `seat` against `m` and applies it (with the bot and chance moves that
    /// follow, up to the inline budget) to a copy: the new state, what was applied, and
    /// whether bots or chance still have moves to make.
    fn prepare_act(
        &self,
        m: &Match,
        seat: usize,
        req: &pb::ActRequest,
    ) -> Result<(Live, Moves, bool), ApiError> {
        if m.live.status != pb::MatchStatus::Active {
            return Err(ApiError::MatchOver(status_name(m.live.status)));
        }
        self.writable()?;
        let actual = m.live.known[seat];
        if req.expected_move_number != actual {
            return Err(ApiError::StaleMove {
                expected: req.expected_move_number,
                actual,
            });
        }
        let state = &m.live.state;
        if state.current_player() != Player::Seat(seat) {
            return Err(ApiError::NotYourTurn {
                seat,
                to_move: match state.current_player() {
                    Player::Seat(s) => format!("seat {s} is to move"),
                    Player::Chance => "a chance event is pending".into(),
                    Player::Terminal => "the game is over".into(),
                },
            });
        }
        let action = match &req.action {
            Some(pb::act_request::Action::ActionId(id)) => *id,
            Some(pb::act_request::Action::ActionText(text)) => state.string_to_action(text)?,
            None => {
                return Err(ApiError::InvalidArgument(
                    "set `action_id` or `action_text`".into(),
                ));
            }
        };
        let mut live = m.live.clone();
        let mut moves = Moves::new(m.changes.receiver_count() > 0);
        let inline = self.limits.inline_bot_actions;
        let more = guard(|| {
            apply_counted(&mut live, action, true, &mut moves)?;
            Ok(advance(&m.meta, &mut live, &mut moves, inline, None, false))
        })?;
        Ok((live, moves, more))
    }

    async fn end(
        &self,
        md: &MetadataMap,
        id: &str,
        resign_seat: Option<Option<u32>>,
    ) -> Result<pb::MatchView, ApiError> {
        let token = bearer(md)?;
        let m = self.get(id).await?;
        let mut m = m.lock().await;
        let role = role_of(&m.meta, &token)?;
        self.fresh(&mut m).await?;
        let n = m.meta.seats.len();
        let (status, resigned) = match (resign_seat, role) {
            // Abort: owner only.
            (None, Role::Owner) => (pb::MatchStatus::Aborted, None),
            (None, _) => {
                return Err(ApiError::PermissionDenied(
                    "only the owner token can abort a match",
                ));
            }
            (Some(seat), Role::Seat(own)) => {
                if seat.is_some_and(|s| s as usize != own) {
                    return Err(ApiError::PermissionDenied(
                        "a seat token can resign only its own seat",
                    ));
                }
                (pb::MatchStatus::Resigned, Some(own as u32))
            }
            (Some(seat), Role::Owner) => {
                let seat = seat.ok_or_else(|| {
                    ApiError::InvalidArgument(
                        "with the owner token, name the `seat` to resign".into(),
                    )
                })?;
                if seat as usize >= n {
                    return Err(cardhouse::Error::InvalidSeat {
                        seat: i64::from(seat),
                        last: n - 1,
                    }
                    .into());
                }
                (pb::MatchStatus::Resigned, Some(seat))
            }
            (Some(_), Role::Spectator) => {
                return Err(ApiError::PermissionDenied(
                    "a spectator token cannot resign a seat",
                ));
            }
        };
        for attempt in 0.. {
            if m.live.status != pb::MatchStatus::Active {
                return Err(ApiError::MatchOver(status_name(m.live.status)));
            }
            self.writable()?;
            match self.finish(&mut m, status, resigned).await {
                Ok(()) => break,
                // Another replica changed the match first: check again on the new state.
                Err(ApiError::Conflict) if attempt < 3 => self.reload(&mut m).await?,
                Err(e) => return Err(e),
            }
        }
        tracing::info!(match_id = %m.meta.id, status = status_name(status), "match ended early");
        guard(|| match_view(&m.meta, &m.live, role))
    }

    /// Ends an active match with `status`, durably.
    async fn finish(
        &self,
        m: &mut Match,
        status: pb::MatchStatus,
        resigned: Option<u32>,
    ) -> Result<(), ApiError> {
        let mut live = m.live.clone();
        live.status = status;
        live.resigned_seat = resigned;
        live.ended_at_ms = now_ms();
        let moves = Moves {
            changes: vec![Change::Ended {
                after: live.clone(),
            }],
            ..Moves::default()
        };
        self.commit(m, live, moves, true).await
    }

    /// Aborts matches idle past `abandon_after`; deletes ended matches past `retention`.
    async fn sweep(&self) -> usize {
        if let Some(pg) = self.store.shared() {
            return self.sweep_shared(pg).await;
        }
        let all: Vec<(String, Arc<Mutex<Match>>)> = match self.matches.read() {
            Ok(m) => m.iter().map(|(k, v)| (k.clone(), Arc::clone(v))).collect(),
            Err(_) => return 0,
        };
        let now = now_ms();
        let retention = self.limits.retention.as_millis() as u64;
        let mut removed = 0;
        for (id, m) in all {
            let mut m = m.lock().await;
            if m.live.status == pb::MatchStatus::Active {
                if m.touched.elapsed() >= self.limits.abandon_after && !m.driving {
                    if self.writable().is_err() {
                        return removed;
                    }
                    tracing::info!(match_id = %id, "aborting an abandoned match");
                    if self
                        .finish(&mut m, pb::MatchStatus::Aborted, None)
                        .await
                        .is_err()
                    {
                        return removed;
                    }
                }
                continue;
            }
            if now.saturating_sub(m.live.ended_at_ms) < retention {
                continue;
            }
            if self.store.delete(&id).await.is_err() {
                return removed;
            }
            // End its watchers' streams; later requests find no match.
            m.live.status = pb::MatchStatus::Aborted;
            if let Ok(mut table) = self.matches.write() {
                table.remove(&id);
            }
            self.reserved.fetch_sub(1, Ordering::AcqRel);
            removed += 1;
            tracing::info!(match_id = %id, "removed an ended match after its retention period");
        }
        removed
    }

    /// [`Hub::sweep`] for a shared store: two statements that any replica may run (each
    /// match is aborted or deleted once), then the cache forgets idle matches.
    async fn sweep_shared(&self, pg: &PgStore) -> usize {
        let now = now_ms();
        let abandon = self.limits.abandon_after.as_millis() as u64;
        let retention = self.limits.retention.as_millis() as u64;
        let swept = pg
            .sweep(
                now,
                now.saturating_sub(abandon),
                now.saturating_sub(retention),
            )
            .await;
        let (aborted, deleted) = match swept {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "sweeping the match store failed; trying again later");
                return 0;
            }
        };
        for id in &aborted {
            tracing::info!(match_id = %id, "aborted an abandoned match");
        }
        for id in &deleted {
            self.forget(id);
            tracing::info!(match_id = %id, "removed an ended match after its retention period");
        }
        self.forget_idle();
        deleted.len()
    }

    /// Drops cached matches that nobody watches, no task of ours plays, and no request used
    /// for [`CACHE_IDLE`] (a shared store reloads them when they are asked for again).
    fn forget_idle(&self) {
        let Ok(mut table) = self.matches.write() else {
            return;
        };
        table.retain(|_, m| match m.try_lock() {
            Ok(m) => m.driving || m.changes.receiver_count() > 0 || m.used.elapsed() < CACHE_IDLE,
            Err(_) => true,
        });
    }

    /// A change notice from a shared store: a watched match is reloaded at once, so that its
    /// watchers here see moves made through other replicas.
    fn on_notice(self: &Arc<Self>, notice: Notice) {
        match notice {
            Notice::Changed { id, version } => {
                let Ok(Some(m)) = self.cached(&id) else {
                    return;
                };
                // Most notices are of matches nobody here watches, or of our own writes.
                if let Ok(g) = m.try_lock()
                    && (g.version >= version || g.changes.receiver_count() == 0)
                {
                    return;
                }
                let hub = Arc::clone(self);
                tokio::spawn(async move {
                    let mut m = m.lock().await;
                    if m.version < version && m.changes.receiver_count() > 0 {
                        let _ = hub.reload(&mut m).await;
                    }
                });
            }
            Notice::Deleted { id } => self.forget(&id),
            Notice::Resync => {
                let hub = Arc::clone(self);
                tokio::spawn(async move { hub.poll().await });
            }
        }
    }

    /// The shared store's safety net, every [`POLL`]: watched matches are revalidated in one
    /// query (so a lost notice delays a Watch by one period at most), and matches whose bots
    /// no replica has played for [`STALLED`] (their replica died) are played on here.
    async fn poll(self: &Arc<Self>) {
        let Some(pg) = self.store.shared() else {
            return;
        };
        let watched: Vec<(String, Arc<Mutex<Match>>, u64)> = match self.matches.read() {
            Ok(table) => table
                .iter()
                .filter_map(|(id, m)| {
                    let g = m.try_lock().ok()?;
                    (g.changes.receiver_count() > 0).then(|| (id.clone(), Arc::clone(m), g.version))
                })
                .collect(),
            Err(_) => return,
        };
        if !watched.is_empty() {
            let ids: Vec<String> = watched.iter().map(|(id, _, _)| id.clone()).collect();
            if let Ok(versions) = pg.versions(&ids).await {
                let versions: HashMap<String, u64> = versions.into_iter().collect();
                for (id, m, version) in watched {
                    match versions.get(&id) {
                        Some(&v) if v == version => {}
                        Some(_) => {
                            let mut m = m.lock().await;
                            let _ = self.fresh(&mut m).await;
                        }
                        None => self.forget(&id),
                    }
                }
            }
        }
        let stalled = pg
            .stalled(now_ms().saturating_sub(STALLED.as_millis() as u64))
            .await
            .unwrap_or_default();
        for id in stalled {
            let Ok(m) = self.get(&id).await else { continue };
            let mut m = m.lock().await;
            if m.driving || self.fresh(&mut m).await.is_err() {
                continue;
            }
            if m.live.status == pb::MatchStatus::Active && bots_to_move(&m.meta, &m.live) {
                tracing::info!(match_id = %id, "playing on the bots of a match no replica is playing");
                m.driving = true;
                drop(m);
                Hub::drive(self, id);
            }
        }
    }

    async fn record(
        &self,
        md: &MetadataMap,
        req: &pb::GetRecordRequest,
    ) -> Result<pb::GetRecordResponse, ApiError> {
        let token = bearer(md)?;
        let m = self.get(&req.match_id).await?;
        let (meta, live) = {
            let mut m = m.lock().await;
            role_of(&m.meta, &token)?;
            self.fresh(&mut m).await?;
            (Arc::clone(&m.meta), m.live.clone())
        };
        if live.status == pb::MatchStatus::Active {
            return Err(ApiError::MatchRunning);
        }
        let limit = self.limits.max_response_bytes;
        let max_steps = if req.max_steps == 0 {
            usize::MAX
        } else {
            req.max_steps as usize
        };
        guard(|| {
            let history = live.state.history();
            let from = req.from_step;
            if from > history.len() as u64 {
                return Err(ApiError::InvalidArgument(format!(
                    "`from_step` {from} is past the end of the record ({} steps)",
                    history.len()
                )));
            }
            let mut response = pb::GetRecordResponse {
                match_id: meta.id.clone(),
                game: Some(meta.game.clone()),
                seed: meta.seed,
                seats: meta.seats.iter().map(|&k| k as i32).collect(),
                status: live.status as i32,
                resigned_seat: live.resigned_seat,
                steps: Vec::new(),
                returns: live.state.returns().to_vec(),
                final_view: Some(json_to_struct(live.state.view(Viewer::Omniscient)?)),
                state: live.state.to_bytes(),
                next_step: None,
                total_steps: history.len() as u64,
            };
            // Room for the steps: the limit less everything else, with a margin for the
            // length prefixes and `next_step`.
            let mut room = limit.saturating_sub(prost::Message::encoded_len(&response) + 64);
            let game = live.state.game();
            let mut state = game.new_initial_state();
            for (i, &a) in history.iter().enumerate() {
                if i as u64 >= from {
                    if response.steps.len() >= max_steps {
                        response.next_step = Some(i as u64);
                        break;
                    }
                    let step = pb::RecordStep {
                        index: Some(i as u64),
                        actor: Some(player_to_pb(state.current_player())),
                        action: Some(a),
                        text: state.action_to_string(a),
                    };
                    let size = prost::Message::encoded_len(&step) + 8;
                    if size > room {
                        if response.steps.is_empty() {
                            return Err(ApiError::ResourceExhausted(format!(
                                "the record does not fit in {limit} bytes even without steps"
                            )));
                        }
                        response.next_step = Some(i as u64);
                        break;
                    }
                    room -= size;
                    response.steps.push(step);
                }
                state.apply(a)?;
            }
            Ok(response)
        })
    }

    async fn watch(
        &self,
        md: &MetadataMap,
        id: &str,
    ) -> Result<mpsc::Receiver<Result<pb::WatchResponse, Status>>, ApiError> {
        let token = bearer(md)?;
        let m = self.get(id).await?;
        let (meta, snapshot, rx, over) = {
            let mut m = m.lock().await;
            let role = role_of(&m.meta, &token)?;
            self.fresh(&mut m).await?;
            if m.changes.receiver_count() >= self.limits.max_watchers_per_match {
                return Err(ApiError::ResourceExhausted(format!(
                    "this match already has {} watchers, the limit",
                    self.limits.max_watchers_per_match
                )));
            }
            let snapshot = guard(|| match_view(&m.meta, &m.live, role))?;
            (
                (Arc::clone(&m.meta), role),
                snapshot,
                m.changes.subscribe(),
                m.live.status != pb::MatchStatus::Active,
            )
        };
        let (tx, out) = mpsc::channel(64);
        let shutdown = self.shutdown.clone();
        tokio::spawn(forward(meta, snapshot, rx, over, tx, shutdown));
        Ok(out)
    }
}

/// A shared store's read failed.
fn unavailable(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "reading the match store failed");
    ApiError::StoreUnavailable
}

/// Whether bots or chance are to move in `live`.
fn bots_to_move(meta: &Meta, live: &Live) -> bool {
    match live.state.current_player() {
        Player::Chance => true,
        Player::Seat(seat) => meta.bots.get(seat).is_some_and(Option::is_some),
        Player::Terminal => false,
    }
}

fn status_name(s: pb::MatchStatus) -> &'static str {
    match s {
        pb::MatchStatus::Unspecified => "unknown",
        pb::MatchStatus::Active => "active",
        pb::MatchStatus::Finished => "finished",
        pb::MatchStatus::Resigned => "a seat resigned",
        pb::MatchStatus::Aborted => "aborted",
    }
}

/// A Watch stream's task: the snapshot, then each change redacted for the viewer.
async fn forward(
    (meta, role): (Arc<Meta>, Role),
    snapshot: pb::MatchView,
    mut rx: broadcast::Receiver<Arc<Change>>,
    over: bool,
    tx: mpsc::Sender<Result<pb::WatchResponse, Status>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let first = pb::WatchResponse {
        kind: Some(pb::watch_response::Kind::Snapshot(snapshot)),
    };
    if tx.send(Ok(first)).await.is_err() || over {
        return;
    }
    loop {
        let change = tokio::select! {
            () = stopped(&mut shutdown) => {
                let _ = tx.send(Err(ApiError::ShuttingDown.into())).await;
                return;
            }
            () = tx.closed() => return,
            r = rx.recv() => r,
        };
        let change = match change {
            Ok(c) => c,
            Err(broadcast::error::RecvError::Lagged(n)) => {
                let msg = format!("this stream fell {n} events behind; call Watch again");
                let _ = tx.send(Err(ApiError::ResourceExhausted(msg).into())).await;
                return;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if send_change(&meta, role, &change, &tx).await {
            return;
        }
    }
}

/// Resolves once the server is shutting down.
async fn stopped(rx: &mut watch::Receiver<bool>) {
    // The guard is dropped at once: it must not live across an await.
    let _ = rx.wait_for(|&s| s).await;
}

/// The text `role` sees for `action` about to be applied at `state`, if it learns of it.
fn text_for(role: Role, state: &AnyState, action: Action) -> Option<String> {
    match (role, state.current_player()) {
        (Role::Seat(s), Player::Seat(a)) if s == a => Some(
            state
                .action_to_string_for(Viewer::Seat(s), action)
                .unwrap_or_else(|| state.action_to_string(action)),
        ),
        _ => state.action_to_string_for(role.viewer(), action),
    }
}

/// The event `role` is sent after a change left the match at `after`, and whether the
/// match ended.
fn event(
    meta: &Meta,
    role: Role,
    actor: Option<Player>,
    text: String,
    after: &Live,
) -> Result<(pb::WatchResponse, bool), ApiError> {
    let ended = after.status != pb::MatchStatus::Active;
    let view = match_view(meta, after, role)?;
    Ok((
        pb::WatchResponse {
            kind: Some(pb::watch_response::Kind::Event(pb::MatchEvent {
                actor: actor.map(player_to_pb),
                text,
                view: Some(view),
            })),
        },
        ended,
    ))
}

/// Sends `role` its events of `change`; returns true once the stream is done (the match
/// ended, the client went away, or an error was sent).
async fn send_change(
    meta: &Meta,
    role: Role,
    change: &Change,
    tx: &mpsc::Sender<Result<pb::WatchResponse, Status>>,
) -> bool {
    match change {
        Change::Actions { before, actions } => {
            let mut live = before.clone();
            for &action in actions {
                let actor = live.state.current_player();
                let text = guard(|| Ok(text_for(role, &live.state, action)));
                step(&mut live, action);
                let sent = match text {
                    Ok(None) => continue,
                    Ok(Some(text)) => guard(|| event(meta, role, Some(actor), text, &live)),
                    Err(e) => Err(e),
                };
                match sent {
                    Ok((event, ended)) => {
                        if tx.send(Ok(event)).await.is_err() || ended {
                            return true;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.into())).await;
                        return true;
                    }
                }
            }
            false
        }
        Change::Ended { after } => {
            let text = match after.resigned_seat {
                Some(s) => format!("seat {s} resigned"),
                None => "the match was aborted".to_owned(),
            };
            match guard(|| event(meta, role, None, text, after)) {
                Ok((event, ended)) => tx.send(Ok(event)).await.is_err() || ended,
                Err(e) => {
                    let _ = tx.send(Err(e.into())).await;
                    true
                }
            }
        }
    }
}

type Reply<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl Matches for MatchesService {
    async fn create_match(
        &self,
        req: Request<pb::CreateMatchRequest>,
    ) -> Reply<pb::CreateMatchResponse> {
        let hub = Arc::clone(&self.hub);
        let (md, _, req) = req.into_parts();
        let created = detached(async move { hub.create(&md, req).await }).await?;
        Ok(Response::new(created))
    }

    async fn get_view(&self, req: Request<pb::GetViewRequest>) -> Reply<pb::GetViewResponse> {
        let view = self
            .hub
            .get_view(req.metadata(), &req.get_ref().match_id)
            .await?;
        Ok(Response::new(pb::GetViewResponse { view: Some(view) }))
    }

    async fn act(&self, req: Request<pb::ActRequest>) -> Reply<pb::ActResponse> {
        // Not detached: `act` finishes its change itself if it is dropped mid-commit
        // (`PendingCommit`), which spares the common path a task.
        let (md, _, req) = req.into_parts();
        let view = self.hub.act(&md, req).await?;
        Ok(Response::new(pb::ActResponse { view: Some(view) }))
    }

    type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchResponse, Status>> + Send>>;

    async fn watch(&self, req: Request<pb::WatchRequest>) -> Reply<Self::WatchStream> {
        let rx = self
            .hub
            .watch(req.metadata(), &req.get_ref().match_id)
            .await?;
        Ok(Response::new(Box::pin(UntilShutdown::new(
            ReceiverStream::new(rx),
            self.hub.shutdown.clone(),
        ))))
    }

    async fn get_record(&self, req: Request<pb::GetRecordRequest>) -> Reply<pb::GetRecordResponse> {
        Ok(Response::new(
            self.hub.record(req.metadata(), req.get_ref()).await?,
        ))
    }

    async fn resign(&self, req: Request<pb::ResignRequest>) -> Reply<pb::ResignResponse> {
        let hub = Arc::clone(&self.hub);
        let (md, _, req) = req.into_parts();
        let view =
            detached(async move { hub.end(&md, &req.match_id, Some(req.seat)).await }).await?;
        Ok(Response::new(pb::ResignResponse { view: Some(view) }))
    }

    async fn abort_match(
        &self,
        req: Request<pb::AbortMatchRequest>,
    ) -> Reply<pb::AbortMatchResponse> {
        let hub = Arc::clone(&self.hub);
        let (md, _, req) = req.into_parts();
        let view = detached(async move { hub.end(&md, &req.match_id, None).await }).await?;
        Ok(Response::new(pb::AbortMatchResponse { view: Some(view) }))
    }
}
