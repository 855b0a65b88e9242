//! `cardhouse.v1.Admin`: the operator's surface over the same matches — list them with the
//! bot work they cost, abort any of them, export any record. Every call needs the operator
//! credential (`--operator-token`); the server serves this only when one is set.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tonic::{Request, Response, Status};

use crate::auth::{bearer, matches_hash};
use crate::convert::{seat_to_pb, status_to_pb};
use crate::domain::MatchStatus;
use crate::error::{ApiError, guard};
use crate::matches::cache::Ended;
use crate::matches::hub::Hub;
use crate::matches::model::Match;
use crate::matches::play::end_match;
use crate::matches::records::record;
use crate::matches::service::MatchesService;
use crate::matches::views::{Role, match_view};
use crate::pb;
use crate::pb::admin_server::Admin;

/// Most matches in one page.
const MAX_PAGE: usize = 1000;

/// The Admin service over a Matches service's matches.
#[derive(Clone, Debug)]
pub struct AdminService {
    hub: Arc<Hub>,
}

impl AdminService {
    /// The operator's surface over `matches`.
    #[must_use]
    pub fn new(matches: &MatchesService) -> AdminService {
        AdminService {
            hub: Arc::clone(&matches.hub),
        }
    }

    /// The request's credential checked against the operator's.
    fn check<T>(&self, req: &Request<T>) -> Result<(), ApiError> {
        let Some(operator) = self.hub.limits.operator_token.as_deref() else {
            return Err(ApiError::PermissionDenied(
                "this server has no operator credential",
            ));
        };
        let token = bearer(req.metadata())?;
        if matches_hash(&token, &crate::auth::hash_token(operator)) {
            Ok(())
        } else {
            Err(ApiError::Unauthenticated(
                "this is not the operator credential",
            ))
        }
    }
}

/// The summary of a match held in memory.
fn summary(m: &Match) -> pb::MatchSummary {
    pb::MatchSummary {
        match_id: m.meta.id.clone(),
        game: m.meta.game.name.clone(),
        status: status_to_pb(m.live.status) as i32,
        seats: m.meta.seats.iter().map(|&k| seat_to_pb(k) as i32).collect(),
        actions: m.live.state.move_number() as u64,
        bot_actions: m.bot_actions,
        bot_think_ms: m.bot_micros / 1000,
        bots_playing: m.driving,
        ended_at_ms: m.live.ended_at_ms,
    }
}

/// A page of the matches of `hub`.
async fn list(
    hub: &Hub,
    req: &pb::ListMatchesRequest,
) -> Result<pb::ListMatchesResponse, ApiError> {
    let size = match req.page_size as usize {
        0 => 100,
        n => n.min(MAX_PAGE),
    };
    let after = req.page_token.as_str();
    // What the store or the index knows, by id; then what memory knows, over it.
    let mut page: BTreeMap<String, pb::MatchSummary> = BTreeMap::new();
    if let Some(shared) = hub.store.shared() {
        let rows = shared
            .list(after, size, req.include_ended)
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "listing the match store failed");
                ApiError::StoreUnavailable
            })?;
        for r in rows {
            let summary = pb::MatchSummary {
                match_id: r.id.clone(),
                game: r.game,
                // A stored code no status or seat has (a damaged row) is UNSPECIFIED.
                status: r.status.map_or(pb::MatchStatus::Unspecified, status_to_pb) as i32,
                seats: r
                    .seats
                    .into_iter()
                    .map(|s| s.map_or(pb::SeatKind::Unspecified, seat_to_pb) as i32)
                    .collect(),
                actions: r.actions,
                bots_playing: r.driving,
                ended_at_ms: r.ended_at_ms,
                ..pb::MatchSummary::default()
            };
            page.insert(r.id, summary);
        }
    } else {
        // Live matches are all in memory; ended ones in the retention index.
        let mut ids: Vec<(String, Option<Ended>)> =
            hub.cache.collect(|id, _| Some((id.clone(), None)));
        if req.include_ended {
            ids.extend(
                hub.cache
                    .ended_index()
                    .into_iter()
                    .map(|(id, e)| (id, Some(e))),
            );
        }
        ids.retain(|(id, _)| id.as_str() > after);
        ids.sort_by(|a, b| a.0.cmp(&b.0));
        ids.dedup_by(|a, b| a.0 == b.0);
        for (id, ended) in ids.into_iter().take(size) {
            let summary = match ended {
                Some(e) => pb::MatchSummary {
                    match_id: id.clone(),
                    game: e.game.to_owned(),
                    status: status_to_pb(e.status) as i32,
                    actions: e.actions,
                    bot_actions: e.bot_actions,
                    bot_think_ms: e.bot_micros / 1000,
                    ended_at_ms: e.at_ms,
                    ..pb::MatchSummary::default()
                },
                None => pb::MatchSummary {
                    match_id: id.clone(),
                    status: pb::MatchStatus::Active as i32,
                    ..pb::MatchSummary::default()
                },
            };
            page.insert(id, summary);
        }
    }
    for (id, summary) in &mut page {
        if let Ok(Some(m)) = hub.cache.cached(id) {
            let m = m.lock().await;
            let bots_playing = summary.bots_playing || m.driving;
            *summary = pb::MatchSummary {
                bots_playing,
                ..self::summary(&m)
            };
        }
    }
    page.retain(|_, s| req.include_ended || s.status == pb::MatchStatus::Active as i32);
    let next_page_token = if page.len() >= size {
        page.keys().next_back().cloned().unwrap_or_default()
    } else {
        String::new()
    };
    let stats = &hub.pool.stats;
    Ok(pb::ListMatchesResponse {
        matches: page.into_values().collect(),
        next_page_token,
        bot_workers: hub.pool.workers() as u32,
        bot_jobs_queued: stats.queued.load(Ordering::Relaxed) as u32,
        bot_workers_busy: stats.busy.load(Ordering::Relaxed) as u32,
    })
}

/// Aborts any active match.
async fn abort(hub: &Hub, id: &str) -> Result<pb::MatchView, ApiError> {
    let m = hub.cache.get(id).await?;
    let mut m = m.lock().await;
    hub.cache.fresh(&mut m).await?;
    end_match(hub, &mut m, MatchStatus::Aborted, None).await?;
    tracing::info!(match_id = %id, "the operator aborted a match");
    let view = guard(|| match_view(&m.meta, &m.live, Role::Spectator));
    hub.cache.settle(&m);
    view
}

#[tonic::async_trait]
impl Admin for AdminService {
    async fn list_matches(
        &self,
        req: Request<pb::ListMatchesRequest>,
    ) -> Result<Response<pb::ListMatchesResponse>, Status> {
        self.check(&req)?;
        Ok(Response::new(list(&self.hub, req.get_ref()).await?))
    }

    async fn abort_match(
        &self,
        req: Request<pb::AdminAbortMatchRequest>,
    ) -> Result<Response<pb::AdminAbortMatchResponse>, Status> {
        self.check(&req)?;
        let hub = Arc::clone(&self.hub);
        let id = req.into_inner().match_id;
        // Detached, as the Matches service's changes: the abort completes whatever the
        // client does.
        let view = tokio::spawn(async move { abort(&hub, &id).await })
            .await
            .unwrap_or_else(|e| Err(ApiError::Internal(format!("request task: {e}"))))?;
        Ok(Response::new(pb::AdminAbortMatchResponse {
            view: Some(view),
        }))
    }

    async fn export_record(
        &self,
        req: Request<pb::ExportRecordRequest>,
    ) -> Result<Response<pb::GetRecordResponse>, Status> {
        self.check(&req)?;
        let req = req.into_inner();
        let get = pb::GetRecordRequest {
            match_id: req.match_id,
            from_step: req.from_step,
            max_steps: req.max_steps,
        };
        Ok(Response::new(record(&self.hub, None, &get).await?))
    }
}
