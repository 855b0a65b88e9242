//! `SetAway`: a seat says it is away (the stand-in bot plays its turns at once) or back (it
//! plays them again, under its clock if the match has one).

use std::sync::Arc;

use crate::domain::MatchStatus;
use crate::error::{ApiError, guard};
use crate::matches::commit::{commit, writable};
use crate::matches::driver::drive;
use crate::matches::hub::Hub;
use crate::matches::model::{Change, Moves, NoticeKind, bots_to_move, status_name};
use crate::matches::table::Table;
use crate::matches::views::{Role, match_view};
use crate::pb;

/// `SetAway` for the seat of `token`: stored, told to watchers, and the stand-in set to play
/// (away) or the seat's clock started (back, on its turn).
///
/// # Errors
/// `PERMISSION_DENIED` for a token that is not a seat's, `FAILED_PRECONDITION` once the
/// match has ended, a store failure.
pub(super) async fn set_away(
    hub: &Arc<Hub>,
    token: &str,
    req: pb::SetAwayRequest,
) -> Result<pb::MatchView, ApiError> {
    let entry = hub.cache.get(&req.match_id).await?;
    let mut m = entry.lock_owned().await;
    let Role::Seat(seat) = crate::matches::views::role_of(&m.meta, token)? else {
        return Err(ApiError::PermissionDenied(
            "only a seat token can say its seat is away or back",
        ));
    };
    hub.cache.fresh(&mut m).await?;
    for attempt in 0.. {
        if m.live.status != MatchStatus::Active {
            return Err(ApiError::MatchOver(status_name(m.live.status)));
        }
        writable(&hub.store)?;
        if m.live.table.as_ref().is_some_and(|t| t.is_away(seat)) == req.away {
            break; // Already so: nothing to store.
        }
        let n = m.meta.seats.len();
        let mut live = m.live.clone();
        let table = live.table.get_or_insert_with(|| Table::new(n, None));
        table.away[seat] = req.away;
        table.timeouts[seat] = 0;
        // Recorded for the outbox too: its events are built from what Watch is sent.
        let mut moves = Moves::new(m.watched() || hub.store.outbox().is_some());
        if moves.record {
            moves.pre.push(Change::Notice {
                after: live.clone(),
                seat,
                kind: if req.away {
                    NoticeKind::Away
                } else {
                    NoticeKind::Back
                },
            });
        }
        match commit(&hub.store, &mut m, live, moves, true).await {
            Ok(()) => break,
            Err(ApiError::Conflict) if attempt < 3 => hub.cache.reload(&mut m).await?,
            Err(e) => return Err(e),
        }
    }
    tracing::info!(match_id = %m.meta.id, seat, away = req.away, "a seat said it is away or back");
    if bots_to_move(&m.meta, &m.live) && !m.driving {
        m.driving = true;
        drive(hub, m.meta.id.clone());
    }
    hub.timers.arm(&m.meta.id, m.live.table.as_ref());
    let view = guard(|| match_view(&m.meta, &m.live, Role::Seat(seat)));
    hub.cache.settle(&m);
    view
}
