//! `CreateMatch`: the request checked, the seats' tokens made (and stored only as hashes),
//! the first chance and bot moves played, and the match stored before it is acknowledged.

use std::sync::Arc;

use cardhouse::AnyGame;

use crate::auth::hash_token;
use crate::convert::{game_info, options_from_pb, seat_from_pb};
use crate::domain::{BotSeat, MatchStatus, Seat};
use crate::error::{ApiError, guard};
use crate::matches::bots::{Chunk, advance, enforce_length};
use crate::matches::clocks::time_control_of;
use crate::matches::commit::writable;
use crate::matches::driver::drive;
use crate::matches::events::created as created_events;
use crate::matches::hub::Hub;
use crate::matches::limits::AllBotMatches;
use crate::matches::model::{Live, Match, Meta, Moves, settle_clock};
use crate::matches::seats::{BotLimits, bot_for, seat_bots};
use crate::matches::stored::stored;
use crate::matches::table::Table;
use crate::matches::views::{Role, match_view};
use crate::pb;
use crate::store::StoreError;

/// Creates a match (the caller checked the create credential; `operator`: the request
/// carries the operator credential).
///
/// # Errors
/// A bad game, option, seat list or bot budget (`INVALID_ARGUMENT`), an all-bot match where
/// the server does not allow one (`PERMISSION_DENIED`), the match limit
/// (`RESOURCE_EXHAUSTED`), or a store that failed.
pub(super) async fn create(
    hub: &Arc<Hub>,
    req: pb::CreateMatchRequest,
    operator: bool,
) -> Result<pb::CreateMatchResponse, ApiError> {
    writable(&hub.store)?;
    let game: AnyGame = cardhouse::new_game(&req.game, &options_from_pb(&req.options))?;
    let n = game.num_players();
    let (seats, bot_names) = seats_of(&req, &game, hub.limits.bot_limits())?;
    let max_iterations = hub.limits.max_ismcts_iterations;
    let ismcts_iterations = match req.ismcts_iterations {
        None => 0,
        Some(n) if (1..=max_iterations).contains(&n) => n,
        Some(n) => {
            return Err(ApiError::InvalidArgument(format!(
                "`ismcts_iterations` {n} is out of range: this server allows 1 to \
                 {max_iterations} (or leave it unset for the game's default, {})",
                game.default_ismcts_iterations().min(max_iterations)
            )));
        }
    };
    let (time, stand_in, stand_in_name) =
        time_control_of(req.time_control.as_ref(), &game, hub.limits.bot_limits())?;
    if !seats.contains(&Seat::Human) {
        match hub.limits.all_bot_matches {
            AllBotMatches::Allow => {}
            AllBotMatches::Operator if operator => {}
            AllBotMatches::Operator => {
                return Err(ApiError::PermissionDenied(
                    "a match whose every seat is a bot needs the operator credential on this \
                     server (`authorization: Bearer <operator token>`); give at least one \
                     seat to a human",
                ));
            }
            AllBotMatches::Deny => {
                return Err(ApiError::PermissionDenied(
                    "this server does not create matches whose every seat is a bot; give at \
                     least one seat to a human",
                ));
            }
        }
    }
    let reservation = hub.admission.reserve()?;
    let seed = match req.seed {
        Some(s) => s,
        None => random_u64()?,
    };
    let seat_tokens = seats
        .iter()
        .map(|k| match k {
            Seat::Human => random_hex().map(Some),
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let owner_token = random_hex()?;
    let spectator_token = random_hex()?;
    let meta = Arc::new(Meta {
        id: random_hex()?,
        game: game_info(&game),
        seed,
        bots: seat_bots(
            &seats,
            &bot_names,
            &game,
            ismcts_iterations,
            hub.limits.bot_limits(),
        )
        .map_err(ApiError::Internal)?,
        bot_names,
        ismcts_iterations,
        seats,
        seat_tokens: seat_tokens
            .iter()
            .map(|t| t.as_deref().map(hash_token))
            .collect(),
        owner_token: hash_token(&owner_token),
        spectator_token: hash_token(&spectator_token),
        stand_in,
        stand_in_name,
        time,
    });
    let mut live = Live {
        state: game.new_initial_state(),
        status: MatchStatus::Active,
        resigned_seat: None,
        known: vec![0; n + 1],
        ended_at_ms: 0,
        // Its creation is the match's first event.
        events: 1,
        notices: 0,
        table: meta.time.as_ref().map(|c| Table::new(n, Some(c))),
    };
    let max_total = hub.limits.max_match_actions;
    // Recorded only for the outbox: its events are built from what Watch would be sent.
    let outbox = hub.store.outbox().is_some();
    let initial = outbox.then(|| live.clone());
    let mut moves = Moves::new(outbox);
    let more = guard(|| {
        let mut chunk = Chunk::inline(hub.limits.inline_bot_actions, max_total);
        Ok(advance(&meta, &mut live, &mut moves, &mut chunk))
    })?;
    let capped = enforce_length(&mut live, &mut moves, max_total);
    let more = more && !capped;
    settle_clock(&meta, &mut live, true);
    let events = match &initial {
        Some(initial) => guard(|| created_events(&meta, initial, &moves, &mut live))?,
        None => Vec::new(),
    };
    let created = hub.store.submit_create(
        &stored(&meta, &live),
        live.state.move_number() as u64,
        more,
        hub.limits.max_matches,
        &events,
    );
    match match created {
        Ok(ack) => ack.wait().await,
        Err(e) => Err(e),
    } {
        Ok(()) => {}
        Err(StoreError::Full) => return Err(hub.admission.full()),
        Err(e) => {
            tracing::error!(match_id = %meta.id, error = %e, "storing a new match failed");
            return Err(if hub.store.is_shared() {
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
    hub.timers.arm(&meta.id, live.table.as_ref());
    hub.cache
        .insert(meta.id.clone(), Match::new(Arc::clone(&meta), live, more))?;
    reservation.keep();
    crate::metrics::match_created(&meta.game.name);
    if more {
        drive(hub, meta.id.clone());
    }
    Ok(response)
}

/// The seats `req` asks for (every seat human if it names none), and the bot name of each
/// `SEAT_KIND_BOT` seat, each checked: the name parses, plays the game, and is within the
/// server's `limits`.
fn seats_of(
    req: &pb::CreateMatchRequest,
    game: &AnyGame,
    limits: BotLimits,
) -> Result<(Vec<Seat>, Vec<Option<String>>), ApiError> {
    let n = game.num_players();
    if let Some(&s) = req.bots.keys().find(|&&s| s as usize >= n) {
        return Err(ApiError::InvalidArgument(format!(
            "`bots` names seat {s}; {} has seats 0 to {}",
            game.name(),
            n - 1
        )));
    }
    if req.seats.is_empty() {
        if !req.bots.is_empty() {
            return Err(ApiError::InvalidArgument(
                "`bots` is given but `seats` is empty (every seat human): give the seats, \
                 SEAT_KIND_BOT for each seat a named bot plays"
                    .into(),
            ));
        }
        return Ok((vec![Seat::Human; n], vec![None; n]));
    }
    if req.seats.len() != n {
        return Err(ApiError::InvalidArgument(format!(
            "`seats` has {} entries; {} has {n} seats (or leave it empty for all human)",
            req.seats.len(),
            game.name()
        )));
    }
    let mut seats = Vec::with_capacity(n);
    let mut names = Vec::with_capacity(n);
    for (s, &k) in req.seats.iter().enumerate() {
        let seat = seat_from_pb(k).ok_or_else(|| {
            ApiError::InvalidArgument(format!(
                "seat kind {k} of seat {s} is not allowed: every seat must be \
                 SEAT_KIND_HUMAN, SEAT_KIND_RANDOM_BOT, SEAT_KIND_HEURISTIC_BOT, \
                 SEAT_KIND_ISMCTS_BOT or SEAT_KIND_BOT"
            ))
        })?;
        let name = req.bots.get(&(s as u32));
        match (seat, name) {
            (Seat::Bot(BotSeat::Named), Some(name)) => {
                bot_for(name, game, limits)?;
                names.push(Some(name.trim().to_owned()));
            }
            (Seat::Bot(BotSeat::Named), None) => {
                return Err(ApiError::InvalidArgument(format!(
                    "seat {s} is SEAT_KIND_BOT: name its bot in `bots` (e.g. \"heuristic\", \
                     \"ismcts:200\", \"rollout:64\", \"policy:{}\")",
                    game.name()
                )));
            }
            (_, Some(_)) => {
                return Err(ApiError::InvalidArgument(format!(
                    "`bots` names a bot for seat {s}, which is not SEAT_KIND_BOT"
                )));
            }
            (_, None) => names.push(None),
        }
        seats.push(seat);
    }
    Ok((seats, names))
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
