//! [`Limited`]: `cardhouse.v1.Matches` whose responses over the message limit are
//! `RESOURCE_EXHAUSTED` (tonic alone would say `OUT_OF_RANGE`; see
//! [`crate::error::within_limit`]). The Engine service checks its own replies.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use crate::error::{check_size, within_limit};
use crate::matches::MatchesService;
use crate::pb;
use crate::pb::matches_server::Matches;

type Reply<T> = Result<Response<T>, Status>;
/// What the `#[async_trait]` methods of [`Matches`] return.
type BoxReply<'a, T> = Pin<Box<dyn Future<Output = Reply<T>> + Send + 'a>>;

/// [`MatchesService`] with every response checked against `limit` bytes before tonic
/// encodes it. `GetRecord` pages itself to the same limit, so it is never refused here.
///
/// The unary methods wrap the inner method's boxed future in [`Checked`] (one small
/// allocation) rather than in another `async` block, which would move the request and the
/// inner future into a state machine of their size.
#[derive(Clone, Debug)]
pub struct Limited {
    pub inner: MatchesService,
    pub limit: usize,
}

/// `reply`, checked against `limit` when it is ready.
struct Checked<'a, T> {
    reply: BoxReply<'a, T>,
    limit: usize,
}

impl<T: prost::Message> Future for Checked<'_, T> {
    type Output = Reply<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply<T>> {
        let limit = self.limit;
        self.reply
            .as_mut()
            .poll(cx)
            .map(|reply| within_limit(limit, reply))
    }
}

fn checked<'a, T: prost::Message + 'a>(limit: usize, reply: BoxReply<'a, T>) -> BoxReply<'a, T> {
    Box::pin(Checked { reply, limit })
}

/// Each unary method: the inner one, [`checked`]. The signature is the one
/// `#[async_trait]` gives the trait's `async fn`.
macro_rules! unary {
    ($($method:ident: $request:ty => $response:ty;)*) => {
        $(
            fn $method<'life0, 'async_trait>(
                &'life0 self,
                req: Request<$request>,
            ) -> BoxReply<'async_trait, $response>
            where
                'life0: 'async_trait,
                Self: 'async_trait,
            {
                checked(self.limit, self.inner.$method(req))
            }
        )*
    };
}

#[tonic::async_trait]
impl Matches for Limited {
    unary! {
        create_match: pb::CreateMatchRequest => pb::CreateMatchResponse;
        get_view: pb::GetViewRequest => pb::GetViewResponse;
        act: pb::ActRequest => pb::ActResponse;
        get_record: pb::GetRecordRequest => pb::GetRecordResponse;
        resign: pb::ResignRequest => pb::ResignResponse;
        abort_match: pb::AbortMatchRequest => pb::AbortMatchResponse;
        describe_games: pb::DescribeGamesRequest => pb::DescribeGamesResponse;
        set_away: pb::SetAwayRequest => pb::SetAwayResponse;
    }

    type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchResponse, Status>> + Send>>;

    async fn watch(&self, req: Request<pb::WatchRequest>) -> Reply<Self::WatchStream> {
        let limit = self.limit;
        let stream = self.inner.watch(req).await?;
        // An update over the limit ends the stream with RESOURCE_EXHAUSTED.
        Ok(stream.map(|s| -> Self::WatchStream {
            Box::pin(s.map(move |update| {
                let update = update?;
                check_size(limit, &update)?;
                Ok(update)
            }))
        }))
    }
}
