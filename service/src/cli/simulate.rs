//! `cardhouse simulate`: bots against bots on every core, with win rates and confidence
//! intervals. Match `i` is seeded from `(seed, i)`, and results are gathered in match order,
//! so the output does not depend on the number of threads.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use cardhouse::bots::BotKind;
use cardhouse::bots::arena::{self, num_sides, side_of, wilson};
use cardhouse::seeds::mix;
use cardhouse::{AnyGame, Error};
use serde_json::json;

/// The arguments of `cardhouse simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// The game (`jass`, ...).
    game: String,
    /// Game options as KEY=VALUE (several, or comma-separated).
    #[arg(long = "options", short = 'o', num_args = 1.., value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Bots per seat, comma-separated (`random`, `heuristic`, `ismcts`, `ismcts:N`,
    /// `rollout:N`, `pimc:N` (N worlds solved exactly a move), `policy:GAME` for the policy
    /// shipped for that game, `policy:FILE.chp` for a trained one); a shorter list repeats
    /// round the table.
    #[arg(long, default_value = "heuristic,random")]
    bots: String,
    /// Matches to play (duplicate sets with --duplicate).
    #[arg(long, default_value_t = 1000)]
    matches: usize,
    /// Seed: the same seed gives the same results, whatever the thread count.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play every deal again with the bots moved one seat round (sides swapped), so that
    /// card luck cancels.
    #[arg(long)]
    duplicate: bool,
    /// Threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs `cardhouse simulate`: the table (or JSON) on standard output, the progress on
/// standard error; exits 2 with the reason for bad arguments or a failed match.
#[must_use]
pub fn command(args: &SimulateArgs) -> ExitCode {
    let game = match super::game(&args.game, &args.options) {
        Ok(g) => g,
        Err(e) => return super::fail(&e),
    };
    let bots = match super::bots(&args.bots, &game) {
        Ok(b) => b,
        Err(e) => return super::fail(&e),
    };
    if args.matches == 0 {
        return super::fail("--matches must be at least 1");
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return super::fail("--threads must be at least 1");
    }
    let setup = Simulation {
        game,
        bots,
        matches: args.matches,
        seed: args.seed,
        duplicate: args.duplicate,
        threads,
    };
    match run(&setup, &progress_printer()) {
        Ok(report) if args.json => super::write_stdout(&format!("{}\n", json(&setup, &report))),
        Ok(report) => super::write_stdout(&text(&setup, &report)),
        Err(e) => super::fail(&e),
    }
}

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub game: AnyGame,
    /// One bot per seat (the lineup).
    pub bots: Vec<BotKind>,
    /// Matches, or duplicate sets with `duplicate`.
    pub matches: usize,
    pub seed: u64,
    pub duplicate: bool,
    pub threads: usize,
}

/// Per side of the lineup: its bots and results.
#[derive(Clone, Debug)]
pub struct SideResult {
    pub side: usize,
    /// The side's seats in the lineup (the first match of a duplicate set).
    pub seats: Vec<usize>,
    /// The bot of each of those seats.
    pub bots: Vec<String>,
    /// Share of matches (or duplicate sets) this side won; a draw counts half.
    pub win_rate: f64,
    /// 95% Wilson interval of the win rate.
    pub win_rate_ci: (f64, f64),
    /// Mean return of one seat of the side per match (per set with `duplicate`).
    pub mean_return: f64,
    /// Half-width of the 95% interval of `mean_return`.
    pub mean_return_ci: f64,
}

/// A simulation's results.
#[derive(Clone, Debug)]
pub struct Report {
    pub sides: Vec<SideResult>,
    /// Matches played (a duplicate set counts each of its matches).
    pub matches_played: usize,
    pub seconds: f64,
}

/// Each side's return in one match or duplicate set.
type UnitResult = Result<Vec<f64>, Error>;

/// The most matches (or duplicate sets) one run may play (their results are kept: 8 bytes
/// per side and match).
pub const MAX_MATCHES: usize = 100_000_000;
/// The most threads one run may use.
pub const MAX_THREADS: usize = 1024;
/// Matches played per round: a round's threads are joined and its results kept in match
/// order, so the figures do not depend on the thread count.
const ROUND: usize = 1 << 16;

/// Checks the sizes of `sim`: matches from 1 to [`MAX_MATCHES`], threads from 1 to
/// [`MAX_THREADS`], one bot per seat.
///
/// # Errors
/// The flag and the allowed range.
pub fn validate(sim: &Simulation) -> Result<(), String> {
    if !(1..=MAX_MATCHES).contains(&sim.matches) {
        return Err(format!(
            "--matches {}: must be from 1 to {MAX_MATCHES}",
            sim.matches
        ));
    }
    if !(1..=MAX_THREADS).contains(&sim.threads) {
        return Err(format!(
            "--threads {}: must be from 1 to {MAX_THREADS}",
            sim.threads
        ));
    }
    if sim.bots.len() != sim.game.num_players() {
        return Err(format!(
            "{} bots for {} seats",
            sim.bots.len(),
            sim.game.num_players()
        ));
    }
    Ok(())
}

/// Runs `sim`; `progress` gets (done, total) now and then, counted in matches played (a
/// duplicate set counts each of its matches), the unit of the report's matches per second.
///
/// # Errors
/// Sizes out of range (see [`validate`]), a thread the system cannot create, or a bot or
/// engine failure (the first, in match order); each as a message for the user.
pub fn run(sim: &Simulation, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Report, String> {
    validate(sim)?;
    let start = Instant::now();
    let n = sim.game.num_players();
    let sides = num_sides(n);
    let per_unit_matches = if sim.duplicate { sides } else { 1 };
    let threads = sim.threads.min(sim.matches);
    let done = AtomicUsize::new(0);
    // Each unit's return per side, in unit order: the figures below are computed from them
    // exactly as `cardhouse.ray` computes them (two passes, sums in unit order).
    let mut values: Vec<f64> = Vec::new();
    let mut first = 0;
    while first < sim.matches {
        let len = ROUND.min(sim.matches - first);
        let round = play_round(sim, first, len, threads, &|| {
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress(d * per_unit_matches, sim.matches * per_unit_matches);
        })?;
        values.try_reserve_exact(len * sides).map_err(|_| {
            format!(
                "not enough memory for the results of {} matches",
                first + len
            )
        })?;
        for result in round {
            let v = result.map_err(|e| e.to_string())?;
            values.extend_from_slice(&v[..sides]);
        }
        first += len;
    }
    let per_unit: Vec<&[f64]> = values.chunks(sides).collect();
    let units = per_unit.len().max(1) as f64;
    let mut out = Vec::new();
    for side in 0..sides {
        let wins: f64 = per_unit
            .iter()
            .map(|v| {
                let best_other = (0..sides)
                    .filter(|&o| o != side)
                    .map(|o| v[o])
                    .fold(f64::NEG_INFINITY, f64::max);
                if v[side] > best_other {
                    1.0
                } else if v[side] == best_other {
                    0.5
                } else {
                    0.0
                }
            })
            .sum();
        let mean = per_unit.iter().map(|v| v[side]).sum::<f64>() / units;
        let var = per_unit
            .iter()
            .map(|v| (v[side] - mean).powi(2))
            .sum::<f64>()
            / (units - 1.0).max(1.0);
        let seats: Vec<usize> = (0..n).filter(|&s| side_of(s, n) == side).collect();
        out.push(SideResult {
            side,
            bots: seats.iter().map(|&s| sim.bots[s].to_string()).collect(),
            seats,
            win_rate: wins / units,
            win_rate_ci: wilson(wins, units),
            mean_return: mean,
            mean_return_ci: 1.96 * (var / units).sqrt(),
        });
    }
    Ok(Report {
        sides: out,
        matches_played: sim.matches * per_unit_matches,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Plays units `first .. first + len` on `threads` threads; their results in unit order.
fn play_round(
    sim: &Simulation,
    first: usize,
    len: usize,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<UnitResult>, String> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The threads start playing only once all of them exist: a thread at work takes memory
    // of its own (its allocator arena, tens of MiB of address space), so under a memory
    // limit the threads started first could take what a later one needs to start, and it
    // would fail inside the runtime instead of at its creation, where it is reported.
    let gate = (Mutex::new(false), Condvar::new());
    let worker = || {
        if let Ok(mut open) = gate.0.lock() {
            while !*open {
                match gate.1.wait(open) {
                    Ok(o) => open = o,
                    Err(_) => break,
                }
            }
        }
        let mut mine = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= len {
                break;
            }
            let seed = mix(sim.seed, (first + i) as u64);
            let per_side =
                arena::play_unit(&sim.game, &sim.bots, seed, sim.duplicate, &mut || false);
            mine.push((i, per_side));
            tick();
        }
        mine
    };
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for t in 0..threads.min(len) {
            match std::thread::Builder::new()
                .name(format!("simulate-{t}"))
                .spawn_scoped(scope, worker)
            {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // The threads already started end without playing.
                    stop.store(true, Ordering::Relaxed);
                    open_gate(&gate);
                    return Err(format!(
                        "cannot create thread {} of {threads} ({e}); try fewer --threads",
                        t + 1
                    ));
                }
            }
        }
        open_gate(&gate);
        let mut out: Vec<Option<UnitResult>> = (0..len).map(|_| None).collect();
        for h in handles {
            let mine = h
                .join()
                .map_err(|_| "a simulation thread failed".to_owned())?;
            for (i, r) in mine {
                out[i] = Some(r);
            }
        }
        out.into_iter()
            .map(|r| r.ok_or_else(|| "a match was not played".to_owned()))
            .collect()
    })
}

/// Lets the threads waiting at `gate` go.
fn open_gate(gate: &(Mutex<bool>, Condvar)) {
    if let Ok(mut open) = gate.0.lock() {
        *open = true;
    }
    gate.1.notify_all();
}

/// A progress line on stderr when it is a terminal: matches done, matches per second, time
/// left.
pub fn progress_printer() -> impl Fn(usize, usize) + Sync {
    let tty = std::io::stderr().is_terminal();
    let start = Instant::now();
    let last = Mutex::new(Instant::now());
    move |done, total| {
        if !tty {
            return;
        }
        let Ok(mut last) = last.lock() else { return };
        if done < total && last.elapsed().as_millis() < 100 {
            return;
        }
        *last = Instant::now();
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        let rate = done as f64 / secs;
        let left = (total - done) as f64 / rate.max(1e-9);
        let width = 30;
        let filled = width * done / total.max(1);
        let mut err = std::io::stderr();
        let _ = write!(
            err,
            "\r[{}{}] {done}/{total} matches  {rate:.0} matches/s  {left:.0}s left ",
            "#".repeat(filled),
            "-".repeat(width - filled)
        );
        if done == total {
            let _ = writeln!(err);
        }
        let _ = err.flush();
    }
}

/// The report as text.
#[must_use]
pub fn text(sim: &Simulation, r: &Report) -> String {
    let unit = if sim.duplicate {
        "duplicate sets"
    } else {
        "matches"
    };
    let mut out = format!(
        "cardhouse simulate {} ({}): {} {unit}, {} matches in {:.2} s ({:.0} matches/s), seed {}, {} threads\n",
        sim.game.name(),
        options_text(&sim.game),
        sim.matches,
        r.matches_played,
        r.seconds,
        r.matches_played as f64 / r.seconds.max(1e-9),
        sim.seed,
        sim.threads
    );
    out.push_str(&format!(
        "{:<6}{:<40}{:>24}{:>26}\n",
        "side", "bots (seats)", "win rate (95% CI)", "mean return (95% CI)"
    ));
    for s in &r.sides {
        out.push_str(&format!(
            "{:<6}{:<40}{:>24}{:>26}\n",
            s.side,
            bots_text(s),
            format!(
                "{:.3} ({:.3}-{:.3})",
                s.win_rate, s.win_rate_ci.0, s.win_rate_ci.1
            ),
            format!("{:+.2} (±{:.2})", s.mean_return, s.mean_return_ci)
        ));
    }
    if sim.duplicate {
        out.push_str(
            "seats: those of each set's first match; its other matches move every bot round \
             the table\n",
        );
    }
    out
}

/// A side's bots with their seats: `heuristic (seats 0, 2)`, or `0 heuristic, 2 random`
/// when they differ.
fn bots_text(s: &SideResult) -> String {
    let seats = |list: &[usize]| {
        list.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match s.bots.first() {
        Some(first) if s.bots.iter().all(|b| b == first) => {
            let word = if s.seats.len() == 1 { "seat" } else { "seats" };
            format!("{first} ({word} {})", seats(&s.seats))
        }
        _ => s
            .seats
            .iter()
            .zip(&s.bots)
            .map(|(seat, bot)| format!("{seat} {bot}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The options that differ from the game's defaults.
fn options_text(game: &AnyGame) -> String {
    let defaults = cardhouse::new_game(game.name(), &cardhouse::Options::new())
        .map(|g| g.options())
        .unwrap_or_default();
    let changed: Vec<String> = game
        .options()
        .iter()
        .filter(|(k, v)| defaults.get(*k).map(ToString::to_string) != Some(v.to_string()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if changed.is_empty() {
        "default options".into()
    } else {
        changed.join(" ")
    }
}

/// The report as one JSON object.
#[must_use]
pub fn json(sim: &Simulation, r: &Report) -> serde_json::Value {
    json!({
        "game": sim.game.name(),
        "options": sim.game.options().iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<std::collections::BTreeMap<_, _>>(),
        "bots": sim.bots.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "matches": sim.matches,
        "duplicate": sim.duplicate,
        "matches_played": r.matches_played,
        "seed": sim.seed,
        "threads": sim.threads,
        "seconds": r.seconds,
        "matches_per_second": r.matches_played as f64 / r.seconds.max(1e-9),
        "sides": r.sides.iter().map(|s| json!({
            "side": s.side,
            "seats": s.seats,
            "bots": s.bots,
            "win_rate": s.win_rate,
            "win_rate_ci95": [s.win_rate_ci.0, s.win_rate_ci.1],
            "mean_return": s.mean_return,
            "mean_return_ci95": [s.mean_return - s.mean_return_ci, s.mean_return + s.mean_return_ci],
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(duplicate: bool) -> Simulation {
        let options = cardhouse::options([("scope", cardhouse::OptionValue::from("deal"))]);
        let game = cardhouse::new_game("klaberjass", &options).expect("game");
        Simulation {
            game,
            bots: vec![BotKind::Heuristic, BotKind::Random],
            matches: 3,
            seed: 1,
            duplicate,
            threads: 1,
        }
    }

    #[test]
    fn progress_counts_matches_as_the_summary_does() {
        for duplicate in [false, true] {
            let s = sim(duplicate);
            let calls = Mutex::new(Vec::new());
            let report = run(&s, &|d, t| calls.lock().expect("lock").push((d, t))).expect("run");
            let calls = calls.into_inner().expect("lock");
            let played = report.matches_played;
            assert_eq!(played, if duplicate { 6 } else { 3 });
            assert_eq!(calls.last(), Some(&(played, played)), "{calls:?}");
            assert!(calls.iter().all(|&(_, t)| t == played));
        }
    }

    #[test]
    fn the_bots_column_names_the_seats() {
        let s = sim(true);
        let report = run(&s, &|_, _| {}).expect("run");
        assert_eq!(report.sides[0].seats, vec![0]);
        let text = text(&s, &report);
        assert!(text.contains("heuristic (seat 0)"), "{text}");
        assert!(text.contains("random (seat 1)"), "{text}");
        let mixed = SideResult {
            side: 0,
            seats: vec![0, 2],
            bots: vec!["heuristic".into(), "random".into()],
            win_rate: 0.5,
            win_rate_ci: (0.0, 1.0),
            mean_return: 0.0,
            mean_return_ci: 0.0,
        };
        assert_eq!(bots_text(&mixed), "0 heuristic, 2 random");
        assert_eq!(json(&s, &report)["sides"][1]["seats"], json!([1]));
    }
}
