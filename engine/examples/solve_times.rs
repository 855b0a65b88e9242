//! Times of the exact solver ([`cardhouse::solve`]) on random deals (`scope = deal`, default
//! options): for each game, the median, 99th percentile and maximum of one `Solver::solve`
//! (every legal action valued exactly) from the first lead and from the lead to the fourth
//! trick, on one core, with one reused solver emptied before each solve (the deals are
//! unrelated), and the nodes searched per solve.
//!
//! ```text
//! cargo run --release -p cardhouse --example solve_times -- [DEALS] [GAME] [JASS_FIRST_LEAD_DEALS] [TABLE_ENTRIES]
//! ```
//!
//! `DEALS` defaults to 200. A Jass deal from the first lead takes seconds, so that row uses
//! `JASS_FIRST_LEAD_DEALS` deals (default 20). `GAME` is `jass`, `klaberjass` or `avinas`
//! (default: all three). `TABLE_ENTRIES` is the solver's table size (default
//! `cardhouse::solve::DEFAULT_TABLE_ENTRIES`; larger tables help the long Jass solves). The first lead of Avinas is the declarer's (after the knock and the
//! double, or the bidding game's opening lead, which fixes trump).

use std::time::{Duration, Instant};

use cardhouse::games::avinas::{AvinasGame, Phase as AvinasPhase};
use cardhouse::games::jass::{JassGame, Phase as JassPhase};
use cardhouse::games::klaberjass::{KlaberjassGame, Phase as KlaberjassPhase};
use cardhouse::solve::{Solvable, Solver};
use cardhouse::{Game, Player, SeededRng, State, options};

/// A random state of trick play at a trick start with `played` cards played, or `None` if
/// the deal never gets there (an annulled or stopped deal). `at` gives the cards played and
/// whether the state is a trick start to solve.
fn sample<G: Game>(
    game: &G,
    rng: &mut SeededRng,
    played: usize,
    at: impl Fn(&G::State) -> (usize, bool),
) -> Option<G::State> {
    let mut s = game.new_initial_state();
    loop {
        match s.current_player() {
            Player::Terminal => return None,
            Player::Chance => s.resolve_chance(rng),
            Player::Seat(_) => {
                let (done, start) = at(&s);
                if start && done == played {
                    return Some(s);
                }
                let a = s.legal_actions().choose(rng).expect("legal");
                s.apply(a).expect("legal");
            }
        }
    }
}

/// Solve times (sorted) and the nodes searched in all.
#[allow(clippy::disallowed_methods)] // an example may read the clock
fn time<S: State + Solvable>(solver: &mut Solver, states: &[S]) -> (Vec<Duration>, u64) {
    let nodes = solver.nodes();
    let mut out = Vec::with_capacity(states.len());
    for s in states {
        solver.clear();
        let t = Instant::now();
        let solution = solver.solve(s).expect("solvable");
        out.push(t.elapsed());
        assert_eq!(solution.actions.len(), s.legal_actions().len());
    }
    out.sort();
    (out, solver.nodes() - nodes)
}

fn report(name: &str, times: &[Duration], nodes: u64) {
    let q = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3;
    println!(
        "{name:<24} deals {:>4}  median {:>9.3} ms  p99 {:>9.3} ms  max {:>9.3} ms  nodes/solve {:>9}",
        times.len(),
        q(0.5),
        q(0.99),
        q(1.0),
        nodes / times.len() as u64
    );
}

/// Solves `deals` deals of `game` from the first lead and from the fourth trick.
fn run<G: Game>(
    label: &str,
    game: &G,
    deals: [usize; 2],
    table: usize,
    per_trick: usize,
    at: impl Fn(&G::State) -> (usize, bool) + Copy,
) where
    G::State: Solvable,
{
    for (k, tricks_done) in [0, 3].into_iter().enumerate() {
        let mut rng = SeededRng::new(42 + tricks_done as u64);
        let mut states = Vec::new();
        while states.len() < deals[k] {
            if let Some(s) = sample(game, &mut rng, tricks_done * per_trick, at) {
                states.push(s);
            }
        }
        let mut solver = Solver::with_table_entries(table);
        let (times, nodes) = time(&mut solver, &states);
        let from = if tricks_done == 0 {
            "first lead"
        } else {
            "4th trick"
        };
        report(&format!("{label}, {from}"), &times, nodes);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let deals: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let only = args.get(2).filter(|g| g.as_str() != "all").cloned();
    let jass_first: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(20);
    let table: usize = args
        .get(4)
        .and_then(|a| a.parse().ok())
        .unwrap_or(cardhouse::solve::DEFAULT_TABLE_ENTRIES);
    let want = |g: &str| only.as_deref().is_none_or(|o| o == g);
    let deal = options([("scope", "deal".into())]);
    if want("jass") {
        let game = JassGame::from_options(&deal).expect("options");
        run("jass", &game, [jass_first, deals], table, 4, |s| {
            let left: usize = (0..4).map(|p| s.hand(p).len()).sum();
            (36 - left, s.phase() == JassPhase::Play && left % 4 == 0)
        });
    }
    if want("klaberjass") {
        let game = KlaberjassGame::from_options(&deal).expect("options");
        run("klaberjass", &game, [deals, deals], table, 2, |s| {
            let left = s.hand(0).len() + s.hand(1).len();
            (
                18 - left,
                s.phase() == KlaberjassPhase::Play && left % 2 == 0,
            )
        });
    }
    if want("avinas") {
        let game = AvinasGame::from_options(&deal).expect("options");
        run("avinas", &game, [deals, deals], table, 4, |s| {
            let left: usize = (0..4).map(|p| s.hand(p).len()).sum();
            let play = matches!(s.phase(), AvinasPhase::Play | AvinasPhase::StopChoice);
            (32 - left, play && left % 4 == 0)
        });
    }
}
