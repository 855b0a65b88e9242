//! A real server on `127.0.0.1:0` for the integration tests: bound before it is spawned, so
//! clients connect at once (no sleeps, no port probing).
#![allow(dead_code)]

pub mod certs;
pub mod metrics;
pub mod nginx;
pub mod pg_instance;
pub mod postgres;
pub mod process;

use std::net::SocketAddr;

use cardhouse_server::pb::engine_client::EngineClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use cardhouse_server::{Config, StoreConfig, serve};
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
            store: StoreConfig::Dir(dir.to_owned()),
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
