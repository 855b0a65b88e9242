//! `cardhouse play`: a person plays one seat in the terminal against bots.
//!
//! Generic over games: the table is the game's per-seat text (`observation_string`, which
//! shows only what the seat may know), the moves are the engine's legal actions with their texts, the bots' moves are
//! shown as the person's seat is told of them (`action_to_string_for`), and a rejected move
//! is explained with the engine's reason. Input is read line by line, so standard input may
//! be piped (tests do).

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use cardhouse::bots::BotKind;
use cardhouse::bots::autoplay::{Streams, Until, play_until};
use cardhouse::seeds;
use cardhouse::{AnyGame, AnyState, Error, Player, SeededRng, Viewer};
use serde_json::Value;

/// The arguments of `cardhouse play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The game (`jass`, ...).
    game: String,
    /// Game options as KEY=VALUE (several, or comma-separated).
    #[arg(long = "options", short = 'o', num_args = 1.., value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Your seat.
    #[arg(long, default_value_t = 0)]
    seat: usize,
    /// The bots of the other seats, comma-separated (your seat's entry is ignored), as for
    /// `simulate --bots` (`policy:GAME` plays the trained policy shipped for the game).
    #[arg(long, default_value = "heuristic")]
    bots: String,
    /// Seed of the deals and the bots (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

/// Runs `cardhouse play` on standard input and output; exits 2 with the reason for bad
/// arguments or a failed session.
#[must_use]
pub fn command(args: &PlayArgs) -> ExitCode {
    let game = match super::game(&args.game, &args.options) {
        Ok(g) => g,
        Err(e) => return super::fail(&e),
    };
    let n = game.num_players();
    if args.seat >= n {
        return super::fail(&format!(
            "--seat {}: {} has seats 0 to {}",
            args.seat,
            game.name(),
            n - 1
        ));
    }
    let bots = match super::bots(&args.bots, &game) {
        Ok(b) => b,
        Err(e) => return super::fail(&e),
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let session = Session {
        game,
        seat: args.seat,
        bots,
        seed,
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    match run(&session, &mut input, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => super::fail(&e),
    }
}

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

/// Why a session stopped before its end.
#[derive(Debug)]
enum Stop {
    /// Writing the table failed.
    Output(std::io::Error),
    /// Reading a move failed.
    Input(std::io::Error),
    /// The engine refused something.
    Engine(String),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop::Output(e)
    }
}

impl From<String> for Stop {
    fn from(e: String) -> Stop {
        Stop::Engine(e)
    }
}

/// Plays until the match ends or the input does. Returns the final state (also when the
/// output was closed by its reader, which ends the session quietly).
///
/// # Errors
/// Engine errors, an input that cannot be read, or an output that fails otherwise than by
/// being closed (a full disk), as text.
pub fn run(
    session: &Session,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<AnyState, String> {
    let mut state = session.game.new_initial_state();
    match play(session, &mut state, input, out) {
        Ok(()) => Ok(state),
        Err(Stop::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(state),
        Err(Stop::Output(e)) => Err(format!("cannot write to standard output: {e}")),
        Err(Stop::Input(e)) => Err(format!("cannot read standard input: {e}")),
        Err(Stop::Engine(e)) => Err(e),
    }
}

fn play(
    session: &Session,
    state: &mut AnyState,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    let style = Style {
        tty: std::io::stdout().is_terminal(),
    };
    let game = &session.game;
    let me = session.seat;
    let mut chance = SeededRng::new(seeds::arena_chance(session.seed));
    let mut bot_rngs: Vec<SeededRng> = (0..game.num_players())
        .map(|s| SeededRng::new(seeds::arena_seat(session.seed, s)))
        .collect();
    writeln!(
        out,
        "{} — you are seat {me}; {}. Type a move's number or its text; `help` explains the \
         moves and the cards, `quit` (or `q`) ends the game.",
        style.bold(&format!("cardhouse play {}", game.name())),
        (0..game.num_players())
            .filter(|&s| s != me)
            .map(|s| format!("seat {s}: {}", session.bots[s]))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    let mut last_scores: Option<Value> = None;
    let mut before = view_json(state, me)?;
    // The bots of the other seats; the person's seat decides (the engine's loop stops there).
    let seated: Vec<Option<BotKind>> = (0..game.num_players())
        .map(|s| (s != me).then(|| session.bots[s].clone()))
        .collect();
    while !state.is_terminal() {
        // The move made now, as the person's seat is told of it (`None` for chance).
        let mut told: Option<(usize, String)> = None;
        if state.current_player() == Player::Seat(me) {
            draw_table(state, me, &style, out)?;
            let Some(action) = ask(state, input, out, &style)? else {
                writeln!(out, "Bye.")?;
                return Ok(());
            };
            told = Some((me, state.action_to_string(action)));
            state.apply(action).map_err(|e| e.to_string())?;
        } else {
            // One move of chance or of a bot, by the engine's play-until-a-decision loop.
            let mut auto = Streams {
                bots: &seated,
                chance: &mut chance,
                seats: &mut bot_rngs,
            };
            let mut observe = |at: &AnyState, actor: Player, a| {
                if let Player::Seat(s) = actor {
                    let text = at
                        .action_to_string_for(Viewer::Seat(me), a)
                        .unwrap_or_else(|| "(a move you are not shown)".into());
                    told = Some((s, text));
                }
            };
            let mut until = Until {
                max_actions: 1,
                observe: Some(&mut observe),
                ..Until::default()
            };
            play_until(state, &mut auto, &mut until).map_err(|e: Error| e.to_string())?;
            if let Some((s, text)) = &told {
                writeln!(out, "  seat {s} ({}): {text}", session.bots[*s])?;
            }
        }
        let view = view_json(state, me)?;
        if deal_ended(&before, &view, state.is_terminal()) {
            deal_summary(&before, &view, told.as_ref(), &style, out)?;
        }
        // Scores after each deal (whenever the public scores change).
        if let Some(scores) = view.get("scores").cloned()
            && last_scores.as_ref() != Some(&scores)
        {
            if last_scores.is_some() {
                writeln!(out, "{} {}", style.bold("Scores:"), compact(&scores))?;
            }
            last_scores = Some(scores);
        }
        before = view;
    }
    let view = view_json(state, me)?;
    // The final table: the game's own text of the end (scores, last deal, skunks, the cat).
    draw_table(state, me, &style, out)?;
    writeln!(out, "{}", style.bold("Game over."))?;
    if let Some(scores) = view.get("scores") {
        writeln!(out, "Final scores: {}", compact(scores))?;
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
    )?;
    Ok(())
}

fn view_json(state: &AnyState, seat: usize) -> Result<Value, String> {
    state.view(Viewer::Seat(seat)).map_err(|e| e.to_string())
}

/// True when the move between the views `before` and `after` ended a deal: the deal number
/// moved on, or the game ended.
fn deal_ended(before: &Value, after: &Value, terminal: bool) -> bool {
    terminal
        || (before.get("deal_number").is_some() && before["deal_number"] != after["deal_number"])
}

/// What the person did not see on a table: the trick that the deal's last move completed
/// (the cards of the current trick before it, then that move's card) and the deal's result
/// as the view's `last_deal` records it. Generic over games: it reads the views' `trick`
/// (`seat`, `card`) and `last_deal` entries where a game has them.
fn deal_summary(
    before: &Value,
    after: &Value,
    last_move: Option<&(usize, String)>,
    style: &Style,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    let deal = before
        .get("deal_number")
        .and_then(Value::as_u64)
        .map_or_else(String::new, |n| format!(" {n}"));
    writeln!(out, "  {}", style.bold(&format!("Deal{deal} over.")))?;
    let mut trick: Vec<String> = before
        .get("trick")
        .and_then(Value::as_array)
        .map(|cards| {
            cards
                .iter()
                .filter_map(|p| Some(format!("{}:{}", p.get("seat")?, p.get("card")?.as_str()?)))
                .collect()
        })
        .unwrap_or_default();
    if let Some((seat, text)) = last_move
        && let Some(card) = text.strip_prefix("play ")
        && (before.get("trick").is_some())
    {
        trick.push(format!("{seat}:{card}"));
        writeln!(out, "  last trick: {}", trick.join(" "))?;
    }
    // Only this deal's record: a game that ends inside a deal (Cribbage's show, an immediate
    // end) still holds the previous deal's.
    let next_deal = before.get("deal_number") != after.get("deal_number");
    if let Some(result) = after
        .get("last_deal")
        .filter(|d| d.is_object() && (next_deal || before.get("last_deal") != Some(*d)))
    {
        writeln!(out, "  result: {}", summary(result))?;
    }
    Ok(())
}

/// A `last_deal` record in one line: its plain fields (numbers, texts, lists of numbers),
/// nested records left out; single values (the mode, a multiplier, an outcome) before the
/// lists of values per seat or team.
fn summary(record: &Value) -> String {
    let Some(map) = record.as_object() else {
        return compact(record);
    };
    let mut fields: Vec<(&String, &Value)> = map
        .iter()
        .filter(|(_, v)| match v {
            Value::Null => false,
            Value::Array(items) => items.iter().all(|i| !i.is_object() && !i.is_array()),
            _ => true,
        })
        .collect();
    fields.sort_by_key(|(_, v)| v.is_array());
    fields
        .iter()
        .map(|(k, v)| format!("{} {}", k.replace('_', " "), compact(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The table as the person's seat sees it: the game's per-seat text
/// (`observation_string`: the seat's hand, the public cards, scores; nothing it may not see).
fn draw_table(state: &AnyState, me: usize, style: &Style, out: &mut dyn Write) -> Result<(), Stop> {
    let text = state.observation_string(me).map_err(|e| e.to_string())?;
    writeln!(out)?;
    for (i, line) in text.lines().enumerate() {
        // The first line names the game and the position: bold on a terminal.
        let line = if i == 0 {
            style.bold(line)
        } else {
            line.to_owned()
        };
        writeln!(out, "  {line}")?;
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
) -> Result<Option<cardhouse::Action>, Stop> {
    let legal: Vec<cardhouse::Action> = state.legal_actions().iter().collect();
    loop {
        writeln!(out, "  {}", style.bold("your moves:"))?;
        let mut line = String::from("   ");
        for (i, &a) in legal.iter().enumerate() {
            let item = format!(" [{}] {}", i + 1, state.action_to_string(a));
            if line.len() + item.len() > 78 {
                writeln!(out, "{line}")?;
                line = String::from("   ");
            }
            line.push_str(&item);
        }
        writeln!(out, "{line}")?;
        write!(out, "> ")?;
        out.flush()?;
        let mut answer = String::new();
        if input.read_line(&mut answer).map_err(Stop::Input)? == 0 {
            return Ok(None);
        }
        let answer = answer.trim();
        match answer {
            "" => continue,
            "quit" | "q" | "exit" => {
                if confirm_quit(input, out)? {
                    return Ok(None);
                }
                continue;
            }
            "help" | "?" | "h" => {
                writeln!(out, "{}", help_text(&state.action_to_string(legal[0])))?;
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
            Err(why) => writeln!(out, "  Not allowed: {why}")?,
        }
    }
}

/// Asks before ending the game: `y` or `yes` quits; anything else goes back to the game.
/// The end of the input quits.
fn confirm_quit(input: &mut dyn BufRead, out: &mut dyn Write) -> Result<bool, Stop> {
    write!(out, "  Quit this game? [y/N] ")?;
    out.flush()?;
    let mut answer = String::new();
    if input.read_line(&mut answer).map_err(Stop::Input)? == 0 {
        return Ok(true);
    }
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// The help: the commands, and the two card notations of the engine (`example` is a move
/// of the position).
#[must_use]
pub fn help_text(example: &str) -> String {
    format!(
        "  Moves: type the number in brackets or the move's text (e.g. `{example}`).
  Commands: `help` (or `?`) shows this; `quit` (or `q`, `exit`) ends the game after asking.
  Cards are written rank then suit.
    French suits: C clubs ♣, D diamonds ♦, H hearts ♥, S spades ♠;
      ranks 2-10, J jack, Q queen, K king, A ace (`10H` = ten of hearts).
    Swiss suits (Jass): A acorns (Eicheln), R roses (Rosen), S shields (Schilten),
      B bells (Schellen); ranks 6-10, U Under, O Ober, K König, A Ass
      (`UR` = Under of roses)."
    )
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
