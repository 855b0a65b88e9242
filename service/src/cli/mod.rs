//! The `cardhouse` commands: each subcommand's arguments beside its body (`main.rs` only
//! dispatches), and the helpers they share (options, bots, output, failure).
//!
//! | file | owns | may call |
//! |---|---|---|
//! | `serve.rs` | `cardhouse serve`: its flags, the server's `Config` made from them, signals | — |
//! | `simulate.rs` | `cardhouse simulate`: bots against bots on every core, win rates | `mod.rs` |
//! | `play.rs` | `cardhouse play`: one seat in the terminal against bots | `mod.rs` |
//! | `admin.rs` | `cardhouse admin`: the operator's commands against a running server | `mod.rs` |
//! | `mod.rs` | what the commands share: options, bots, output, failure | — |

pub mod admin;
pub mod play;
pub mod serve;
pub mod simulate;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use cardhouse::bots::{BotKind, Policy};
use cardhouse::{AnyGame, OptionValue, Options};

/// Writes a command's output to standard output, flushed, without panicking: a reader that
/// closed the pipe early (`| head`) ends the command quietly with success, as for other Unix
/// tools' output that nobody reads; any other failure (a full disk) is reported on standard
/// error and exits with status 1.
#[must_use]
pub fn write_stdout(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => output_failed(&e),
    }
}

/// The exit of a command whose standard output failed (see [`write_stdout`]).
#[must_use]
pub fn output_failed(e: &std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(
        std::io::stderr(),
        "cardhouse: cannot write to standard output: {e}"
    );
    ExitCode::from(1)
}

/// Reports a command's failure on standard error (`cardhouse: <message>`); exit status 2.
#[must_use]
pub fn fail(message: &str) -> ExitCode {
    eprintln!("cardhouse: {message}");
    ExitCode::from(2)
}

/// Parses `KEY=VALUE` pairs (each may also hold several, comma-separated).
///
/// # Errors
/// A pair without `=`, named.
pub fn parse_options(pairs: &[String]) -> Result<Options, String> {
    let mut out = Options::new();
    for item in pairs.iter().flat_map(|p| p.split(',')) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("option `{item}` is not KEY=VALUE"))?;
        out.insert(k.trim().to_owned(), OptionValue::Str(v.trim().to_owned()));
    }
    Ok(out)
}

/// The game with its options.
///
/// # Errors
/// The engine's message (unknown game or option, with what is allowed).
pub fn game(name: &str, options: &[String]) -> Result<AnyGame, String> {
    let options = parse_options(options)?;
    cardhouse::new_game(name, &options).map_err(|e| e.to_string())
}

/// One bot per seat from a comma-separated list; a single name fills every seat, and a
/// shorter list repeats (`heuristic,random` on four seats = partners alike). Besides the
/// engine's names (`random`, `heuristic`, `ismcts`, `ismcts:N`, `policy:NAME` for a shipped
/// policy), `policy:PATH` loads a policy file written by `python -m cardhouse.train` (a
/// PATH with a `/` or ending in `.chp`).
///
/// # Errors
/// An unknown bot, named with the allowed forms; a policy file that cannot be read or
/// parsed, named.
pub fn bots(list: &str, game: &AnyGame) -> Result<Vec<BotKind>, String> {
    let seats = game.num_players();
    let named: Vec<BotKind> = list.split(',').map(bot).collect::<Result<_, _>>()?;
    for b in &named {
        // A policy must be one of this game's (checked now, not at its first move).
        b.check_game(game).map_err(|e| e.to_string())?;
    }
    if named.is_empty() || !seats.is_multiple_of(named.len()) {
        return Err(format!(
            "{} bots for {seats} seats: give one per seat, or a list that divides the seats",
            named.len()
        ));
    }
    Ok((0..seats).map(|s| named[s % named.len()].clone()).collect())
}

/// One bot: an engine name, or `policy:PATH` for a policy file.
fn bot(text: &str) -> Result<BotKind, String> {
    let text = text.trim();
    if let Some(path) = text.strip_prefix("policy:")
        && (path.contains('/') || path.ends_with(".chp"))
    {
        let bytes = std::fs::read(path).map_err(|e| format!("policy file `{path}`: {e}"))?;
        let policy = Policy::from_bytes(&bytes).map_err(|e| format!("`{path}`: {e}"))?;
        return Ok(BotKind::Policy(Arc::new(policy)));
    }
    text.parse::<BotKind>().map_err(|e| e.to_string())
}
