//! `cardhouse.v1.Engine`: stateless handlers over serialized states.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cardhouse::{AnyState, Rng, SeededRng, Viewer};
use tonic::{Request, Response, Status};

use crate::bot_action::bot_action;
use crate::convert::{
    decode_state, game_description, json_to_struct, legal_actions, options_from_pb, player_to_pb,
};
use crate::error::{ApiError, guard, within_limit};
use crate::matches::{BotLimits, MatchLimits};
use crate::pb;
use crate::pb::engine_server::Engine;

/// Limits of the stateless service.
#[derive(Clone, Debug)]
pub struct EngineLimits {
    /// Most states in one BatchStep request.
    pub max_batch_states: usize,
    /// Most actions and chance outcomes one BatchStep request may apply in all (its work).
    pub max_batch_actions: u64,
    /// Largest response: a BatchStep whose results would not fit stops early with
    /// RESOURCE_EXHAUSTED instead of building it (its memory).
    pub max_response_bytes: usize,
    /// The work a BotAction's bot may do a move: [`crate::serve`] gives it the limits of
    /// the server's bot seats ([`crate::matches::MatchLimits::bot_limits`]).
    pub bots: BotLimits,
    /// The most time a BotAction's bot thinks (then it plays its best move so far): the
    /// bot seats' (`--bot-move-ms`).
    pub bot_move_time: Duration,
}

impl Default for EngineLimits {
    fn default() -> Self {
        EngineLimits {
            max_batch_states: 100_000,
            max_batch_actions: 50_000_000,
            max_response_bytes: 16 * 1024 * 1024,
            bots: BotLimits::default(),
            bot_move_time: MatchLimits::default().bot_move_time,
        }
    }
}

/// Who may call the Engine service, which (meant for trusted callers: it applies any state
/// it is given and shows every hand) can be switched off or put behind a credential.
#[derive(Clone, Debug, Default)]
pub enum EngineAccess {
    /// Anyone who can reach the server.
    #[default]
    Open,
    /// Not served (UNIMPLEMENTED).
    Off,
    /// Only requests with `authorization: Bearer <token>`.
    Token(String),
}

impl EngineAccess {
    /// The interceptor's check.
    ///
    /// # Errors
    /// `UNAUTHENTICATED` without the credential.
    #[allow(clippy::result_large_err)]
    pub fn check(&self, req: Request<()>) -> Result<Request<()>, Status> {
        match self {
            EngineAccess::Open | EngineAccess::Off => Ok(req),
            EngineAccess::Token(t) => {
                crate::auth::check_credential(
                    req.metadata(),
                    Some(t),
                    "the Engine service needs its credential (`authorization: Bearer <token>`)",
                )?;
                Ok(req)
            }
        }
    }
}

/// Set when the client of a request has gone away (its handler future was dropped), so
/// that blocking work for it stops.
#[derive(Clone, Debug, Default)]
struct Cancel(Arc<AtomicBool>);

impl Cancel {
    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Sets the flag when dropped (the handler future ends, normally or not).
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.0.store(true, Ordering::Relaxed);
    }
}

/// The stateless Engine service.
#[derive(Debug, Default)]
pub struct EngineService {
    limits: EngineLimits,
}

impl EngineService {
    pub fn new(limits: EngineLimits) -> Self {
        EngineService { limits }
    }
}

fn summary(state: &AnyState) -> pb::StateSummary {
    pb::StateSummary {
        state: state.to_bytes(),
        current_player: Some(player_to_pb(state.current_player())),
        legal_actions: state.legal_actions().to_vec(),
        move_number: state.move_number() as u64,
        returns: state.returns().to_vec(),
        is_terminal: state.is_terminal(),
    }
}

fn new_game(
    game: &str,
    options: &std::collections::HashMap<String, String>,
) -> Result<cardhouse::AnyGame, ApiError> {
    Ok(cardhouse::new_game(game, &options_from_pb(options))?)
}

/// Random playout of one state: chance from the same generator, at most `max_steps` player
/// actions (0 = until terminal). Returns (player actions, chance outcomes).
fn random_playout(
    state: &mut AnyState,
    rng: &mut SeededRng,
    max_steps: u32,
    budget: &mut Budget,
) -> Result<(u32, u32), ApiError> {
    let mut steps = 0u32;
    let mut chance = 0u32;
    loop {
        budget.spend(1)?;
        if state.is_chance_node() {
            let before = state.move_number();
            state.resolve_chance(rng)?;
            chance += (state.move_number() - before) as u32;
            continue;
        }
        if state.is_terminal() || (max_steps != 0 && steps >= max_steps) {
            return Ok((steps, chance));
        }
        let legal = state.legal_actions();
        let n = legal.len();
        if n == 0 {
            return Ok((steps, chance));
        }
        let a = legal.nth(rng.below(n as u64) as usize).unwrap_or(0);
        // Legal by construction.
        state.apply_unchecked(a);
        steps += 1;
    }
}

fn scripted(state: &mut AnyState, actions: &[u32]) -> Result<(u32, u32), cardhouse::Error> {
    let mut steps = 0;
    let mut chance = 0;
    for &a in actions {
        let is_chance = state.is_chance_node();
        state.apply(a)?;
        if is_chance {
            chance += 1;
        } else {
            steps += 1;
        }
    }
    Ok((steps, chance))
}

/// The work and memory one BatchStep request may still use.
struct Budget {
    actions_left: u64,
    max_actions: u64,
    bytes_left: usize,
    max_bytes: usize,
    cancel: Cancel,
}

impl Budget {
    /// Counts `n` actions; fails once the request's work bound is spent or its client gone.
    fn spend(&mut self, n: u64) -> Result<(), ApiError> {
        if self.actions_left < n {
            return Err(ApiError::ResourceExhausted(format!(
                "this batch would apply more than {} actions, the limit per request; \
                 send fewer states or set `max_steps`",
                self.max_actions
            )));
        }
        self.actions_left -= n;
        if self.actions_left.is_multiple_of(4096) && self.cancel.is_set() {
            return Err(ApiError::Cancelled);
        }
        Ok(())
    }

    /// Counts a result of `n` encoded bytes against the response limit.
    fn hold(&mut self, n: usize) -> Result<(), ApiError> {
        if self.bytes_left < n {
            return Err(ApiError::ResourceExhausted(format!(
                "the results would exceed the response limit of {} bytes; send fewer states \
                 or leave `return_states` off",
                self.max_bytes
            )));
        }
        self.bytes_left -= n;
        if self.cancel.is_set() {
            return Err(ApiError::Cancelled);
        }
        Ok(())
    }
}

fn batch_step(
    req: pb::BatchStepRequest,
    limits: &EngineLimits,
    cancel: Cancel,
) -> Result<pb::BatchStepResponse, ApiError> {
    let mut budget = Budget {
        actions_left: limits.max_batch_actions,
        max_actions: limits.max_batch_actions,
        // Room for the totals and the framing.
        bytes_left: limits.max_response_bytes.saturating_sub(64),
        max_bytes: limits.max_response_bytes,
        cancel,
    };
    let too_many = |n: usize| {
        ApiError::ResourceExhausted(format!(
            "{n} states in one batch; at most {} are allowed",
            limits.max_batch_states
        ))
    };
    let mut states: Vec<AnyState> = match req.start {
        Some(pb::batch_step_request::Start::States(list)) => {
            if list.states.len() > limits.max_batch_states {
                return Err(too_many(list.states.len()));
            }
            list.states
                .iter()
                .enumerate()
                .map(|(i, b)| decode_state(b).map_err(|e| at_index(i, e)))
                .collect::<Result<_, _>>()?
        }
        Some(pb::batch_step_request::Start::Fresh(fresh)) => {
            let count = fresh.count as usize;
            if count > limits.max_batch_states {
                return Err(too_many(count));
            }
            let game = new_game(&fresh.game, &fresh.options)?;
            let initial = game.new_initial_state();
            vec![initial; count]
        }
        None => {
            return Err(ApiError::InvalidArgument(
                "set `states` or `fresh` to say which states to step".into(),
            ));
        }
    };
    let mut results = Vec::with_capacity(states.len());
    let (mut total_steps, mut total_chance) = (0u64, 0u64);
    match req.policy {
        Some(pb::batch_step_request::Policy::Random(policy)) => {
            for (i, state) in states.iter_mut().enumerate() {
                let mut rng = SeededRng::new(cardhouse::seeds::mix(policy.seed, i as u64));
                let (s, c) = random_playout(state, &mut rng, req.max_steps, &mut budget)?;
                total_steps += u64::from(s);
                total_chance += u64::from(c);
                let result = step_result(state, s, c, req.return_states);
                budget.hold(prost::Message::encoded_len(&result) + 8)?;
                results.push(result);
            }
        }
        Some(pb::batch_step_request::Policy::Script(script)) => {
            if script.per_state.len() != states.len() {
                return Err(ApiError::InvalidArgument(format!(
                    "the script has {} action lists for {} states; give one list per state",
                    script.per_state.len(),
                    states.len()
                )));
            }
            for (i, (state, list)) in states.iter_mut().zip(&script.per_state).enumerate() {
                budget.spend(list.actions.len() as u64)?;
                let (s, c) = scripted(state, &list.actions).map_err(|e| at_index(i, e.into()))?;
                total_steps += u64::from(s);
                total_chance += u64::from(c);
                let result = step_result(state, s, c, req.return_states);
                budget.hold(prost::Message::encoded_len(&result) + 8)?;
                results.push(result);
            }
        }
        None => {
            return Err(ApiError::InvalidArgument(
                "set `random` or `script` to say how to step".into(),
            ));
        }
    }
    Ok(pb::BatchStepResponse {
        results,
        total_steps,
        total_chance_outcomes: total_chance,
    })
}

fn step_result(state: &AnyState, steps: u32, chance: u32, with_state: bool) -> pb::StepResult {
    pb::StepResult {
        state: if with_state {
            state.to_bytes()
        } else {
            Vec::new()
        },
        current_player: Some(player_to_pb(state.current_player())),
        steps,
        chance_outcomes: chance,
        is_terminal: state.is_terminal(),
        returns: state.returns().to_vec(),
    }
}

/// Prefixes an error with the index of the state it concerns (keeping its status code).
fn at_index(i: usize, err: ApiError) -> ApiError {
    match err {
        ApiError::Engine(e) => match e {
            cardhouse::Error::Decode(m) => {
                ApiError::Engine(cardhouse::Error::Decode(format!("state {i}: {m}")))
            }
            cardhouse::Error::IllegalAction {
                action,
                name,
                reason,
            } => ApiError::Engine(cardhouse::Error::IllegalAction {
                action,
                name,
                reason: format!("{reason} (state {i})"),
            }),
            cardhouse::Error::UnknownAction { action, reason } => {
                ApiError::Engine(cardhouse::Error::UnknownAction {
                    action,
                    reason: format!("{reason} (state {i})"),
                })
            }
            other => ApiError::Engine(other),
        },
        ApiError::InvalidArgument(m) => ApiError::InvalidArgument(format!("state {i}: {m}")),
        other => other,
    }
}

/// The exact values of the legal actions at a state of trick play. A state the solver does
/// not take (Cribbage, a state outside the play) is the caller's mistake: INVALID_ARGUMENT
/// with the engine's reason.
fn solve(req: &pb::SolveRequest) -> Result<pb::SolveResponse, ApiError> {
    let state = decode_state(&req.state)?;
    let not_solvable = |e: cardhouse::Error| match e {
        cardhouse::Error::WrongNode(why) => ApiError::InvalidArgument(why),
        other => ApiError::Engine(other),
    };
    let solvable = state.solvable().map_err(not_solvable)?;
    let solution = cardhouse::solve::solve(solvable).map_err(not_solvable)?;
    Ok(pb::SolveResponse {
        seat: solution.seat as u32,
        value: solution.value,
        actions: solution
            .actions
            .iter()
            .map(|&(id, value)| pb::SolvedAction {
                id: Some(id),
                text: state.action_to_string(id),
                value,
            })
            .collect(),
    })
}

type Reply<T> = Result<Response<T>, Status>;

impl EngineService {
    /// The reply to send: `RESOURCE_EXHAUSTED` if it is over the message limit.
    fn reply<T: prost::Message>(&self, r: Result<T, ApiError>) -> Reply<T> {
        within_limit(
            self.limits.max_response_bytes,
            r.map(Response::new).map_err(Status::from),
        )
    }
}

#[tonic::async_trait]
impl Engine for EngineService {
    async fn list_games(&self, _: Request<pb::ListGamesRequest>) -> Reply<pb::ListGamesResponse> {
        self.reply(guard(|| {
            let games = cardhouse::list_games()
                .iter()
                .map(|name| {
                    let game = cardhouse::new_game(name, &Default::default())?;
                    Ok(game_description(&game))
                })
                .collect::<Result<_, ApiError>>()?;
            Ok(pb::ListGamesResponse { games })
        }))
    }

    async fn describe_game(
        &self,
        req: Request<pb::DescribeGameRequest>,
    ) -> Reply<pb::DescribeGameResponse> {
        let req = req.into_inner();
        self.reply(guard(|| {
            let game = new_game(&req.game, &req.options)?;
            Ok(pb::DescribeGameResponse {
                game: Some(game_description(&game)),
            })
        }))
    }

    async fn new_initial_state(
        &self,
        req: Request<pb::NewInitialStateRequest>,
    ) -> Reply<pb::NewInitialStateResponse> {
        let req = req.into_inner();
        self.reply(guard(|| {
            let game = new_game(&req.game, &req.options)?;
            Ok(pb::NewInitialStateResponse {
                state: Some(summary(&game.new_initial_state())),
            })
        }))
    }

    async fn apply_chance(
        &self,
        req: Request<pb::ApplyChanceRequest>,
    ) -> Reply<pb::ApplyChanceResponse> {
        let req = req.into_inner();
        self.reply(guard(|| {
            let mut state = decode_state(&req.state)?;
            if !state.is_chance_node() {
                return Err(cardhouse::Error::WrongNode(
                    "no chance event is pending at this state".into(),
                )
                .into());
            }
            match req.source {
                Some(pb::apply_chance_request::Source::Seed(seed)) => {
                    state.resolve_chance(&mut SeededRng::new(seed))?;
                }
                Some(pb::apply_chance_request::Source::Outcome(outcome)) => state.apply(outcome)?,
                None => {
                    return Err(ApiError::InvalidArgument(
                        "set `seed` or `outcome` to say how to resolve chance".into(),
                    ));
                }
            }
            Ok(pb::ApplyChanceResponse {
                state: Some(summary(&state)),
            })
        }))
    }

    async fn legal_actions(
        &self,
        req: Request<pb::LegalActionsRequest>,
    ) -> Reply<pb::LegalActionsResponse> {
        let req = req.into_inner();
        self.reply(guard(|| {
            let state = decode_state(&req.state)?;
            Ok(pb::LegalActionsResponse {
                current_player: Some(player_to_pb(state.current_player())),
                actions: legal_actions(&state)?,
            })
        }))
    }

    async fn apply_action(
        &self,
        req: Request<pb::ApplyActionRequest>,
    ) -> Reply<pb::ApplyActionResponse> {
        let req = req.into_inner();
        self.reply(guard(|| {
            let mut state = decode_state(&req.state)?;
            if state.is_chance_node() {
                return Err(cardhouse::Error::WrongNode(
                    "a chance event is pending; resolve it with ApplyChance".into(),
                )
                .into());
            }
            let action = match req.action {
                Some(pb::apply_action_request::Action::ActionId(id)) => id,
                Some(pb::apply_action_request::Action::ActionText(text)) => {
                    state.string_to_action(&text)?
                }
                None => {
                    return Err(ApiError::InvalidArgument(
                        "set `action_id` or `action_text`".into(),
                    ));
                }
            };
            state.apply(action)?;
            Ok(pb::ApplyActionResponse {
                state: Some(summary(&state)),
            })
        }))
    }

    async fn observe(&self, req: Request<pb::ObserveRequest>) -> Reply<pb::ObserveResponse> {
        let req = req.into_inner();
        self.reply(guard(|| {
            let state = decode_state(&req.state)?;
            let seat = req.seat as usize;
            let viewer = match pb::ViewerKind::try_from(req.viewer) {
                Ok(pb::ViewerKind::Seat) => Viewer::Seat(seat),
                Ok(pb::ViewerKind::Spectator) => Viewer::Spectator,
                Ok(pb::ViewerKind::Omniscient) => Viewer::Omniscient,
                Ok(pb::ViewerKind::Unspecified) | Err(_) => {
                    return Err(ApiError::InvalidArgument(
                        "`viewer` must be VIEWER_KIND_SEAT, VIEWER_KIND_SPECTATOR or VIEWER_KIND_OMNISCIENT".into(),
                    ));
                }
            };
            let observation = if req.include_observation {
                match viewer {
                    Viewer::Seat(s) => state.observation(s)?,
                    _ => {
                        return Err(ApiError::InvalidArgument(
                            "observation tensors exist per seat; use VIEWER_KIND_SEAT".into(),
                        ));
                    }
                }
            } else {
                Vec::new()
            };
            Ok(pb::ObserveResponse {
                observation,
                view: Some(json_to_struct(state.view(viewer)?)),
            })
        }))
    }

    async fn bot_action(&self, req: Request<pb::BotActionRequest>) -> Reply<pb::BotActionResponse> {
        let req = req.into_inner();
        let (limits, move_time) = (self.limits.bots, self.limits.bot_move_time);
        let cancel = Cancel::default();
        let _on_drop = CancelOnDrop(cancel.clone());
        // A search takes up to the move time: run it off the async workers.
        let out = tokio::task::spawn_blocking(move || {
            guard(|| bot_action(&req, limits, move_time, &|| cancel.is_set()))
        })
        .await
        .unwrap_or_else(|e| Err(ApiError::Internal(format!("bot task failed: {e}"))));
        self.reply(out)
    }

    async fn batch_step(&self, req: Request<pb::BatchStepRequest>) -> Reply<pb::BatchStepResponse> {
        let req = req.into_inner();
        let limits = self.limits.clone();
        let cancel = Cancel::default();
        // If this future is dropped (the client went away), the blocking work stops.
        let _on_drop = CancelOnDrop(cancel.clone());
        // CPU-bound: run it off the async workers.
        let out = tokio::task::spawn_blocking(move || guard(|| batch_step(req, &limits, cancel)))
            .await
            .unwrap_or_else(|e| Err(ApiError::Internal(format!("batch task failed: {e}"))));
        self.reply(out)
    }

    async fn solve(&self, req: Request<pb::SolveRequest>) -> Reply<pb::SolveResponse> {
        let req = req.into_inner();
        // CPU-bound (milliseconds late in a deal, seconds for a Jass deal from its first
        // lead): off the async workers.
        let out = tokio::task::spawn_blocking(move || guard(|| solve(&req)))
            .await
            .unwrap_or_else(|e| Err(ApiError::Internal(format!("solve task failed: {e}"))));
        self.reply(out)
    }
}
