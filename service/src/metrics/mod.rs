//! Prometheus metrics: what the server counts, and the `/metrics` listener that serves them
//! (`cardhouse serve --metrics-listen ADDR`, off by default).
//!
//! Nothing is counted until [`install`] is called (the binary calls it only with
//! `--metrics-listen`): until then every recording function returns after one atomic load,
//! so a server without metrics pays nothing measurable. The metrics are the process's
//! (several servers in one process add up), in one registry of their own.
//!
//! | file | owns | may call |
//! |---|---|---|
//! | `mod.rs` | the registry, the recording functions the rest of the server calls, scrape hooks | `grpc` |
//! | `grpc.rs` | the tower layer counting requests and their latency per method and code | `mod.rs` |
//! | `http.rs` | the `/metrics` listener | `mod.rs` |
//!
//! Every series, its type and labels are listed in `service/README.md` ("Metrics"); the
//! Grafana dashboard `deploy/grafana-dashboard.json` draws them.
//!
//! # Who calls what
//!
//! * the server: [`grpc::MetricsLayer`] on the gRPC server; [`http::Exporter`] for the listener;
//! * connections: [`connection_opened`] (a guard held by the connection), [`connection_refused`];
//! * matches: [`match_created`], [`status_changed`], [`on_scrape`] with [`add_live_matches`];
//! * bots: [`bot_think_seconds`]; a bot worker pool: [`bot_queue_depth`], [`bot_busy_workers`];
//! * the store: [`store_commit`] (the `Ack` of every write), [`store_pool`] from a scrape hook.

pub mod grpc;
pub mod http;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
    TextEncoder,
};

use crate::domain::MatchStatus;

/// The metrics, once [`install`]ed.
static METRICS: OnceLock<Metrics> = OnceLock::new();

/// Latency buckets (seconds) of requests and store commits: 100 µs to 10 s.
const LATENCY_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Bot think-time buckets (seconds): 10 µs (a heuristic move) to 30 s (a large IS-MCTS budget).
const THINK_BUCKETS: &[f64] = &[
    0.00001, 0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Every series the server records.
pub(crate) struct Metrics {
    registry: Registry,
    grpc: grpc::GrpcSeries,
    matches_created: IntCounterVec,
    matches_ended: IntCounterVec,
    matches_live: IntGaugeVec,
    bot_think: HistogramVec,
    bot_queue_depth: IntGauge,
    bot_busy_workers: IntGauge,
    store_commit: HistogramVec,
    store_failures: IntCounterVec,
    pool_connections: IntGaugeVec,
    pool_max: IntGauge,
    pool_waiting: IntGauge,
    connections_open: IntGauge,
    connections: IntCounterVec,
    hooks: Mutex<Vec<Hook>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// Why the metrics could not be set up (a duplicate series: a bug, not an operator's error).
#[derive(Debug, thiserror::Error)]
#[error("metrics: {0}")]
pub struct MetricsError(#[from] prometheus::Error);

fn counter(
    r: &Registry,
    name: &str,
    help: &str,
    labels: &[&str],
) -> prometheus::Result<IntCounterVec> {
    let c = IntCounterVec::new(Opts::new(name, help), labels)?;
    r.register(Box::new(c.clone()))?;
    Ok(c)
}

fn gauge_vec(
    r: &Registry,
    name: &str,
    help: &str,
    labels: &[&str],
) -> prometheus::Result<IntGaugeVec> {
    let g = IntGaugeVec::new(Opts::new(name, help), labels)?;
    r.register(Box::new(g.clone()))?;
    Ok(g)
}

fn gauge(r: &Registry, name: &str, help: &str) -> prometheus::Result<IntGauge> {
    let g = IntGauge::new(name, help)?;
    r.register(Box::new(g.clone()))?;
    Ok(g)
}

fn histogram(
    r: &Registry,
    name: &str,
    help: &str,
    labels: &[&str],
    buckets: &[f64],
) -> prometheus::Result<HistogramVec> {
    let h = HistogramVec::new(
        HistogramOpts::new(name, help).buckets(buckets.to_vec()),
        labels,
    )?;
    r.register(Box::new(h.clone()))?;
    Ok(h)
}

impl Metrics {
    fn new() -> prometheus::Result<Metrics> {
        let r = Registry::new();
        Ok(Metrics {
            grpc: grpc::GrpcSeries::new(&r)?,
            matches_created: counter(
                &r,
                "cardhouse_matches_created_total",
                "Matches created through this process.",
                &["game"],
            )?,
            matches_ended: counter(
                &r,
                "cardhouse_matches_ended_total",
                "Matches that ended through this process (finished, resigned, aborted).",
                &["game", "status"],
            )?,
            matches_live: gauge_vec(
                &r,
                "cardhouse_matches_live",
                "Active matches this process holds in memory (all of them with a data \
                 directory; those it has loaded with PostgreSQL).",
                &["game"],
            )?,
            bot_think: histogram(
                &r,
                "cardhouse_bot_think_seconds",
                "Time a bot took to choose one move (heuristic and IS-MCTS bots).",
                &["game", "bot"],
                THINK_BUCKETS,
            )?,
            bot_queue_depth: gauge(
                &r,
                "cardhouse_bot_queue_depth",
                "Matches waiting for a bot worker.",
            )?,
            bot_busy_workers: gauge(
                &r,
                "cardhouse_bot_busy_workers",
                "Bot workers choosing a move now.",
            )?,
            store_commit: histogram(
                &r,
                "cardhouse_store_commit_seconds",
                "Time from queueing a write to the store until it is durable (or failed).",
                &["backend", "op"],
                LATENCY_BUCKETS,
            )?,
            store_failures: counter(
                &r,
                "cardhouse_store_commit_failures_total",
                "Store writes that did not commit: conflict (another replica changed the \
                 match first), full (the match limit), failed (outcome unknown).",
                &["backend", "op", "reason"],
            )?,
            pool_connections: gauge_vec(
                &r,
                "cardhouse_store_pool_connections",
                "Connections of the PostgreSQL pool, in use or idle.",
                &["state"],
            )?,
            pool_max: gauge(
                &r,
                "cardhouse_store_pool_max_connections",
                "Size limit of the PostgreSQL pool (--store-pool-size).",
            )?,
            pool_waiting: gauge(
                &r,
                "cardhouse_store_pool_waiting",
                "Requests waiting for a PostgreSQL connection of the pool.",
            )?,
            connections_open: gauge(
                &r,
                "cardhouse_connections_open",
                "Open connections to the gRPC listener.",
            )?,
            connections: counter(
                &r,
                "cardhouse_connections_total",
                "Connections to the gRPC listener: accepted, or refused at --max-connections.",
                &["outcome"],
            )?,
            hooks: Mutex::new(Vec::new()),
            registry: r,
        })
    }
}

/// Starts counting. Idempotent: the first call sets the registry up, later calls return.
///
/// # Errors
/// Only on a programming error (two series of one name).
pub fn install() -> Result<(), MetricsError> {
    if METRICS.get().is_some() {
        return Ok(());
    }
    let metrics = Metrics::new()?;
    let _ = METRICS.set(metrics);
    Ok(())
}

/// True once [`install`] was called.
#[must_use]
pub fn enabled() -> bool {
    METRICS.get().is_some()
}

/// Set while recording is paused ([`pause`]).
static PAUSED: AtomicBool = AtomicBool::new(false);

/// Pauses (`true`) or resumes recording once installed, so that a benchmark can compare
/// metrics on and off in one process (the series keep their values meanwhile).
pub fn pause(paused: bool) {
    PAUSED.store(paused, Ordering::Relaxed);
}

fn get() -> Option<&'static Metrics> {
    METRICS.get().filter(|_| !PAUSED.load(Ordering::Relaxed))
}

// ---------------------------------------------------------------------------------------------
// Scrape hooks: gauges read at scrape time
// ---------------------------------------------------------------------------------------------

/// What a scrape hook returns: the work to do for this scrape, or `None` once its owner is
/// gone (the hook is then dropped).
pub type ScrapeWork = Option<Pin<Box<dyn Future<Output = ()> + Send>>>;

type Hook = Box<dyn Fn() -> ScrapeWork + Send + Sync>;

/// Registers `hook`, run at every scrape before the series are encoded. The gauges that
/// hooks fill ([`add_live_matches`], [`store_pool`]) are zeroed before the hooks run, so
/// each hook adds what it owns. Does nothing while metrics are off: [`install`] comes first
/// (the binary installs them before it opens the store and builds the services).
pub fn on_scrape(hook: impl Fn() -> ScrapeWork + Send + Sync + 'static) {
    let Some(m) = METRICS.get() else { return };
    if let Ok(mut hooks) = m.hooks.lock() {
        hooks.push(Box::new(hook));
    }
}

/// Most time one scrape waits for its hooks.
const HOOK_PATIENCE: Duration = Duration::from_secs(1);

/// Runs the hooks and encodes every series in Prometheus's text format (version 0.0.4).
pub async fn render() -> String {
    let Some(m) = METRICS.get() else {
        return String::new();
    };
    m.matches_live.reset();
    m.pool_connections.reset();
    m.pool_max.set(0);
    m.pool_waiting.set(0);
    let work: Vec<_> = match m.hooks.lock() {
        Ok(mut hooks) => {
            let mut work = Vec::with_capacity(hooks.len());
            hooks.retain(|h| match h() {
                Some(w) => {
                    work.push(w);
                    true
                }
                None => false,
            });
            work
        }
        Err(_) => Vec::new(),
    };
    if tokio::time::timeout(HOOK_PATIENCE, futures_util::future::join_all(work))
        .await
        .is_err()
    {
        tracing::warn!(
            ?HOOK_PATIENCE,
            "the scrape's gauges took too long; serving what they had"
        );
    }
    let mut out = Vec::new();
    if let Err(e) = TextEncoder::new().encode(&m.registry.gather(), &mut out) {
        tracing::error!(error = %e, "encoding the metrics failed");
    }
    String::from_utf8(out).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Matches
// ---------------------------------------------------------------------------------------------

/// A match of `game` was created (and stored).
pub fn match_created(game: &str) {
    if let Some(m) = get() {
        m.matches_created.with_label_values(&[game]).inc();
    }
}

/// A committed change took a match of `game` from status `from` to `to`: counts the match
/// as ended when it leaves `Active`.
pub fn status_changed(game: &str, from: MatchStatus, to: MatchStatus) {
    if from != MatchStatus::Active || to == MatchStatus::Active {
        return;
    }
    if let Some(m) = get() {
        m.matches_ended.with_label_values(&[game, to.word()]).inc();
    }
}

/// `n` matches were aborted as abandoned by a shared store's sweep, whose statement does not
/// read their game: counted with `game="unknown"`.
pub fn matches_abandoned(n: usize) {
    if n == 0 {
        return;
    }
    if let Some(m) = get() {
        m.matches_ended
            .with_label_values(&["unknown", "aborted"])
            .inc_by(n as u64);
    }
}

/// From a scrape hook: `n` more active matches of `game` in memory.
pub fn add_live_matches(game: &str, n: usize) {
    if let Some(m) = METRICS.get() {
        m.matches_live.with_label_values(&[game]).add(n as i64);
    }
}

// ---------------------------------------------------------------------------------------------
// Bots
// ---------------------------------------------------------------------------------------------

/// A bot (`bot`: `heuristic`, `ismcts`, ...) of a match of `game` took `d` to choose a move.
pub fn bot_think_seconds(game: &str, bot: &str, d: Duration) {
    if let Some(m) = get() {
        m.bot_think
            .with_label_values(&[game, bot])
            .observe(d.as_secs_f64());
    }
}

/// For a bot worker pool: matches waiting for a worker now.
pub fn bot_queue_depth(n: usize) {
    if let Some(m) = get() {
        m.bot_queue_depth.set(n as i64);
    }
}

/// For a bot worker pool: workers choosing a move now.
pub fn bot_busy_workers(n: usize) {
    if let Some(m) = get() {
        m.bot_busy_workers.set(n as i64);
    }
}

// ---------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------

/// What kind of write a store commit was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreOp {
    Create,
    Change,
    Delete,
}

impl StoreOp {
    fn label(self) -> &'static str {
        match self {
            StoreOp::Create => "create",
            StoreOp::Change => "change",
            StoreOp::Delete => "delete",
        }
    }
}

/// Why a store write did not commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreFailure {
    /// Another replica changed the match first (nothing written).
    Conflict,
    /// The match limit (nothing written).
    Full,
    /// The write failed; its outcome is unknown.
    Failed,
}

/// The start of a store write, to be finished with [`CommitTimer::done`]; `None` while
/// metrics are off (nothing to time).
#[derive(Debug)]
pub struct CommitTimer {
    backend: &'static str,
    op: StoreOp,
    start: Instant,
}

/// Starts timing a write of `backend` (`memory`, `local`, `postgres`), if metrics are on.
#[must_use]
pub fn store_commit(backend: &'static str, op: StoreOp) -> Option<CommitTimer> {
    get().map(|_| CommitTimer {
        backend,
        op,
        start: Instant::now(),
    })
}

impl CommitTimer {
    /// The write is durable (`None`) or did not commit.
    pub fn done(self, failure: Option<StoreFailure>) {
        let Some(m) = get() else { return };
        let labels = [self.backend, self.op.label()];
        m.store_commit
            .with_label_values(&labels)
            .observe(self.start.elapsed().as_secs_f64());
        if let Some(f) = failure {
            let reason = match f {
                StoreFailure::Conflict => "conflict",
                StoreFailure::Full => "full",
                StoreFailure::Failed => "failed",
            };
            m.store_failures
                .with_label_values(&[labels[0], labels[1], reason])
                .inc();
        }
    }
}

/// From a scrape hook: a PostgreSQL pool's state (added up over the process's pools).
pub fn store_pool(max: usize, open: usize, idle: usize, waiting: usize) {
    if let Some(m) = METRICS.get() {
        m.pool_max.add(max as i64);
        m.pool_connections
            .with_label_values(&["in_use"])
            .add(open.saturating_sub(idle) as i64);
        m.pool_connections
            .with_label_values(&["idle"])
            .add(idle as i64);
        m.pool_waiting.add(waiting as i64);
    }
}

// ---------------------------------------------------------------------------------------------
// Connections
// ---------------------------------------------------------------------------------------------

/// Held by an open connection: counted open until it is dropped.
#[derive(Debug)]
pub struct ConnectionGuard(Option<&'static IntGauge>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        if let Some(g) = self.0 {
            g.dec();
        }
    }
}

/// A connection was accepted; it counts as open while the returned guard lives.
#[must_use]
pub fn connection_opened() -> ConnectionGuard {
    let Some(m) = get() else {
        return ConnectionGuard(None);
    };
    m.connections.with_label_values(&["accepted"]).inc();
    m.connections_open.inc();
    ConnectionGuard(Some(&m.connections_open))
}

/// A connection was closed at once: `--max-connections` were open.
pub fn connection_refused() {
    if let Some(m) = get() {
        m.connections.with_label_values(&["refused"]).inc();
    }
}
