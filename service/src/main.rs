//! `cardhouse`: the cardhouse gRPC server.
//!
//! ```text
//! cardhouse serve                                  # 127.0.0.1:50051, data in ./cardhouse-data
//! cardhouse serve --listen 0.0.0.0:50051 --data-dir /var/lib/cardhouse
//! cardhouse serve --listen 127.0.0.1:0 --addr-file /tmp/addr --in-memory
//! ```
//! Every flag also reads an environment variable (`CARDHOUSE_LISTEN`, ...); `RUST_LOG`
//! filters the logs (default `info`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use cardhouse_server::engine_service::EngineLimits;
use cardhouse_server::matches::MatchLimits;
use cardhouse_server::{Config, StoreConfig, serve};
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "cardhouse",
    version,
    about = "The cardhouse card game engine as a gRPC service"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve cardhouse.v1 (Engine, Matches), health and reflection until SIGINT/SIGTERM.
    Serve(ServeArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (see --addr-file).
    #[arg(long, env = "CARDHOUSE_LISTEN", default_value = "127.0.0.1:50051")]
    listen: SocketAddr,
    /// Directory of the match database (created if missing).
    #[arg(long, env = "CARDHOUSE_DATA_DIR", default_value = "./cardhouse-data")]
    data_dir: PathBuf,
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
    /// Most matches held (finished ones included).
    #[arg(long, env = "CARDHOUSE_MAX_MATCHES", default_value_t = 100_000)]
    max_matches: usize,
    /// Most Watch streams per match.
    #[arg(long, env = "CARDHOUSE_MAX_WATCHERS", default_value_t = 64)]
    max_watchers_per_match: usize,
    /// Most states in one Engine.BatchStep request.
    #[arg(long, env = "CARDHOUSE_MAX_BATCH_STATES", default_value_t = 100_000)]
    max_batch_states: usize,
    /// Seconds that open requests get to finish after SIGINT/SIGTERM.
    #[arg(long, env = "CARDHOUSE_SHUTDOWN_GRACE_SECS", default_value_t = 10)]
    shutdown_grace_secs: u64,
    /// Log format.
    #[arg(long, env = "CARDHOUSE_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => run(args),
    }
}

fn run(args: ServeArgs) -> ExitCode {
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

async fn serve_until_signal(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let addr = listener.local_addr()?;
    if let Some(path) = &args.addr_file {
        // Write then rename, so a reader never sees a partial address.
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, addr.to_string())?;
        std::fs::rename(&tmp, path)?;
    }
    println!("cardhouse listening on {addr}");
    let config = Config {
        store: if args.in_memory {
            StoreConfig::Memory
        } else {
            StoreConfig::Dir(args.data_dir)
        },
        max_message_bytes: args.max_message_bytes,
        max_concurrent_streams: args.max_concurrent_streams,
        engine: EngineLimits {
            max_batch_states: args.max_batch_states,
        },
        matches: MatchLimits {
            max_matches: args.max_matches,
            max_watchers_per_match: args.max_watchers_per_match,
        },
        shutdown_grace: std::time::Duration::from_secs(args.shutdown_grace_secs),
    };
    serve(listener, config, shutdown_signal()).await?;
    Ok(())
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
