//! `cardhouse`: the cardhouse gRPC server, bot simulator and terminal game. Each command's
//! arguments and body are in `cardhouse_server::cli` (`serve.rs`, `simulate.rs`, `play.rs`,
//! `admin.rs`); this file only dispatches.

use std::process::ExitCode;

use cardhouse_server::cli::admin::AdminArgs;
use cardhouse_server::cli::play::PlayArgs;
use cardhouse_server::cli::serve::ServeArgs;
use cardhouse_server::cli::simulate::SimulateArgs;
use cardhouse_server::cli::{admin, play, serve, simulate};
use clap::{Parser, Subcommand};

/// mimalloc rather than the system allocator: a request allocates and frees many small
/// buffers on whichever worker thread runs it, where glibc's malloc spent a fifth of the
/// server's CPU (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "cardhouse",
    version,
    about = "The cardhouse card game engine (Jass, Klaberjass, Cribbage, Avinas): serve it over \
             gRPC, simulate bots against bots, or play a game in the terminal",
    long_about = "The cardhouse card game engine (Swiss Jass/Schieber, Klaberjass, Cribbage, \
                  Avinas).\n\n`cardhouse serve` runs the gRPC service (cardhouse.v1 Engine and \
                  Matches, health, reflection); `cardhouse simulate` plays bots against bots on \
                  every core and reports win rates; `cardhouse play` lets you play one seat in \
                  the terminal against bots. `cardhouse <COMMAND> --help` tells more."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve cardhouse.v1 (Engine, Matches), health and reflection until SIGINT/SIGTERM.
    Serve(Box<ServeArgs>),
    /// Play bots against bots on every core and report win rates with 95% confidence
    /// intervals.
    Simulate(SimulateArgs),
    /// Play a game in the terminal against bots.
    Play(PlayArgs),
    /// Operator commands against a running server (needs its --operator-token): list
    /// matches with the bot work they cost, abort one, export a record as JSON.
    Admin(AdminArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::command(*args),
        Command::Simulate(args) => simulate::command(&args),
        Command::Play(args) => play::command(&args),
        Command::Admin(args) => admin::command(args),
    }
}
