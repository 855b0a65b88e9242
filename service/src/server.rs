//! [`serve`]: the whole server on a bound listener, used by `cardhouse serve` and by tests.

use std::future::Future;
use std::path::PathBuf;

use tokio::net::TcpListener;
use tonic::codegen::http;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::engine_service::{EngineLimits, EngineService};
use crate::matches::{MatchLimits, MatchesService};
use crate::pb::engine_server::EngineServer;
use crate::pb::matches_server::MatchesServer;
use crate::store::Store;

/// Where matches are kept.
#[derive(Clone, Debug)]
pub enum StoreConfig {
    /// Nowhere: matches end with the process (tests).
    Memory,
    /// An embedded database in this directory (created if missing).
    Dir(PathBuf),
}

/// Server configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub store: StoreConfig,
    /// Largest request or response message, in bytes.
    pub max_message_bytes: usize,
    /// Most concurrent HTTP/2 streams per connection.
    pub max_concurrent_streams: u32,
    pub engine: EngineLimits,
    pub matches: MatchLimits,
    /// After the shutdown signal, how long requests in flight (and streams such as a health
    /// Watch) may take before the server stops anyway.
    pub shutdown_grace: std::time::Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            store: StoreConfig::Memory,
            max_message_bytes: 16 * 1024 * 1024,
            max_concurrent_streams: 1024,
            engine: EngineLimits::default(),
            matches: MatchLimits::default(),
            shutdown_grace: std::time::Duration::from_secs(10),
        }
    }
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("match store: {0}")]
    Store(#[from] crate::store::StoreError),
    #[error("resuming stored matches: {0}")]
    Resume(crate::error::ApiError),
    #[error("reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("startup task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// tonic reports a request over the size limit as OUT_OF_RANGE (in a trailers-only
/// response); our API promises RESOURCE_EXHAUSTED for every limit, as gRPC's other
/// implementations do. No handler of ours returns OUT_OF_RANGE, so the rewrite is exact.
fn oversize_is_resource_exhausted(
    mut res: http::Response<tonic::body::Body>,
) -> http::Response<tonic::body::Body> {
    if res
        .headers()
        .get("grpc-status")
        .is_some_and(|v| v.as_bytes() == b"11")
    {
        res.headers_mut()
            .insert("grpc-status", http::HeaderValue::from_static("8"));
    }
    res
}

/// Serves `cardhouse.v1.Engine`, `cardhouse.v1.Matches`, `grpc.health.v1.Health` and server
/// reflection on `listener` until `shutdown` resolves. Then health turns NOT_SERVING, Watch
/// streams end with UNAVAILABLE, requests in flight finish, and the store is closed.
///
/// # Errors
/// If the store cannot be opened, a stored match cannot be resumed, or the transport fails.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let (store, stored) = match config.store.clone() {
        StoreConfig::Memory => (Store::memory(), Vec::new()),
        StoreConfig::Dir(dir) => tokio::task::spawn_blocking(move || Store::open(&dir)).await??,
    };
    let (stopping_tx, stopping_rx) = tokio::sync::watch::channel(false);
    let matches = MatchesService::new(store.clone(), stored, config.matches.clone(), stopping_rx)
        .map_err(ServeError::Resume)?;
    let engine = EngineService::new(config.engine.clone());

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<EngineServer<EngineService>>().await;
    health.set_serving::<MatchesServer<MatchesService>>().await;
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    let limit = config.max_message_bytes;
    let addr = listener.local_addr().ok();
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let (signalled_tx, signalled_rx) = tokio::sync::oneshot::channel::<()>();
    let signal = {
        let health = health.clone();
        async move {
            shutdown.await;
            let _ = signalled_tx.send(());
            tracing::info!("shutting down: health NOT_SERVING, closing Watch streams");
            health
                .set_not_serving::<EngineServer<EngineService>>()
                .await;
            health
                .set_not_serving::<MatchesServer<MatchesService>>()
                .await;
            health
                .set_service_status("", tonic_health::ServingStatus::NotServing)
                .await;
            let _ = stopping_tx.send(true);
        }
    };
    tracing::info!(addr = ?addr, "serving cardhouse.v1");
    let server = Server::builder()
        .max_concurrent_streams(config.max_concurrent_streams)
        .layer(tower::util::MapResponseLayer::new(
            oversize_is_resource_exhausted,
        ))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(
            EngineServer::new(engine)
                .max_decoding_message_size(limit)
                .max_encoding_message_size(limit),
        )
        .add_service(
            MatchesServer::new(matches)
                .max_decoding_message_size(limit)
                .max_encoding_message_size(limit),
        )
        .serve_with_incoming_shutdown(incoming, signal);
    let grace = config.shutdown_grace;
    tokio::select! {
        r = server => r?,
        () = async {
            if signalled_rx.await.is_ok() {
                tokio::time::sleep(grace).await;
            } else {
                std::future::pending::<()>().await;
            }
        } => {
            tracing::warn!(?grace, "requests still open after the grace period; stopping anyway");
        }
    }
    store.close().await;
    tracing::info!("stopped");
    Ok(())
}
