//! `GetRecord`: the whole record of an ended match, for every token of the match (once a
//! match has ended, everything in it is public to its participants), and the operator's
//! export of any match.

use std::sync::Arc;

use cardhouse::Viewer;

use crate::convert::{json_to_struct, player_to_pb, seat_to_pb, status_to_pb};
use crate::domain::MatchStatus;
use crate::error::{ApiError, guard};
use crate::matches::hub::Hub;
use crate::matches::table::StandInReason;
use crate::matches::views::role_of;
use crate::pb;

/// `GetRecord`: the steps of an ended match from `from_step`, paged to fit the response
/// limit, with its final omniscient view and state bytes. With `token`, for a token of the
/// match, once it ended; without, for the operator, at any time.
pub(super) async fn record(
    hub: &Hub,
    token: Option<&str>,
    req: &pb::GetRecordRequest,
) -> Result<pb::GetRecordResponse, ApiError> {
    let m = hub.cache.get(&req.match_id).await?;
    let (meta, live) = {
        let mut m = m.lock().await;
        if let Some(token) = token {
            role_of(&m.meta, token)?;
        }
        hub.cache.fresh(&mut m).await?;
        (Arc::clone(&m.meta), m.live.clone())
    };
    if token.is_some() && live.status == MatchStatus::Active {
        return Err(ApiError::MatchRunning);
    }
    let limit = hub.limits.max_response_bytes;
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
            seats: meta.seats.iter().map(|&k| seat_to_pb(k) as i32).collect(),
            status: status_to_pb(live.status) as i32,
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
        // The moves a bot played for a human seat, by history index.
        let stood_in: std::collections::HashMap<u64, StandInReason> = live
            .table
            .iter()
            .flat_map(|t| &t.stand_ins)
            .map(|s| (s.index, s.reason))
            .collect();
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
                    stand_in: stood_in.get(&(i as u64)).map(|&reason| pb::StandIn {
                        reason: match reason {
                            StandInReason::Timeout => pb::stand_in::Reason::TimedOut,
                            StandInReason::Away => pb::stand_in::Reason::Away,
                        } as i32,
                        bot: meta.stand_in_name.clone(),
                    }),
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
