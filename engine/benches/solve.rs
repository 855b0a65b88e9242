//! Exact solver benchmarks ([`cardhouse::solve`]): one `Solver::solve` (every legal action
//! valued exactly) of a state from a fixed sample of random deals, cycling through the
//! sample, with one reused solver emptied before each solve (a cold table: the states are
//! unrelated deals). Each bench checks its result: one value per legal action, the best
//! equal to the position's, every value within the game's returns.
//!
//! `cargo bench -p cardhouse --bench solve`. Medians and 99th percentiles over 200 deals
//! (also from the first lead of a Jass deal, too slow for criterion's repetitions) come from
//! `cargo run --release -p cardhouse --example solve_times`.

use std::hint::black_box;

use cardhouse::games::avinas::AvinasGame;
use cardhouse::games::jass::JassGame;
use cardhouse::games::klaberjass::KlaberjassGame;
use cardhouse::solve::{Solvable, Solver};
use cardhouse::{Game, Player, SeededRng, State, options};
use criterion::{Criterion, criterion_group, criterion_main};

/// `n` states of trick play at a trick start after `tricks` tricks (`cards` gives the cards
/// left in the hands and whether a trick start is to be solved there).
fn sample<G: Game>(
    game: &G,
    n: usize,
    seed: u64,
    cards_left: usize,
    at: impl Fn(&G::State) -> Option<usize>,
) -> Vec<G::State> {
    let mut rng = SeededRng::new(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut s = game.new_initial_state();
        loop {
            match s.current_player() {
                Player::Terminal => break,
                Player::Chance => s.resolve_chance(&mut rng),
                Player::Seat(_) => {
                    if at(&s) == Some(cards_left) {
                        out.push(s);
                        break;
                    }
                    let a = s.legal_actions().choose(&mut rng).expect("legal");
                    s.apply(a).expect("legal");
                }
            }
        }
    }
    out
}

/// Benchmarks solving the states of `states` in turn, checking each result.
fn bench_solves<S: State + Solvable>(c: &mut Criterion, name: &str, states: &[S]) {
    let mut solver = Solver::new();
    let bound = states[0].game().max_return() as i32;
    let mut k = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            let s = &states[k % states.len()];
            k += 1;
            solver.clear();
            let solution = solver.solve(black_box(s)).expect("solvable");
            assert_eq!(solution.actions.len(), s.legal_actions().len());
            assert_eq!(
                solution.value,
                solution
                    .actions
                    .iter()
                    .map(|&(_, v)| v)
                    .max()
                    .expect("an action")
            );
            assert!(solution.actions.iter().all(|&(_, v)| v.abs() <= bound));
            solution.value
        });
    });
}

fn jass(c: &mut Criterion) {
    use cardhouse::games::jass::Phase;
    let game = JassGame::from_options(&options([("scope", "deal".into())])).expect("options");
    let at = |s: &cardhouse::games::jass::JassState| {
        let left: usize = (0..4).map(|p| s.hand(p).len()).sum();
        (s.phase() == Phase::Play && left % 4 == 0).then_some(left)
    };
    bench_solves(c, "solve/jass_4th_trick", &sample(&game, 20, 1, 24, at));
    bench_solves(c, "solve/jass_6th_trick", &sample(&game, 20, 2, 16, at));
}

fn klaberjass(c: &mut Criterion) {
    use cardhouse::games::klaberjass::Phase;
    let game = KlaberjassGame::from_options(&options([("scope", "deal".into())])).expect("options");
    let at = |s: &cardhouse::games::klaberjass::KlaberjassState| {
        let left = s.hand(0).len() + s.hand(1).len();
        (s.phase() == Phase::Play && left % 2 == 0).then_some(left)
    };
    bench_solves(
        c,
        "solve/klaberjass_first_lead",
        &sample(&game, 20, 3, 18, at),
    );
    bench_solves(
        c,
        "solve/klaberjass_4th_trick",
        &sample(&game, 20, 4, 12, at),
    );
}

fn avinas(c: &mut Criterion) {
    use cardhouse::games::avinas::Phase;
    let game = AvinasGame::from_options(&options([("scope", "deal".into())])).expect("options");
    let at = |s: &cardhouse::games::avinas::AvinasState| {
        let left: usize = (0..4).map(|p| s.hand(p).len()).sum();
        let play = matches!(s.phase(), Phase::Play | Phase::StopChoice);
        (play && left % 4 == 0).then_some(left)
    };
    bench_solves(c, "solve/avinas_first_lead", &sample(&game, 20, 5, 32, at));
    bench_solves(c, "solve/avinas_4th_trick", &sample(&game, 20, 6, 20, at));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = klaberjass, avinas, jass
}
criterion_main!(benches);
