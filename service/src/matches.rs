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
use std::pin::Pin;
use std::sync::{Arc, RwLock};

use cardhouse::{Action, AnyGame, AnyState, Player, Rng, SeededRng, Viewer};
use tokio::sync::{Mutex, broadcast, mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};

use crate::convert::{
    game_info, json_to_struct, options_from_pb, player_legal_actions, player_to_pb,
};
use crate::engine_service::mix;
use crate::error::{ApiError, guard};
use crate::pb;
use crate::pb::matches_server::Matches;
use crate::store::{STORED_FORMAT, Store, StoredMatch};

/// Salt that separates bot choices from chance draws of the same move number.
const BOT_SALT: u64 = 0xB07B_07B0_7B07_B07B;

/// Limits of the Matches service.
#[derive(Clone, Debug)]
pub struct MatchLimits {
    /// Most matches held (finished ones included).
    pub max_matches: usize,
    /// Most concurrent Watch streams per match.
    pub max_watchers_per_match: usize,
}

impl Default for MatchLimits {
    fn default() -> Self {
        MatchLimits {
            max_matches: 100_000,
            max_watchers_per_match: 64,
        }
    }
}

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
}

/// One change, as broadcast to watchers; each watcher redacts it for its own viewer.
#[derive(Debug)]
enum Change {
    Action {
        before: Box<AnyState>,
        action: Action,
        after: Live,
    },
    /// The match ended by resignation or abort.
    Ended { after: Live },
}

#[derive(Debug)]
struct Match {
    meta: Arc<Meta>,
    live: Live,
    changes: broadcast::Sender<Arc<Change>>,
}

/// The shared state of the Matches service.
#[derive(Debug)]
pub struct Hub {
    matches: RwLock<HashMap<String, Arc<Mutex<Match>>>>,
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
        Ok(MatchesService {
            hub: Arc::new(Hub {
                matches: RwLock::new(matches),
                store,
                limits,
                shutdown,
            }),
        })
    }

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
    Ok(Match {
        meta: Arc::new(meta),
        live: Live {
            state,
            status: match pb::MatchStatus::try_from(s.status) {
                Ok(pb::MatchStatus::Active) | Ok(pb::MatchStatus::Unspecified) | Err(_)
                    if terminal =>
                {
                    pb::MatchStatus::Finished
                }
                Ok(pb::MatchStatus::Unspecified) | Err(_) => pb::MatchStatus::Active,
                Ok(status) => status,
            },
            resigned_seat: s.resigned_seat,
            known,
        },
        changes: broadcast::channel(1024).0,
    })
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

/// Constant-time string equality (tokens).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The bearer token of a request.
fn bearer(md: &MetadataMap) -> Result<String, ApiError> {
    const MISSING: &str = "missing `authorization: Bearer <token>` metadata";
    let value = md
        .get("authorization")
        .ok_or(ApiError::Unauthenticated(MISSING))?
        .to_str()
        .map_err(|_| ApiError::Unauthenticated(MISSING))?;
    let (scheme, token) = value
        .trim()
        .split_once(' ')
        .ok_or(ApiError::Unauthenticated(MISSING))?;
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(ApiError::Unauthenticated(MISSING));
    }
    Ok(token.trim().to_owned())
}

fn role_of(meta: &Meta, token: &str) -> Result<Role, ApiError> {
    if same(token, &meta.owner_token) {
        return Ok(Role::Owner);
    }
    if same(token, &meta.spectator_token) {
        return Ok(Role::Spectator);
    }
    for (seat, t) in meta.seat_tokens.iter().enumerate() {
        if let Some(t) = t
            && same(token, t)
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
        seat: seat as u32,
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

/// Applies chance and bot moves until a human seat is to move or the match ends.
fn advance(meta: &Meta, live: &mut Live, moves: &mut Moves) {
    loop {
        let state = &live.state;
        let action = match state.current_player() {
            Player::Terminal => {
                live.status = pb::MatchStatus::Finished;
                return;
            }
            Player::Chance => {
                let mut rng = SeededRng::new(mix(meta.seed, state.move_number() as u64));
                match state.chance_outcomes() {
                    Ok(outcomes) => sample(&outcomes, &mut rng),
                    Err(_) => None,
                }
            }
            Player::Seat(s) => {
                if meta.seats.get(s) != Some(&pb::SeatKind::RandomBot) {
                    return;
                }
                let mut rng = SeededRng::new(mix(meta.seed ^ BOT_SALT, state.move_number() as u64));
                state.legal_actions().choose(&mut rng)
            }
        };
        let Some(action) = action else {
            // No legal action at a non-terminal node would be an engine bug; stop here
            // rather than loop (the match stays as it is).
            tracing::error!(match_id = %meta.id, "no action available at a non-terminal state");
            return;
        };
        // Cannot fail: unchecked.
        let _ = apply_counted(live, action, false, moves);
    }
}

/// Draws an outcome with the given probabilities.
fn sample(outcomes: &[(Action, f64)], rng: &mut SeededRng) -> Option<Action> {
    // 53 random bits as a uniform float in [0, 1).
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut acc = 0.0;
    for &(a, p) in outcomes {
        acc += p;
        if u < acc {
            return Some(a);
        }
    }
    outcomes.last().map(|&(a, _)| a)
}

/// What one request applies to a match: the actions (what the store appends) and, only if
/// someone watches the match, the changes to broadcast.
#[derive(Debug, Default)]
struct Moves {
    actions: Vec<Action>,
    record: bool,
    changes: Vec<Change>,
}

impl Moves {
    fn new(record: bool) -> Moves {
        Moves {
            record,
            ..Moves::default()
        }
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
    let before = moves.record.then(|| Box::new(live.state.clone()));
    count_known(&live.state, action, &mut live.known);
    live.state.apply_unchecked(action);
    moves.actions.push(action);
    if live.state.is_terminal() {
        live.status = pb::MatchStatus::Finished;
    }
    if let Some(before) = before {
        moves.changes.push(Change::Action {
            before,
            action,
            after: live.clone(),
        });
    }
    Ok(())
}

impl Hub {
    fn get(&self, id: &str) -> Result<Arc<Mutex<Match>>, ApiError> {
        let matches = self
            .matches
            .read()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?;
        matches
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::MatchNotFound(id.to_owned()))
    }

    /// Stores `live` durably (the new actions only, or with `snapshot` the whole match),
    /// then makes it the match's state and tells watchers.
    async fn commit(
        &self,
        m: &mut Match,
        live: Live,
        moves: Moves,
        snapshot: bool,
    ) -> Result<(), ApiError> {
        let stored = if snapshot {
            self.store.put(&stored(&m.meta, &live)).await
        } else {
            let from = m.live.state.move_number();
            self.store
                .append(&m.meta.id, from as u64, &moves.actions)
                .await
        };
        stored.map_err(|e| ApiError::Internal(format!("match {}: {e}", m.meta.id)))?;
        m.live = live;
        for c in moves.changes {
            let _ = m.changes.send(Arc::new(c));
        }
        Ok(())
    }

    async fn create(
        &self,
        req: pb::CreateMatchRequest,
    ) -> Result<pb::CreateMatchResponse, ApiError> {
        if self.len() >= self.limits.max_matches {
            return Err(ApiError::ResourceExhausted(format!(
                "the server holds its limit of {} matches",
                self.limits.max_matches
            )));
        }
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
                    pb::SeatKind::Unspecified => Err(ApiError::InvalidArgument(
                        "every seat must be SEAT_KIND_HUMAN or SEAT_KIND_RANDOM_BOT".into(),
                    )),
                    kind => Ok(kind),
                })
                .collect::<Result<_, _>>()?
        };
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
        let meta = Arc::new(Meta {
            id: random_hex()?,
            game: game_info(&game),
            seed,
            seats,
            seat_tokens,
            owner_token: random_hex()?,
            spectator_token: random_hex()?,
        });
        let mut live = Live {
            state: game.new_initial_state(),
            status: pb::MatchStatus::Active,
            resigned_seat: None,
            known: vec![0; n + 1],
        };
        guard(|| {
            advance(&meta, &mut live, &mut Moves::new(false));
            Ok(())
        })?;
        self.store
            .put(&stored(&meta, &live))
            .await
            .map_err(|e| ApiError::Internal(format!("match {}: {e}", meta.id)))?;
        let view = match_view(&meta, &live, Role::Spectator)?;
        let response = pb::CreateMatchResponse {
            match_id: meta.id.clone(),
            seat_tokens: meta
                .seat_tokens
                .iter()
                .enumerate()
                .filter_map(|(seat, t)| {
                    t.as_ref().map(|t| pb::SeatToken {
                        seat: seat as u32,
                        token: t.clone(),
                    })
                })
                .collect(),
            owner_token: meta.owner_token.clone(),
            spectator_token: meta.spectator_token.clone(),
            seed,
            view: Some(view),
        };
        tracing::info!(match_id = %meta.id, game = %meta.game.name, "match created");
        let m = Match {
            meta: Arc::clone(&meta),
            live,
            changes: broadcast::channel(1024).0,
        };
        self.matches
            .write()
            .map_err(|_| ApiError::Internal("match table lock poisoned".into()))?
            .insert(meta.id.clone(), Arc::new(Mutex::new(m)));
        Ok(response)
    }

    fn len(&self) -> usize {
        self.matches.read().map_or(0, |m| m.len())
    }

    async fn get_view(&self, md: &MetadataMap, id: &str) -> Result<pb::MatchView, ApiError> {
        let token = bearer(md)?;
        let m = self.get(id)?;
        let m = m.lock().await;
        let role = role_of(&m.meta, &token)?;
        guard(|| match_view(&m.meta, &m.live, role))
    }

    async fn act(&self, md: &MetadataMap, req: pb::ActRequest) -> Result<pb::MatchView, ApiError> {
        let token = bearer(md)?;
        let m = self.get(&req.match_id)?;
        let mut m = m.lock().await;
        let seat = match role_of(&m.meta, &token)? {
            Role::Seat(s) => s,
            Role::Owner | Role::Spectator => {
                return Err(ApiError::PermissionDenied(
                    "only a seat token can act; this is an owner or spectator token",
                ));
            }
        };
        if m.live.status != pb::MatchStatus::Active {
            return Err(ApiError::MatchOver(status_name(m.live.status)));
        }
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
        let meta = Arc::clone(&m.meta);
        let mut live = m.live.clone();
        let mut moves = Moves::new(m.changes.receiver_count() > 0);
        guard(|| {
            apply_counted(&mut live, action, true, &mut moves)?;
            advance(&meta, &mut live, &mut moves);
            Ok(())
        })?;
        // A match that just finished gets a full snapshot with its final status.
        let snapshot = live.status != pb::MatchStatus::Active;
        self.commit(&mut m, live, moves, snapshot).await?;
        tracing::debug!(
            match_id = %meta.id,
            seat,
            move_number = m.live.known[meta.seats.len()],
            "seat acted"
        );
        guard(|| match_view_with(&m.meta, &m.live, Role::Seat(seat), req.include_view))
    }

    async fn end(
        &self,
        md: &MetadataMap,
        id: &str,
        resign_seat: Option<Option<u32>>,
    ) -> Result<pb::MatchView, ApiError> {
        let token = bearer(md)?;
        let m = self.get(id)?;
        let mut m = m.lock().await;
        let role = role_of(&m.meta, &token)?;
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
        if m.live.status != pb::MatchStatus::Active {
            return Err(ApiError::MatchOver(status_name(m.live.status)));
        }
        let mut live = m.live.clone();
        live.status = status;
        live.resigned_seat = resigned;
        let moves = Moves {
            changes: vec![Change::Ended {
                after: live.clone(),
            }],
            ..Moves::default()
        };
        self.commit(&mut m, live, moves, true).await?;
        tracing::info!(match_id = %m.meta.id, status = status_name(status), "match ended early");
        guard(|| match_view(&m.meta, &m.live, role))
    }

    async fn record(&self, md: &MetadataMap, id: &str) -> Result<pb::GetRecordResponse, ApiError> {
        let token = bearer(md)?;
        let m = self.get(id)?;
        let (meta, live) = {
            let m = m.lock().await;
            role_of(&m.meta, &token)?;
            (Arc::clone(&m.meta), m.live.clone())
        };
        if live.status == pb::MatchStatus::Active {
            return Err(ApiError::MatchRunning);
        }
        guard(|| {
            let game = live.state.game();
            let mut state = game.new_initial_state();
            let mut steps = Vec::new();
            for (i, a) in live.state.history().into_iter().enumerate() {
                steps.push(pb::RecordStep {
                    index: i as u64,
                    actor: Some(player_to_pb(state.current_player())),
                    action: a,
                    text: state.action_to_string(a),
                });
                state.apply(a)?;
            }
            Ok(pb::GetRecordResponse {
                match_id: meta.id.clone(),
                game: Some(meta.game.clone()),
                seed: meta.seed,
                seats: meta.seats.iter().map(|&k| k as i32).collect(),
                status: live.status as i32,
                resigned_seat: live.resigned_seat,
                steps,
                returns: live.state.returns().to_vec(),
                final_view: Some(json_to_struct(live.state.view(Viewer::Omniscient)?)),
                state: live.state.to_bytes(),
            })
        })
    }

    async fn watch(
        &self,
        md: &MetadataMap,
        id: &str,
    ) -> Result<mpsc::Receiver<Result<pb::WatchResponse, Status>>, ApiError> {
        let token = bearer(md)?;
        let m = self.get(id)?;
        let (meta, snapshot, rx, over) = {
            let m = m.lock().await;
            let role = role_of(&m.meta, &token)?;
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
        let event = guard(|| redact(&meta, role, &change));
        let (event, ended) = match event {
            Ok(Some(e)) => e,
            Ok(None) => continue,
            Err(e) => {
                let _ = tx.send(Err(e.into())).await;
                return;
            }
        };
        if tx.send(Ok(event)).await.is_err() || ended {
            return;
        }
    }
}

/// Resolves once the server is shutting down.
async fn stopped(rx: &mut watch::Receiver<bool>) {
    // The guard is dropped at once: it must not live across an await.
    let _ = rx.wait_for(|&s| s).await;
}

/// The event `role` sees for `change`, if it learns of it, and whether the match ended.
fn redact(
    meta: &Meta,
    role: Role,
    change: &Change,
) -> Result<Option<(pb::WatchResponse, bool)>, ApiError> {
    let (actor, text, after) = match change {
        Change::Action {
            before,
            action,
            after,
        } => {
            let actor = before.current_player();
            let text = match (role, actor) {
                (Role::Seat(s), Player::Seat(a)) if s == a => Some(
                    before
                        .action_to_string_for(Viewer::Seat(s), *action)
                        .unwrap_or_else(|| before.action_to_string(*action)),
                ),
                _ => before.action_to_string_for(role.viewer(), *action),
            };
            let Some(text) = text else {
                return Ok(None);
            };
            (Some(player_to_pb(actor)), text, after)
        }
        Change::Ended { after } => {
            let text = match after.resigned_seat {
                Some(s) => format!("seat {s} resigned"),
                None => "the match was aborted".to_owned(),
            };
            (None, text, after)
        }
    };
    let ended = after.status != pb::MatchStatus::Active;
    let view = match_view(meta, after, role)?;
    Ok(Some((
        pb::WatchResponse {
            kind: Some(pb::watch_response::Kind::Event(pb::MatchEvent {
                actor,
                text,
                view: Some(view),
            })),
        },
        ended,
    )))
}

type Reply<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl Matches for MatchesService {
    async fn create_match(
        &self,
        req: Request<pb::CreateMatchRequest>,
    ) -> Reply<pb::CreateMatchResponse> {
        Ok(Response::new(self.hub.create(req.into_inner()).await?))
    }

    async fn get_view(&self, req: Request<pb::GetViewRequest>) -> Reply<pb::GetViewResponse> {
        let view = self
            .hub
            .get_view(req.metadata(), &req.get_ref().match_id)
            .await?;
        Ok(Response::new(pb::GetViewResponse { view: Some(view) }))
    }

    async fn act(&self, req: Request<pb::ActRequest>) -> Reply<pb::ActResponse> {
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
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn get_record(&self, req: Request<pb::GetRecordRequest>) -> Reply<pb::GetRecordResponse> {
        Ok(Response::new(
            self.hub
                .record(req.metadata(), &req.get_ref().match_id)
                .await?,
        ))
    }

    async fn resign(&self, req: Request<pb::ResignRequest>) -> Reply<pb::ResignResponse> {
        let seat = req.get_ref().seat;
        let view = self
            .hub
            .end(req.metadata(), &req.get_ref().match_id, Some(seat))
            .await?;
        Ok(Response::new(pb::ResignResponse { view: Some(view) }))
    }

    async fn abort_match(
        &self,
        req: Request<pb::AbortMatchRequest>,
    ) -> Reply<pb::AbortMatchResponse> {
        let view = self
            .hub
            .end(req.metadata(), &req.get_ref().match_id, None)
            .await?;
        Ok(Response::new(pb::AbortMatchResponse { view: Some(view) }))
    }
}
