//! The command line of `cardhouse-bench`.

use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "cardhouse-bench",
    about = "Loopback load test of the cardhouse gRPC service"
)]
pub(crate) struct Args {
    /// Seconds per phase and round.
    #[arg(long, default_value_t = 1.0)]
    pub(crate) seconds: f64,
    /// Rounds: the phases alternate (echo, Matches, the PostgreSQL ones, Engine, echo, ...)
    /// so that load from elsewhere on the machine hits all of them alike.
    #[arg(long, default_value_t = 5)]
    pub(crate) rounds: u32,
    /// Concurrent requests in flight (echo and Matches phases alike).
    #[arg(long, default_value_t = 256)]
    pub(crate) concurrency: usize,
    /// HTTP/2 connections the concurrent requests share.
    #[arg(long, default_value_t = 4)]
    pub(crate) connections: usize,
    /// States per BatchStep request.
    #[arg(long, default_value_t = 2000)]
    pub(crate) batch_states: u32,
    /// Concurrent BatchStep requests.
    #[arg(long, default_value_t = 2)]
    pub(crate) batch_concurrency: usize,
    /// Skip the echo and Engine phases (for profiling the Matches path).
    #[arg(long)]
    pub(crate) matches_only: bool,
    /// Keep matches in memory (no persistence), to see what the store costs.
    #[arg(long)]
    pub(crate) in_memory: bool,
    /// Stop a phase after this many requests even if time remains.
    #[arg(long, default_value_t = 5_000_000)]
    pub(crate) max_requests: u64,
    /// Also measure `Matches.Act` on PostgreSQL: a URL of an existing database with the right
    /// to create databases (e.g. `postgres://postgres@127.0.0.1:5432/postgres`). The bench
    /// creates `cardhouse_bench_<pid>` beside it, runs two replicas on it and drops it at
    /// the end. Without it the PostgreSQL phases are skipped.
    #[arg(long, env = "CARDHOUSE_BENCH_POSTGRES")]
    pub(crate) postgres: Option<String>,
    /// Concurrent `Act` requests in the PostgreSQL phases (default: `--concurrency`); in the
    /// two-replica phases they are spread over both replicas.
    #[arg(long)]
    pub(crate) pg_concurrency: Option<usize>,
    /// Connections each PostgreSQL replica keeps to the database (the server's
    /// `--store-pool-size`; default: the server's default).
    #[arg(long)]
    pub(crate) pg_pool_size: Option<usize>,
    /// Skip the two-replica "sticky" phase (each match on one replica).
    #[arg(long)]
    pub(crate) no_sticky: bool,
    /// Also measure `Matches.Act` over TLS: a second one-node server like the first, serving
    /// TLS with a certificate made at start, its clients on as many TLS connections; its
    /// phase alternates with the plaintext one.
    #[arg(long)]
    pub(crate) tls: bool,
    /// Also measure `Matches.Act` with the Prometheus metrics recording (as under
    /// `--metrics-listen`): the same one-node server, its phase with recording on alternating
    /// with the one with recording off (every other phase runs with it off).
    #[arg(long)]
    pub(crate) metrics: bool,
    /// Also measure `Matches.Act` with match events out (`--events`): a second one-node
    /// server like the first, writing every move's events to its outbox and relaying them to
    /// the NATS JetStream at this URL (a running `nats-server -js`); its phase alternates
    /// with the plain one.
    #[arg(long, value_name = "NATS_URL")]
    pub(crate) events: Option<String>,
}
