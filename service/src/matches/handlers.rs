//! The `cardhouse.v1.Matches` handlers: each takes the request apart, authenticates it (the
//! bearer token; the create credential), calls the request's function, and wraps the
//! answer. State-changing requests run detached, so a client that goes away cannot cut a
//! change in half.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::auth::{bearer, check_credential, is_operator};
use crate::convert::{game_description, options_from_pb};
use crate::error::ApiError;
use crate::matches::away::set_away;
use crate::matches::create::create;
use crate::matches::play::{act, end, get_view};
use crate::matches::records::record;
use crate::matches::service::MatchesService;
use crate::matches::watch::watch;
use crate::pb;
use crate::pb::matches_server::Matches;
use crate::shutdown::UntilShutdown;

type Reply<T> = Result<Response<T>, Status>;

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

#[tonic::async_trait]
impl Matches for MatchesService {
    async fn create_match(
        &self,
        req: Request<pb::CreateMatchRequest>,
    ) -> Reply<pb::CreateMatchResponse> {
        let hub = Arc::clone(&self.hub);
        let (md, _, req) = req.into_parts();
        // The operator may create any match; others need the create credential if the
        // server has one.
        let operator = is_operator(&md, hub.limits.operator_token.as_deref());
        if !operator {
            check_credential(
                &md,
                hub.limits.create_token.as_deref(),
                "this server needs its create credential to create matches \
                 (`authorization: Bearer <token>`)",
            )?;
        }
        let created = detached(async move { create(&hub, req, operator).await }).await?;
        Ok(Response::new(created))
    }

    async fn get_view(&self, req: Request<pb::GetViewRequest>) -> Reply<pb::GetViewResponse> {
        let token = bearer(req.metadata())?;
        let view = get_view(&self.hub, &token, &req.get_ref().match_id).await?;
        Ok(Response::new(pb::GetViewResponse { view: Some(view) }))
    }

    async fn act(&self, req: Request<pb::ActRequest>) -> Reply<pb::ActResponse> {
        // Not detached: `act` finishes its change itself if it is dropped mid-commit
        // (`PendingCommit`), which spares the common path a task.
        let token = bearer(req.metadata())?;
        let view = act(&self.hub, &token, req.into_inner()).await?;
        Ok(Response::new(pb::ActResponse { view: Some(view) }))
    }

    type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchResponse, Status>> + Send>>;

    async fn watch(&self, req: Request<pb::WatchRequest>) -> Reply<Self::WatchStream> {
        let token = bearer(req.metadata())?;
        let req = req.get_ref();
        let light = match pb::WatchDetail::try_from(req.detail) {
            Ok(pb::WatchDetail::Unspecified | pb::WatchDetail::Full) => false,
            Ok(pb::WatchDetail::Events) => true,
            Err(_) => {
                return Err(ApiError::InvalidArgument(format!(
                    "`detail` {} is not a WatchDetail: WATCH_DETAIL_FULL or WATCH_DETAIL_EVENTS",
                    req.detail
                ))
                .into());
            }
        };
        let rx = watch(&self.hub, &token, &req.match_id, light).await?;
        Ok(Response::new(Box::pin(UntilShutdown::new(
            ReceiverStream::new(rx),
            self.hub.shutdown.clone(),
        ))))
    }

    async fn get_record(&self, req: Request<pb::GetRecordRequest>) -> Reply<pb::GetRecordResponse> {
        let token = bearer(req.metadata())?;
        Ok(Response::new(
            record(&self.hub, Some(&token), req.get_ref()).await?,
        ))
    }

    async fn resign(&self, req: Request<pb::ResignRequest>) -> Reply<pb::ResignResponse> {
        let hub = Arc::clone(&self.hub);
        let token = bearer(req.metadata())?;
        let req = req.into_inner();
        let view =
            detached(async move { end(&hub, &token, &req.match_id, Some(req.seat)).await }).await?;
        Ok(Response::new(pb::ResignResponse { view: Some(view) }))
    }

    async fn abort_match(
        &self,
        req: Request<pb::AbortMatchRequest>,
    ) -> Reply<pb::AbortMatchResponse> {
        let hub = Arc::clone(&self.hub);
        let token = bearer(req.metadata())?;
        let req = req.into_inner();
        let view = detached(async move { end(&hub, &token, &req.match_id, None).await }).await?;
        Ok(Response::new(pb::AbortMatchResponse { view: Some(view) }))
    }

    async fn set_away(&self, req: Request<pb::SetAwayRequest>) -> Reply<pb::SetAwayResponse> {
        let hub = Arc::clone(&self.hub);
        let token = bearer(req.metadata())?;
        let req = req.into_inner();
        let view = detached(async move { set_away(&hub, &token, req).await }).await?;
        Ok(Response::new(pb::SetAwayResponse { view: Some(view) }))
    }

    async fn describe_games(
        &self,
        req: Request<pb::DescribeGamesRequest>,
    ) -> Reply<pb::DescribeGamesResponse> {
        Ok(Response::new(describe_games(&req.into_inner())?))
    }
}

/// Most games one `DescribeGames` may ask for.
const MAX_DESCRIBED: usize = 64;

/// `DescribeGames`: every game under its defaults, or the games asked for.
fn describe_games(req: &pb::DescribeGamesRequest) -> Result<pb::DescribeGamesResponse, ApiError> {
    if req.games.len() > MAX_DESCRIBED {
        return Err(ApiError::InvalidArgument(format!(
            "{} games asked for: at most {MAX_DESCRIBED} in one request",
            req.games.len()
        )));
    }
    let games = if req.games.is_empty() {
        cardhouse::list_games()
            .iter()
            .map(|name| cardhouse::new_game(name, &cardhouse::Options::new()))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        req.games
            .iter()
            .map(|g| cardhouse::new_game(&g.game, &options_from_pb(&g.options)))
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok(pb::DescribeGamesResponse {
        games: games.iter().map(game_description).collect(),
    })
}
