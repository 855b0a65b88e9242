//! Redaction: who a token is ([`Role`]), and what each viewer is shown of a match — its
//! view, the text of each action it learns of, and the events of its Watch stream. Nothing
//! here may depend on what the viewer cannot know.

use cardhouse::{Action, AnyState, Player, Viewer};

use crate::auth::{hash_token, same};
use crate::clock::now_ms;
use crate::convert::{
    json_to_struct, player_legal_actions, player_to_pb, seat_to_pb, status_to_pb,
};
use crate::domain::MatchStatus;
use crate::error::ApiError;
use crate::matches::clocks::{away_view, clock_view};
use crate::matches::model::{Live, Meta, NoticeKind};
use crate::pb;

/// What a token of a match stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Seat(usize),
    Owner,
    Spectator,
}

impl Role {
    pub(super) fn viewer(self) -> Viewer {
        match self {
            Role::Seat(s) => Viewer::Seat(s),
            Role::Owner | Role::Spectator => Viewer::Spectator,
        }
    }
}

/// The role of `token` in the match, compared in constant time with every stored hash.
pub(super) fn role_of(meta: &Meta, token: &str) -> Result<Role, ApiError> {
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
pub(super) fn match_view_with(
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
    let my_turn = live.status == MatchStatus::Active
        && matches!(role, Role::Seat(s) if state.current_player() == Player::Seat(s));
    let legal_actions = if my_turn {
        player_legal_actions(state)
    } else {
        Vec::new()
    };
    let current = if live.status == MatchStatus::Active {
        state.current_player()
    } else {
        Player::Terminal
    };
    Ok(pb::MatchView {
        match_id: meta.id.clone(),
        game: with_view.then(|| meta.game.clone()),
        role: pb_role as i32,
        seat: matches!(role, Role::Seat(_)).then_some(seat as u32),
        status: status_to_pb(live.status) as i32,
        current_player: Some(player_to_pb(current)),
        move_number: known,
        legal_actions,
        view: if with_view {
            Some(json_to_struct(state.view(role.viewer())?))
        } else {
            None
        },
        returns: state.returns().to_vec(),
        seats: meta.seats.iter().map(|&k| seat_to_pb(k) as i32).collect(),
        bots: bot_names(meta),
        resigned_seat: live.resigned_seat,
        clock: clock_view(meta, live, now_ms()),
        away: away_view(live),
    })
}

/// The bot of each bot seat, by seat, as its name (`heuristic`, `ismcts:200`, `policy:jass`).
pub(super) fn bot_names(meta: &Meta) -> std::collections::HashMap<u32, String> {
    meta.bots
        .iter()
        .enumerate()
        .filter_map(|(s, b)| {
            // The bot as it plays (held to the server's limits), not only as asked.
            b.as_ref().map(|bot| (s as u32, bot.to_string()))
        })
        .collect()
}

/// The full view of `live` for `role`.
pub(super) fn match_view(meta: &Meta, live: &Live, role: Role) -> Result<pb::MatchView, ApiError> {
    match_view_with(meta, live, role, true)
}

/// The text `role` sees for `action` about to be applied at `state`, if it learns of it.
pub(super) fn text_for(role: Role, state: &AnyState, action: Action) -> Option<String> {
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
/// match ended. With `light`, the view's structured part is left out except at the end of a
/// deal or of the match.
pub(super) fn event(
    meta: &Meta,
    role: Role,
    actor: Option<Player>,
    text: String,
    after: &Live,
    light: bool,
) -> Result<(pb::WatchResponse, bool), ApiError> {
    event_with(meta, role, actor, None, text, after, light)
}

/// [`event`], for a notice about a seat (`notice`) or an action (`actor`).
pub(super) fn event_with(
    meta: &Meta,
    role: Role,
    actor: Option<Player>,
    notice: Option<(usize, NoticeKind)>,
    text: String,
    after: &Live,
    light: bool,
) -> Result<(pb::WatchResponse, bool), ApiError> {
    let ended = after.status != MatchStatus::Active;
    let whole = !light || ended || after.state.deal_outcome().is_some();
    let view = match_view_with(meta, after, role, whole)?;
    Ok((
        pb::WatchResponse {
            kind: Some(pb::watch_response::Kind::Event(pb::MatchEvent {
                actor: actor.map(player_to_pb),
                text,
                view: Some(view),
                notice: notice.map(|(seat, kind)| pb::SeatNotice {
                    seat: Some(seat as u32),
                    kind: notice_to_pb(kind) as i32,
                }),
            })),
        },
        ended,
    ))
}

/// A notice's kind as the API's.
fn notice_to_pb(kind: NoticeKind) -> pb::SeatNoticeKind {
    match kind {
        NoticeKind::TimedOut => pb::SeatNoticeKind::TimedOut,
        NoticeKind::Away => pb::SeatNoticeKind::Away,
        NoticeKind::Back => pb::SeatNoticeKind::Back,
    }
}

/// The text of a notice about `seat`, as every viewer reads it.
pub(super) fn notice_text(seat: usize, kind: NoticeKind) -> String {
    match kind {
        NoticeKind::TimedOut => format!("seat {seat}'s time ran out"),
        NoticeKind::Away => format!("seat {seat} is away: its bot plays for it"),
        NoticeKind::Back => format!("seat {seat} is back"),
    }
}
