//! `cardhouse play`: a person plays one seat in the terminal against bots.
//!
//! Generic over games: the table is the game's per-seat text (`observation_string`, which
//! shows only what the seat may know), the moves are the engine's legal actions with their texts, the bots' moves are
//! shown as the person's seat is told of them (`action_to_string_for`), and a rejected move
//! is explained with the engine's reason. Input is read line by line, so standard input may
//! be piped (tests do).

use std::io::{BufRead, IsTerminal, Write};

use cardhouse::bots::BotKind;
use cardhouse::bots::arena::mix;
use cardhouse::{AnyGame, AnyState, Error, Player, SeededRng, Viewer};
use serde_json::Value;

/// A session's setup.
#[derive(Clone, Debug)]
pub struct Session {
    pub game: AnyGame,
    /// The person's seat.
    pub seat: usize,
    /// One entry per seat; the person's entry is ignored.
    pub bots: Vec<BotKind>,
    pub seed: u64,
}

/// ANSI bold, only on a terminal.
struct Style {
    tty: bool,
}

impl Style {
    fn bold(&self, s: &str) -> String {
        if self.tty {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
}

/// Plays until the match ends or the input does. Returns the final state.
///
/// # Errors
/// Engine or I/O errors (as text).
pub fn run(
    session: &Session,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<AnyState, String> {
    let style = Style {
        tty: std::io::stdout().is_terminal(),
    };
    let err = |e: std::io::Error| e.to_string();
    let game = &session.game;
    let me = session.seat;
    let mut chance = SeededRng::new(mix(session.seed, 0x00C4_A7CE));
    let mut bot_rngs: Vec<SeededRng> = (0..game.num_players())
        .map(|s| SeededRng::new(mix(session.seed, 1 + s as u64)))
        .collect();
    let mut state = game.new_initial_state();
    writeln!(
        out,
        "{} — you are seat {me}; {}. Type a move's number or its text; `help`, `quit`.",
        style.bold(&format!("cardhouse play {}", game.name())),
        (0..game.num_players())
            .filter(|&s| s != me)
            .map(|s| format!("seat {s}: {}", session.bots[s]))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .map_err(err)?;
    let mut last_scores: Option<Value> = None;
    while !state.is_terminal() {
        match state.current_player() {
            Player::Chance => {
                state
                    .resolve_chance(&mut chance)
                    .map_err(|e| e.to_string())?;
            }
            Player::Seat(s) if s == me => {
                draw_table(&state, me, &style, out)?;
                let Some(action) = ask(&state, input, out, &style)? else {
                    writeln!(out, "Bye.").map_err(err)?;
                    return Ok(state);
                };
                state.apply(action).map_err(|e| e.to_string())?;
            }
            Player::Seat(s) => {
                let a = state
                    .bot_action(&session.bots[s], s, &mut bot_rngs[s], &mut || false)
                    .map_err(|e: Error| e.to_string())?;
                let text = state
                    .action_to_string_for(Viewer::Seat(me), a)
                    .unwrap_or_else(|| "(a move you are not shown)".into());
                writeln!(out, "  seat {s} ({}): {text}", session.bots[s]).map_err(err)?;
                state.apply(a).map_err(|e| e.to_string())?;
            }
            Player::Terminal => break,
        }
        // Scores after each deal (whenever the public scores change).
        let view = view_json(&state, me)?;
        if let Some(scores) = view.get("scores").cloned()
            && last_scores.as_ref() != Some(&scores)
        {
            if last_scores.is_some() {
                writeln!(out, "{} {}", style.bold("Scores:"), compact(&scores)).map_err(err)?;
            }
            last_scores = Some(scores);
        }
    }
    let view = view_json(&state, me)?;
    writeln!(out, "{}", style.bold("Game over.")).map_err(err)?;
    if let Some(scores) = view.get("scores") {
        writeln!(out, "Final scores: {}", compact(scores)).map_err(err)?;
    }
    let returns = state.returns();
    let mine = returns.get(me).copied().unwrap_or(0.0);
    let verdict = if mine > 0.0 {
        "You win."
    } else if mine < 0.0 {
        "You lose."
    } else {
        "A draw."
    };
    writeln!(
        out,
        "{verdict} Returns per seat: {}",
        returns
            .iter()
            .map(|r| format!("{r:+}"))
            .collect::<Vec<_>>()
            .join(" ")
    )
    .map_err(err)?;
    Ok(state)
}

fn view_json(state: &AnyState, seat: usize) -> Result<Value, String> {
    state.view(Viewer::Seat(seat)).map_err(|e| e.to_string())
}

/// The table as the person's seat sees it: the game's per-seat text
/// (`observation_string`: the seat's hand, the public cards, scores; nothing it may not see).
fn draw_table(
    state: &AnyState,
    me: usize,
    style: &Style,
    out: &mut dyn Write,
) -> Result<(), String> {
    let err = |e: std::io::Error| e.to_string();
    let text = state.observation_string(me).map_err(|e| e.to_string())?;
    writeln!(out).map_err(err)?;
    for (i, line) in text.lines().enumerate() {
        // The first line names the game and the position: bold on a terminal.
        let line = if i == 0 {
            style.bold(line)
        } else {
            line.to_owned()
        };
        writeln!(out, "  {line}").map_err(err)?;
    }
    Ok(())
}

/// Reads a move: a number from the list or a move's text. `None` when the input ends or the
/// person quits.
fn ask(
    state: &AnyState,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    style: &Style,
) -> Result<Option<cardhouse::Action>, String> {
    let err = |e: std::io::Error| e.to_string();
    let legal: Vec<cardhouse::Action> = state.legal_actions().iter().collect();
    loop {
        writeln!(out, "  {}", style.bold("your moves:")).map_err(err)?;
        let mut line = String::from("   ");
        for (i, &a) in legal.iter().enumerate() {
            let item = format!(" [{}] {}", i + 1, state.action_to_string(a));
            if line.len() + item.len() > 78 {
                writeln!(out, "{line}").map_err(err)?;
                line = String::from("   ");
            }
            line.push_str(&item);
        }
        writeln!(out, "{line}").map_err(err)?;
        write!(out, "> ").map_err(err)?;
        out.flush().map_err(err)?;
        let mut answer = String::new();
        if input.read_line(&mut answer).map_err(err)? == 0 {
            return Ok(None);
        }
        let answer = answer.trim();
        match answer {
            "" => continue,
            "quit" | "q" | "exit" => return Ok(None),
            "help" | "?" => {
                writeln!(
                    out,
                    "  Type the number in brackets or the move's text (e.g. `{}`).",
                    state.action_to_string(legal[0])
                )
                .map_err(err)?;
                continue;
            }
            _ => {}
        }
        let chosen = match answer.parse::<usize>() {
            Ok(n) if (1..=legal.len()).contains(&n) => Ok(legal[n - 1]),
            Ok(n) => Err(format!("there is no move {n}; choose 1 to {}", legal.len())),
            Err(_) => state.string_to_action(answer).map_err(|e| e.to_string()),
        };
        match chosen.and_then(|a| state.check_action(a).map(|()| a).map_err(|e| e.to_string())) {
            Ok(a) => return Ok(Some(a)),
            Err(why) => writeln!(out, "  Not allowed: {why}").map_err(err)?,
        }
    }
}

/// A view value in one line: card lists as cards, objects as `key value` pairs.
#[must_use]
pub fn compact(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(compact)
                .filter(|s| !s.is_empty())
                .collect();
            if items.iter().all(|i| !i.is_object()) {
                parts.join(" ")
            } else {
                parts.join(", ")
            }
        }
        Value::Object(map) => {
            if let Some(card) = map.get("card").and_then(Value::as_str) {
                return match map.get("seat").and_then(Value::as_u64) {
                    Some(s) => format!("{card} (seat {s})"),
                    None => card.to_owned(),
                };
            }
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| {
                    let inner = compact(v);
                    if inner.is_empty() {
                        k.replace('_', " ")
                    } else {
                        format!("{} {inner}", k.replace('_', " "))
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
    }
}
