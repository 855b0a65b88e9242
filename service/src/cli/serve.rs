//! `cardhouse serve`: its flags ([`ServeArgs`]), the server's [`Config`] made from them, and
//! the server run until SIGINT/SIGTERM.
//!
//! ```text
//! cardhouse serve                                  # 127.0.0.1:50051, data in ./cardhouse-data
//! cardhouse serve --listen 0.0.0.0:50051 --data-dir /var/lib/cardhouse
//! cardhouse serve --listen 127.0.0.1:0 --addr-file /tmp/addr --in-memory
//! cardhouse serve --create-token "$SECRET" --engine off   # a public server
//! cardhouse serve --metrics-listen 127.0.0.1:9464         # Prometheus at /metrics
//! cardhouse serve --tls-cert cert.pem --tls-key key.pem --web   # https://127.0.0.1:50051/
//! ```
//! Every flag also reads an environment variable (`CARDHOUSE_LISTEN`, ...); `RUST_LOG`
//! filters the logs (default `info`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::ValueEnum;

use crate::connections::ConnectionLimits;
use crate::engine_service::{EngineAccess, EngineLimits};
use crate::fds;
use crate::matches::{AllBotMatches, MatchLimits};
use crate::relay::{EventFormat, EventsConfig};
use crate::server::{Config, DirConfig, PgConfig, StoreConfig, serve_with_ready};
use crate::store::local::DEFAULT_CACHE_BYTES;
use crate::store::pg::DEFAULT_POOL_SIZE;
use crate::tls::TlsFiles;
use crate::web::{Origin, WebConfig};

/// Whether and for whom the Engine service is served (`--engine`).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum EngineMode {
    Open,
    Off,
    Token,
}

/// A switch (`--store-notices`).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum OnOff {
    On,
    Off,
}

/// Who may create a match whose every seat is a bot (`--all-bot-matches`).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum AllBotMode {
    Allow,
    Deny,
    Operator,
}

/// How the logs are written (`--log-format`).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// The flags of `cardhouse serve` (each also read from its environment variable).
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (see --addr-file).
    #[arg(long, env = "CARDHOUSE_LISTEN", default_value = "127.0.0.1:50051")]
    listen: SocketAddr,
    /// Directory of the match database (created if missing).
    #[arg(long, env = "CARDHOUSE_DATA_DIR", default_value = "./cardhouse-data")]
    data_dir: PathBuf,
    /// Keep matches in PostgreSQL (`postgres://user@host:port/dbname`) instead of the data
    /// directory: any number of replicas may share it. The server creates and migrates the
    /// schema.
    #[arg(
        long,
        env = "CARDHOUSE_STORE",
        conflicts_with = "in_memory",
        hide_env_values = true
    )]
    store: Option<String>,
    /// MiB of the data directory's database the server keeps in memory (its page cache).
    #[arg(long, env = "CARDHOUSE_STORE_CACHE_MB", default_value_t = (DEFAULT_CACHE_BYTES >> 20) as u64,
          value_parser = clap::value_parser!(u64).range(1..=65_536))]
    store_cache_mb: u64,
    /// Connections each server keeps to the PostgreSQL store (with --store).
    #[arg(long, env = "CARDHOUSE_STORE_POOL_SIZE", default_value_t = DEFAULT_POOL_SIZE)]
    store_pool_size: usize,
    /// With --store: `on` sends and listens for PostgreSQL change notices (LISTEN/NOTIFY),
    /// so a Watch sees moves made through other replicas at once; `off` (for databases
    /// without LISTEN/NOTIFY) leaves them to the watchers' once-a-second poll.
    #[arg(
        long,
        env = "CARDHOUSE_STORE_NOTICES",
        value_enum,
        default_value = "on"
    )]
    store_notices: OnOff,
    /// Keep matches in memory only: they are lost when the server stops.
    #[arg(long, env = "CARDHOUSE_IN_MEMORY")]
    in_memory: bool,
    /// Write the bound address (`host:port`) to this file once listening.
    #[arg(long, env = "CARDHOUSE_ADDR_FILE")]
    addr_file: Option<PathBuf>,
    /// Largest request or response message in bytes.
    #[arg(long, env = "CARDHOUSE_MAX_MESSAGE_BYTES", default_value_t = 16 * 1024 * 1024)]
    max_message_bytes: usize,
    /// Most concurrent streams per HTTP/2 connection.
    #[arg(long, env = "CARDHOUSE_MAX_CONCURRENT_STREAMS", default_value_t = 1024)]
    max_concurrent_streams: u32,
    /// Most matches held (ended ones included until their retention ends).
    #[arg(long, env = "CARDHOUSE_MAX_MATCHES", default_value_t = 100_000)]
    max_matches: usize,
    /// Most Watch streams per match.
    #[arg(long, env = "CARDHOUSE_MAX_WATCHERS", default_value_t = 64)]
    max_watchers_per_match: usize,
    /// If set, CreateMatch needs `authorization: Bearer <this token>` (off: anyone may
    /// create matches, fine for local use).
    #[arg(long, env = "CARDHOUSE_CREATE_TOKEN", hide_env_values = true)]
    create_token: Option<String>,
    /// Seconds an ended match (finished, resigned, aborted) is kept, its record fetchable,
    /// before it leaves memory and the store.
    #[arg(long, env = "CARDHOUSE_RETENTION_SECS", default_value_t = 7 * 24 * 3600)]
    retention_secs: u64,
    /// Seconds an active match may go without an accepted request before it is aborted as
    /// abandoned (then kept for the retention period).
    #[arg(long, env = "CARDHOUSE_ABANDON_SECS", default_value_t = 30 * 24 * 3600)]
    abandon_secs: u64,
    /// Threads that play bots in the background, shared by every match (at a lower
    /// priority than requests). Default: the number of cores.
    #[arg(long, env = "CARDHOUSE_BOT_WORKERS")]
    bot_workers: Option<usize>,
    /// Most IS-MCTS iterations a bot may spend on one move, whatever its match asks
    /// (CreateMatch and Engine.BotAction refuse more).
    #[arg(long, env = "CARDHOUSE_MAX_ISMCTS_ITERATIONS", default_value_t = 100_000,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_ismcts_iterations: u32,
    /// Most determinizations a `rollout` bot may spend on one move, whatever its seat asks
    /// (CreateMatch and Engine.BotAction refuse more).
    #[arg(long, env = "CARDHOUSE_MAX_ROLLOUT_SAMPLES", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_rollout_samples: u32,
    /// Most worlds a `pimc` bot may solve exactly for one move, whatever its seat asks
    /// (CreateMatch refuses more). A world early in a Jass deal takes far longer than one
    /// late in it (see --bot-move-ms).
    #[arg(long, env = "CARDHOUSE_MAX_PIMC_WORLDS", default_value_t = 1_000,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    max_pimc_worlds: u32,
    /// Most milliseconds a bot may think about one move, a seat's or Engine.BotAction's (it
    /// then plays its best so far).
    #[arg(long, env = "CARDHOUSE_BOT_MOVE_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    bot_move_ms: u64,
    /// Most actions in one match (chance, bots and seats): a match that reaches it is
    /// aborted, so no match costs more work than this.
    #[arg(long, env = "CARDHOUSE_MAX_MATCH_ACTIONS", default_value_t = 100_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_match_actions: u64,
    /// Matches whose every seat is a bot: `allow`, `deny`, or `operator` (only with the
    /// operator credential).
    #[arg(
        long,
        env = "CARDHOUSE_ALL_BOT_MATCHES",
        value_enum,
        default_value = "allow"
    )]
    all_bot_matches: AllBotMode,
    /// The operator credential: serves `cardhouse.v1.Admin` (list, abort and export any
    /// match; `cardhouse admin`) to requests carrying `authorization: Bearer <this>`.
    /// Off when unset.
    #[arg(long, env = "CARDHOUSE_OPERATOR_TOKEN", hide_env_values = true)]
    operator_token: Option<String>,
    /// Most states in one Engine.BatchStep request.
    #[arg(long, env = "CARDHOUSE_MAX_BATCH_STATES", default_value_t = 100_000)]
    max_batch_states: usize,
    /// Most actions one Engine.BatchStep request may apply, all states together.
    #[arg(
        long,
        env = "CARDHOUSE_MAX_BATCH_ACTIONS",
        default_value_t = 50_000_000
    )]
    max_batch_actions: u64,
    /// The Engine service (trusted callers: it shows every hand): `open`, `off`, or
    /// `token` (needs --engine-token).
    #[arg(long, env = "CARDHOUSE_ENGINE", value_enum, default_value = "open")]
    engine: EngineMode,
    /// The credential of the Engine service with `--engine token`.
    #[arg(long, env = "CARDHOUSE_ENGINE_TOKEN", hide_env_values = true)]
    engine_token: Option<String>,
    /// Most open connections; more are closed at once.
    #[arg(long, env = "CARDHOUSE_MAX_CONNECTIONS", default_value_t = 4096)]
    max_connections: usize,
    /// Seconds a new connection has to send its first bytes.
    #[arg(long, env = "CARDHOUSE_HANDSHAKE_TIMEOUT_SECS", default_value_t = 10)]
    handshake_timeout_secs: u64,
    /// Serve TLS with this certificate chain (PEM, leaf first); needs --tls-key.
    #[arg(long, env = "CARDHOUSE_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "CARDHOUSE_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Mutual TLS: every client must present a certificate signed by a CA in this file (PEM).
    #[arg(long, env = "CARDHOUSE_TLS_CLIENT_CA", requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// Also serve gRPC-Web (browsers, over HTTP/1.1 or HTTP/2) on the same port.
    #[arg(long, env = "CARDHOUSE_GRPC_WEB")]
    grpc_web: bool,
    /// Origins whose pages may call the server (CORS), e.g. `https://play.example.com`;
    /// several, or comma-separated. Needs --grpc-web or --web. Default: none.
    #[arg(
        long = "cors-origin",
        env = "CARDHOUSE_CORS_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    cors_origins: Vec<Origin>,
    /// Serve the web table (play and watch in a browser) on `/`; turns on gRPC-Web.
    #[arg(long, env = "CARDHOUSE_WEB")]
    web: bool,
    /// Start even if the data directory is corrupt, keeping what is consistent and logging
    /// everything dropped. Read the error of a normal start first; back the directory up.
    #[arg(long, env = "CARDHOUSE_SALVAGE")]
    salvage: bool,
    /// Seconds that open requests get to finish after SIGINT/SIGTERM.
    #[arg(long, env = "CARDHOUSE_SHUTDOWN_GRACE_SECS", default_value_t = 10)]
    shutdown_grace_secs: u64,
    /// Log format.
    #[arg(long, env = "CARDHOUSE_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
    /// Serve Prometheus metrics at http://ADDR/metrics, on a listener of its own (off by
    /// default: nothing is counted); port 0 picks a free port, printed after the listening line.
    #[arg(long, env = "CARDHOUSE_METRICS_LISTEN")]
    metrics_listen: Option<SocketAddr>,
    /// Publish every match's events to NATS JetStream at this URL (`nats://HOST:4222`):
    /// subject `cardhouse.match.<game>.<match id>` of the stream `CARDHOUSE_MATCHES`
    /// (created when missing), written to the store's outbox with each move and relayed
    /// after it. Default: off (no outbox).
    #[arg(long, env = "CARDHOUSE_EVENTS", value_name = "URL")]
    events: Option<String>,
    /// The events' payload: `proto` (a cardhouse.v1.MatchStreamEvent) or `json` (its proto3
    /// JSON form).
    #[arg(
        long,
        env = "CARDHOUSE_EVENTS_FORMAT",
        value_enum,
        default_value = "proto",
        requires = "events"
    )]
    events_format: EventFormat,
}

/// Runs `cardhouse serve`: the logs, the file descriptor limit, the runtime, then the server
/// until SIGINT/SIGTERM. Exits non-zero if the server cannot start or fails.
#[must_use]
pub fn command(mut args: ServeArgs) -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    match args.log_format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
    limit_connections(&mut args);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve_until_signal(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "server failed");
            ExitCode::FAILURE
        }
    }
}

/// Raises the file descriptor limit to the hard limit and lowers `--max-connections`, with
/// a warning, if the process cannot hold that many besides its other descriptors (see
/// [`fds`]).
fn limit_connections(args: &mut ServeArgs) {
    let limit = fds::raise_limit();
    // A PostgreSQL store: its pool, the listening and notifying connections, a migration's.
    let store = if args.store.is_some() {
        args.store_pool_size as u64 + 3
    } else {
        0
    };
    let reserved = fds::RESERVED + store;
    let max = fds::max_connections(args.max_connections, limit, reserved);
    if max < args.max_connections {
        tracing::warn!(
            "--max-connections {} lowered to {max}: this process may open {} files \
             (RLIMIT_NOFILE, raised to its hard limit), and {} of them are kept for the \
             store, the listener and the runtime",
            args.max_connections,
            limit.unwrap_or(0),
            reserved.min(limit.unwrap_or(0) / 2)
        );
        args.max_connections = max;
    }
}

/// Binds the listeners, then serves until a signal; the listening line (and `--addr-file`)
/// once the server can serve.
async fn serve_until_signal(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    // Signal handlers first: from here on SIGTERM means a clean shutdown, never a kill.
    let shutdown = shutdown_signal()?;
    let engine_access = engine_access(args.engine, args.engine_token.clone())?;
    let metrics = match args.metrics_listen {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            Some(crate::metrics::http::Exporter::start(listener)?)
        }
        None => None,
    };
    if !(args.cors_origins.is_empty() || args.grpc_web || args.web) {
        return Err("--cors-origin needs --grpc-web or --web (CORS is for gRPC-Web)".into());
    }
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let addr_file = args.addr_file.clone();
    let config = config(args, engine_access);
    serve_with_ready(listener, config, shutdown, |addr| {
        // Announced only now: the store is open and checked, the services are built and
        // the signal handlers are in place.
        let Some(addr) = addr else { return };
        if let Some(path) = &addr_file {
            // Write then rename, so a reader never sees a partial address.
            let tmp = path.with_extension("tmp");
            if let Err(e) =
                std::fs::write(&tmp, addr.to_string()).and_then(|()| std::fs::rename(&tmp, path))
            {
                // Nothing was served yet, and the store is crash-safe: stop here.
                tracing::error!(error = %e, path = %path.display(), "cannot write --addr-file");
                std::process::exit(1);
            }
        }
        println!("cardhouse listening on {addr}");
        if let Some(m) = &metrics {
            println!("cardhouse metrics on http://{}/metrics", m.addr());
        }
    })
    .await?;
    Ok(())
}

/// The Engine service's access from `--engine` and `--engine-token`.
fn engine_access(
    mode: EngineMode,
    token: Option<String>,
) -> Result<EngineAccess, Box<dyn std::error::Error>> {
    Ok(match (mode, token) {
        (EngineMode::Open, _) => EngineAccess::Open,
        (EngineMode::Off, _) => EngineAccess::Off,
        (EngineMode::Token, Some(t)) if !t.is_empty() => EngineAccess::Token(t),
        (EngineMode::Token, _) => {
            return Err("--engine token needs --engine-token (or CARDHOUSE_ENGINE_TOKEN)".into());
        }
    })
}

/// The server's configuration from its flags (`engine_access` already checked).
fn config(args: ServeArgs, engine_access: EngineAccess) -> Config {
    Config {
        store: if let Some(url) = args.store {
            StoreConfig::Postgres(PgConfig {
                url,
                pool_size: args.store_pool_size,
                notices: matches!(args.store_notices, OnOff::On),
            })
        } else if args.in_memory {
            StoreConfig::Memory
        } else {
            StoreConfig::Dir(DirConfig {
                path: args.data_dir,
                cache_bytes: (args.store_cache_mb as usize) << 20,
                salvage: args.salvage,
            })
        },
        max_message_bytes: args.max_message_bytes,
        max_concurrent_streams: args.max_concurrent_streams,
        connections: ConnectionLimits {
            max_connections: args.max_connections,
            handshake_timeout: Duration::from_secs(args.handshake_timeout_secs),
        },
        engine: EngineLimits {
            max_batch_states: args.max_batch_states,
            max_batch_actions: args.max_batch_actions,
            ..EngineLimits::default()
        },
        engine_access,
        matches: MatchLimits {
            max_matches: args.max_matches,
            max_watchers_per_match: args.max_watchers_per_match,
            create_token: args.create_token.filter(|t| !t.is_empty()),
            retention: Duration::from_secs(args.retention_secs),
            abandon_after: Duration::from_secs(args.abandon_secs),
            bot_workers: args
                .bot_workers
                .unwrap_or(MatchLimits::default().bot_workers)
                .max(1),
            max_ismcts_iterations: args.max_ismcts_iterations,
            max_rollout_samples: args.max_rollout_samples,
            max_pimc_worlds: args.max_pimc_worlds,
            bot_move_time: Duration::from_millis(args.bot_move_ms),
            max_match_actions: args.max_match_actions,
            all_bot_matches: match args.all_bot_matches {
                AllBotMode::Allow => AllBotMatches::Allow,
                AllBotMode::Deny => AllBotMatches::Deny,
                AllBotMode::Operator => AllBotMatches::Operator,
            },
            operator_token: args.operator_token.filter(|t| !t.is_empty()),
            ..MatchLimits::default()
        },
        shutdown_grace: Duration::from_secs(args.shutdown_grace_secs),
        tls: args.tls_cert.zip(args.tls_key).map(|(cert, key)| TlsFiles {
            cert,
            key,
            client_ca: args.tls_client_ca,
        }),
        web: WebConfig {
            grpc_web: args.grpc_web || args.web,
            cors_origins: args.cors_origins,
            table: args.web,
        },
        events: args.events.map(|url| EventsConfig {
            url,
            format: args.events_format,
        }),
        ..Config::default()
    }
}

/// Installs the SIGINT and SIGTERM handlers at once; the future resolves on either.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}
