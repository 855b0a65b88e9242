//! A real server on `127.0.0.1:0` for the integration tests: bound before it is spawned, so
//! clients connect at once (no sleeps, no port probing).
#![allow(dead_code)]

pub mod certs;
pub mod metrics;
pub mod nats;
pub mod nginx;
pub mod pg_instance;
pub mod postgres;
pub mod process;

use std::net::SocketAddr;

use cardhouse_server::pb::engine_client::EngineClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use cardhouse_server::{Config, DirConfig, StoreConfig, serve};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::transport::Channel;

pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<()>>,
}

impl TestServer {
    pub async fn start(config: Config) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(async move {
            serve(listener, config, async {
                let _ = stopped.await;
            })
            .await
            .expect("server runs");
        });
        TestServer {
            addr,
            stop: Some(stop),
            handle: Some(handle),
        }
    }

    pub async fn memory() -> TestServer {
        TestServer::start(Config::default()).await
    }

    pub async fn on_disk(dir: &std::path::Path) -> TestServer {
        TestServer::start(Config {
            store: StoreConfig::Dir(DirConfig::new(dir)),
            ..Config::default()
        })
        .await
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr))
            .unwrap()
            .connect()
            .await
            .unwrap()
    }

    pub async fn engine(&self) -> EngineClient<Channel> {
        EngineClient::new(self.channel().await).max_decoding_message_size(64 << 20)
    }

    pub async fn matches(&self) -> MatchesClient<Channel> {
        MatchesClient::new(self.channel().await)
    }

    /// Signals shutdown without waiting.
    pub fn signal_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Signals shutdown and waits until the server (and its store) has stopped.
    pub async fn stop(mut self) {
        self.signal_stop();
        if let Some(h) = self.handle.take() {
            h.await.unwrap();
        }
    }
}

/// A request with a bearer token.
pub fn authed<T>(token: &str, msg: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// A `Watch` stream of match `match_id` with `token`.
pub async fn watch(
    client: &mut MatchesClient<Channel>,
    token: &str,
    match_id: &str,
) -> tonic::codec::Streaming<cardhouse_server::pb::WatchResponse> {
    client
        .watch(authed(
            token,
            cardhouse_server::pb::WatchRequest {
                match_id: match_id.to_owned(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

/// Options as text, from pairs.
pub fn opts(pairs: &[(&str, &str)]) -> std::collections::HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// Every request of match `id` is `DATA_LOSS` with the documented message (naming neither
/// the match nor what is wrong): GetView (owner and seat), Act (`act`: an action and move
/// number of the seat of `seat_token` that were legal before the damage), GetRecord, Watch,
/// Resign and AbortMatch.
pub async fn assert_data_loss(
    c: &mut MatchesClient<Channel>,
    id: &str,
    seat_token: &str,
    owner: &str,
    act: (u32, u64),
    what: &str,
) {
    use cardhouse_server::pb;
    use tokio_stream::StreamExt;
    let check = |rpc: &str, outcome: Result<(), tonic::Status>| {
        let status = outcome.expect_err(&format!("{what}: {rpc} succeeded"));
        assert_eq!(
            status.code(),
            tonic::Code::DataLoss,
            "{what}: {rpc}: {status:?}"
        );
        assert!(
            status.message().contains("damaged") && !status.message().contains(id),
            "{what}: {rpc}: {status:?}"
        );
    };
    let match_id = || id.to_owned();
    let owner_view = c
        .get_view(authed(
            owner,
            pb::GetViewRequest {
                match_id: match_id(),
            },
        ))
        .await;
    check("GetView (owner)", owner_view.map(drop));
    let acted = c
        .act(authed(
            seat_token,
            pb::ActRequest {
                match_id: match_id(),
                action: Some(pb::act_request::Action::ActionId(act.0)),
                expected_move_number: Some(act.1),
                include_view: true,
            },
        ))
        .await;
    check("Act", acted.map(drop));
    let seat_view = c
        .get_view(authed(
            seat_token,
            pb::GetViewRequest {
                match_id: match_id(),
            },
        ))
        .await;
    check("GetView", seat_view.map(drop));
    let recorded = c
        .get_record(authed(
            owner,
            pb::GetRecordRequest {
                match_id: match_id(),
                ..Default::default()
            },
        ))
        .await;
    check("GetRecord", recorded.map(drop));
    let watched = match c
        .watch(authed(
            seat_token,
            pb::WatchRequest {
                match_id: match_id(),
                ..Default::default()
            },
        ))
        .await
    {
        Ok(stream) => match stream.into_inner().next().await {
            Some(Err(s)) => Err(s),
            other => panic!("{what}: Watch gave {other:?}"),
        },
        Err(s) => Err(s),
    };
    check("Watch", watched);
    let resigned = c
        .resign(authed(
            seat_token,
            pb::ResignRequest {
                match_id: match_id(),
                seat: None,
            },
        ))
        .await;
    check("Resign", resigned.map(drop));
    let aborted = c
        .abort_match(authed(
            owner,
            pb::AbortMatchRequest {
                match_id: match_id(),
            },
        ))
        .await;
    check("AbortMatch", aborted.map(drop));
}
