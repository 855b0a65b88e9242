//! [`serve`]: the whole server on a bound listener, used by `cardhouse serve` and by tests.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tonic::codegen::http;
use tonic::transport::Server;
use tonic::{Request, Response, Status};
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_health::server::HealthService;

use crate::connections::{ConnectionLimits, incoming};
use crate::engine_service::{EngineAccess, EngineLimits, EngineService};
use crate::matches::{AdminService, MatchLimits, MatchesService};
use crate::pb::admin_server::AdminServer;
use crate::pb::engine_server::EngineServer;
use crate::pb::matches_server::MatchesServer;
use crate::response_limit::Limited;
use crate::shutdown::UntilShutdown;
use crate::store::open::open_with;
pub use crate::store::open::{DirConfig, PgConfig, StoreConfig};

/// Server configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where matches are kept, each backend with its own settings.
    pub store: StoreConfig,
    /// Largest request or response message, in bytes.
    pub max_message_bytes: usize,
    /// Most concurrent HTTP/2 streams per connection.
    pub max_concurrent_streams: u32,
    pub connections: ConnectionLimits,
    /// HTTP/2 keepalive: a PING after this much silence, and the connection is closed if
    /// the answer takes longer than `keepalive_timeout`.
    pub keepalive_interval: Duration,
    pub keepalive_timeout: Duration,
    pub engine: EngineLimits,
    /// Whether and for whom the Engine service is served.
    pub engine_access: EngineAccess,
    pub matches: MatchLimits,
    /// How often ended and abandoned matches are looked for.
    pub sweep_interval: Duration,
    /// After the shutdown signal, how long requests in flight may take before the server
    /// stops anyway. Streams end at once.
    pub shutdown_grace: Duration,
    /// TLS (and mutual TLS) on the listener; `None`: plain TCP.
    pub tls: Option<crate::tls::TlsFiles>,
    /// gRPC-Web, CORS and the web table; all off by default.
    pub web: crate::web::WebConfig,
    /// Match events out to NATS JetStream (`--events`); `None`: none, and no outbox.
    pub events: Option<crate::relay::EventsConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            store: StoreConfig::Memory,
            max_message_bytes: 16 * 1024 * 1024,
            max_concurrent_streams: 1024,
            connections: ConnectionLimits::default(),
            keepalive_interval: Duration::from_secs(30),
            keepalive_timeout: Duration::from_secs(20),
            engine: EngineLimits::default(),
            engine_access: EngineAccess::Open,
            matches: MatchLimits::default(),
            sweep_interval: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
            tls: None,
            web: crate::web::WebConfig::default(),
            events: None,
        }
    }
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("match store: {0}")]
    Store(#[from] crate::store::StoreError),
    #[error("starting the match service: {0}")]
    Start(String),
    #[error("reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
    #[error("startup task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// A request over the size limit is OUT_OF_RANGE in tonic (its check runs before the
/// handler) and RESOURCE_EXHAUSTED in gRPC's other implementations and our API. A request
/// that fails before its handler gets a trailers-only response, its status in the response
/// headers: only the headers are looked at, the body is not wrapped. No handler of ours
/// returns OUT_OF_RANGE, so the rewrite is exact. The other two cases tonic would get wrong
/// are handled where they arise: an undecodable request by our codec ([`crate::codec`]),
/// a response over the limit before it is encoded ([`crate::error::within_limit`]).
fn fix_status<B>(mut res: http::Response<B>) -> http::Response<B> {
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

/// `grpc.health.v1.Health` whose Watch streams end with UNAVAILABLE at shutdown (after the
/// NOT_SERVING status they get first), so an open health Watch never holds the shutdown.
struct StoppingHealth {
    inner: HealthService,
    stopping: watch::Receiver<bool>,
}

#[tonic::async_trait]
impl Health for StoppingHealth {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        self.inner.check(request).await
    }

    type WatchStream = UntilShutdown<<HealthService as Health>::WatchStream>;

    async fn watch(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let inner = self.inner.watch(request).await?.into_inner();
        Ok(Response::new(UntilShutdown::new(
            inner,
            self.stopping.clone(),
        )))
    }
}

/// Counts requests in flight other than server streams, so that shutdown can stop as soon
/// as the last of them is answered instead of waiting out the grace period for streams.
///
/// One `Arc` for both parts: a request's guard clones and drops one reference count.
#[derive(Clone, Debug, Default)]
struct InFlight(Arc<InFlightInner>);

#[derive(Debug, Default)]
struct InFlightInner {
    count: AtomicUsize,
    idle: Notify,
}

impl std::ops::Deref for InFlight {
    type Target = InFlightInner;
    fn deref(&self) -> &InFlightInner {
        &self.0
    }
}

impl InFlight {
    async fn wait_idle(&self) {
        loop {
            let notified = self.idle.notified();
            if self.count.load(Ordering::Acquire) == 0 {
                return;
            }
            notified.await;
        }
    }
}

#[derive(Debug)]
struct InFlightGuard(InFlight);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

#[derive(Clone, Debug)]
struct InFlightLayer(InFlight);

impl<S> tower::Layer<S> for InFlightLayer {
    type Service = InFlightService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        InFlightService {
            inner,
            in_flight: self.0.clone(),
        }
    }
}

#[derive(Clone, Debug)]
struct InFlightService<S> {
    inner: S,
    in_flight: InFlight,
}

impl<S, B> tower::Service<http::Request<B>> for InFlightService<S>
where
    S: tower::Service<http::Request<B>>,
    S::Future: Unpin,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = InFlightFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let streaming = req.uri().path().ends_with("/Watch");
        let guard = (!streaming).then(|| {
            self.in_flight.count.fetch_add(1, Ordering::AcqRel);
            InFlightGuard(self.in_flight.clone())
        });
        InFlightFuture {
            inner: self.inner.call(req),
            _guard: guard,
        }
    }
}

/// A request's future holding its in-flight count until it completes or is dropped (no
/// allocation: the inner future is polled in place).
#[derive(Debug)]
struct InFlightFuture<F> {
    inner: F,
    _guard: Option<InFlightGuard>,
}

impl<F: Future + Unpin> Future for InFlightFuture<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let out = Pin::new(&mut self.inner).poll(cx);
        if out.is_ready() {
            self._guard = None;
        }
        out
    }
}

/// Serves `cardhouse.v1.Engine`, `cardhouse.v1.Matches`, `grpc.health.v1.Health` and server
/// reflection on `listener` until `shutdown` resolves; see [`serve_with_ready`].
///
/// # Errors
/// As [`serve_with_ready`].
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    serve_with_ready(listener, config, shutdown, |_| {}).await
}

/// Serves on `listener` until `shutdown` resolves. `ready` is called with the address once
/// the store is open and checked and every service is built: only then can the server
/// serve, so only then should it be announced. At shutdown: health turns NOT_SERVING, every
/// stream (Watch, health Watch) ends with UNAVAILABLE, unary requests in flight finish
/// (up to the grace period), and the store is closed.
///
/// # Errors
/// If the store cannot be opened (damage to the store as a whole included; a damaged match
/// is set aside instead), or the transport fails.
pub async fn serve_with_ready(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
    ready: impl FnOnce(Option<SocketAddr>),
) -> Result<(), ServeError> {
    let tls = config
        .tls
        .as_ref()
        .map(|t| t.load(config.connections.handshake_timeout))
        .transpose()?;
    let (store, opened) = open_with(&config.store, config.events.is_some()).await?;
    let (stopping_tx, stopping_rx) = watch::channel(false);
    let mut matches_limits = config.matches.clone();
    matches_limits.max_response_bytes = config.max_message_bytes;
    let matches =
        match MatchesService::new(store.clone(), opened, matches_limits, stopping_rx.clone()) {
            Ok(m) => m,
            Err(e) => {
                store.close().await;
                return Err(ServeError::Start(e.to_string()));
            }
        };
    let mut engine_limits = config.engine.clone();
    engine_limits.max_response_bytes = config.max_message_bytes;
    let engine = EngineService::new(engine_limits);

    let (health, _) = tonic_health::server::health_reporter();
    health.set_serving::<MatchesServer<MatchesService>>().await;
    if config.matches.operator_token.is_some() {
        health.set_serving::<AdminServer<AdminService>>().await;
    }
    let engine_served = !matches!(config.engine_access, EngineAccess::Off);
    if engine_served {
        health.set_serving::<EngineServer<EngineService>>().await;
    }
    let health_service = HealthServer::new(StoppingHealth {
        inner: HealthService::from_health_reporter(health.clone()),
        stopping: stopping_rx.clone(),
    });
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    // Events out: the outbox relayed to NATS JetStream until the server stops.
    let relay = config.events.clone().map(|events| {
        tokio::spawn(crate::relay::run(
            store.clone(),
            events,
            stopping_rx.clone(),
        ))
    });
    // Retention: a periodic sweep, ending with the server.
    let sweeper = {
        let matches = matches.clone();
        // Often enough that nothing outlives its period by more than half of it.
        let interval = config
            .sweep_interval
            .min(config.matches.retention / 2)
            .min(config.matches.abandon_after / 2)
            .max(Duration::from_millis(100));
        let mut stopped = crate::shutdown::stopping_future(stopping_rx.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = &mut stopped => return,
                    _ = tick.tick() => { matches.sweep().await; }
                }
            }
        })
    };

    let limit = config.max_message_bytes;
    let addr = listener.local_addr().ok();
    let incoming = incoming(listener, config.connections);
    let (signalled_tx, signalled_rx) = tokio::sync::oneshot::channel::<()>();
    let signal = {
        let health = health.clone();
        let bots = matches.clone();
        async move {
            shutdown.await;
            let _ = signalled_tx.send(());
            tracing::info!("shutting down: health NOT_SERVING, ending streams");
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
            // Thinking bots stop now; their moves are not committed.
            bots.stop_bots();
        }
    };
    let in_flight = InFlight::default();
    let engine_server = engine_served.then(|| {
        let access = config.engine_access.clone();
        tonic::service::interceptor::InterceptedService::new(
            EngineServer::new(engine)
                .max_decoding_message_size(limit)
                .max_encoding_message_size(limit),
            move |req: Request<()>| access.check(req),
        )
    });
    // The operator's surface, only with an operator credential.
    let admin_server = config.matches.operator_token.is_some().then(|| {
        AdminServer::new(AdminService::new(&matches))
            .max_decoding_message_size(limit)
            .max_encoding_message_size(limit)
    });
    let mut builder = Server::builder();
    if let Some(tls) = tls {
        builder = builder.tls_config(tls)?;
    }
    let server = builder
        .accept_http1(config.web.http1())
        .layer(tower::util::option_layer(config.web.layer()))
        .max_concurrent_streams(config.max_concurrent_streams)
        .http2_keepalive_interval(Some(config.keepalive_interval))
        .http2_keepalive_timeout(Some(config.keepalive_timeout))
        // Outermost: it counts the status the client sees (after `fix_status`).
        .layer(crate::metrics::grpc::MetricsLayer)
        .layer(tower::util::MapResponseLayer::new(fix_status))
        .layer(InFlightLayer(in_flight.clone()))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_optional_service(engine_server)
        .add_optional_service(admin_server)
        .add_service(
            MatchesServer::new(Limited {
                inner: matches,
                limit,
            })
            .max_decoding_message_size(limit)
            .max_encoding_message_size(limit),
        )
        .serve_with_incoming_shutdown(incoming, signal);
    tracing::info!(
        addr = %addr.map_or_else(|| "?".to_owned(), |a| a.to_string()),
        tls = config.tls.is_some(),
        grpc_web = config.web.grpc_web,
        web_table = config.web.table,
        "serving cardhouse.v1"
    );
    ready(addr);
    let grace = config.shutdown_grace;
    tokio::select! {
        r = server => r?,
        () = async {
            if signalled_rx.await.is_ok() {
                // Streams were told to end; unary requests get up to the grace period.
                if tokio::time::timeout(grace, in_flight.wait_idle()).await.is_err() {
                    tracing::warn!(?grace, "requests still open after the grace period; stopping anyway");
                }
                // A moment for the last replies and stream trailers to leave.
                tokio::time::sleep(Duration::from_millis(200)).await;
            } else {
                std::future::pending::<()>().await;
            }
        } => {}
    }
    sweeper.abort();
    if let Some(relay) = relay {
        relay.abort();
    }
    store.close().await;
    tracing::info!("stopped");
    Ok(())
}
