//! Klaberjass benchmarks: random full deals (from the shuffle to the score), full matches,
//! and the hot-path calls on their own; first, the engine's random deals against two bounds
//! measured interleaved, with both ratios printed: the play-phase bound ([`play_phase`], a minimal
//! bitmask deal loop that draws trump and maker and plays the cards, without the turn-up,
//! bidding, exchange windows or announcements) and the same-work bound ([`same_work`], a
//! minimal bitmask loop of the whole deal making the engine's random player's decisions in
//! every phase), then the check that the same-work bound plays the engine's distribution of
//! deals ([`check`](check::check)). Figures go into the README's benchmark table.
//!
//! `cargo bench -p cardhouse --bench klaberjass` (the ratios and the check alone: `-- ratio`)
//! The bounds alone under criterion: `klaberjass/bound_random_deal` (play-phase) and
//! `klaberjass/same_work_bound_random_deal`.

use std::hint::black_box;

use cardhouse::games::klaberjass::{KlaberjassGame, KlaberjassState, layout};
use cardhouse::{Game, Options, Rng, SeededRng, State};
use criterion::{Criterion, Throughput, criterion_group};

#[allow(dead_code)]
#[path = "bound/bitmask.rs"]
mod bitmask;
#[path = "bound/klaberjass_check.rs"]
mod check;
#[path = "bound/interleave.rs"]
mod interleave;
#[path = "bound/klaberjass_play_phase.rs"]
mod play_phase;
#[path = "bound/klaberjass_same_work.rs"]
mod same_work;
#[path = "bound/stats.rs"]
mod stats;

fn game(pairs: &[(&str, &str)]) -> KlaberjassGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    KlaberjassGame::from_options(&opts).expect("valid options")
}

/// One random deal (or match) from the cut and shuffle to the score, uniform among legal
/// actions.
/// Always inlined: the callers that keep one figure keep the state in their frame, not copied
/// out to a return slot (a `memcpy` of the whole state a deal, which a user's loop does not pay).
#[inline(always)]
fn random_game(g: &KlaberjassGame, rng: &mut SeededRng) -> KlaberjassState {
    let mut s = g.new_initial_state();
    while !s.is_terminal() {
        if s.is_chance_node() {
            s.resolve_chance(rng);
            continue;
        }
        let legal = s.legal_actions();
        let a = legal.choose(rng).expect("legal action");
        s.apply_unchecked(a);
    }
    s
}

/// The same, returning only the deal totals (the state stays local to the loop).
#[inline(never)]
fn random_deal_totals(g: &KlaberjassGame, rng: &mut SeededRng) -> [u32; 2] {
    random_game(g, rng).deal_totals()
}

/// States sampled along random deals, for the per-call benchmarks.
fn sample_states(g: &KlaberjassGame, n: usize) -> Vec<KlaberjassState> {
    let mut rng = SeededRng::new(1);
    let mut out = Vec::new();
    while out.len() < n {
        let mut s = g.new_initial_state();
        while !s.is_terminal() {
            if s.is_chance_node() {
                s.resolve_chance(&mut rng);
                continue;
            }
            out.push(s.clone());
            let a = s.legal_actions().choose(&mut rng).expect("legal");
            s.apply_unchecked(a);
        }
    }
    out.truncate(n);
    out
}

fn deals(c: &mut Criterion) {
    let mut group = c.benchmark_group("klaberjass");
    group.throughput(Throughput::Elements(1));
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(7);
    // The result is checked, so the benchmark measures real, complete deals.
    let end = random_game(&g, &mut rng);
    assert!(end.is_terminal() && end.last_deal().is_some());
    group.bench_function("random_deal", |b| {
        b.iter(|| black_box(random_deal_totals(&g, &mut rng)))
    });
    let g = game(&[]);
    let mut rng = SeededRng::new(9);
    let m = random_game(&g, &mut rng);
    assert!(m.winner().is_some() && m.scores().iter().any(|&s| s >= 500));
    group.sample_size(30);
    group.bench_function("random_match_to_500", |b| {
        b.iter(|| black_box(random_game(&g, &mut rng).scores()))
    });
    group.finish();
}

fn calls(c: &mut Criterion) {
    let g = game(&[("scope", "deal")]);
    let states = sample_states(&g, 4096);
    let mut group = c.benchmark_group("klaberjass_calls");
    group.throughput(Throughput::Elements(states.len() as u64));
    group.bench_function("legal_actions", |b| {
        b.iter(|| {
            states
                .iter()
                .map(|s| s.legal_actions().len())
                .sum::<usize>()
        })
    });
    let mut rng = SeededRng::new(3);
    let moves: Vec<u32> = states
        .iter()
        .map(|s| s.legal_actions().choose(&mut rng).expect("legal"))
        .collect();
    group.bench_function("apply", |b| {
        b.iter(|| {
            let mut n = 0;
            for (s, &a) in states.iter().zip(&moves) {
                let mut t = s.clone();
                t.apply_unchecked(a);
                n += t.move_number();
            }
            n
        })
    });
    group.bench_function("clone", |b| {
        b.iter(|| {
            states
                .iter()
                .map(|s| black_box(s.clone()).move_number())
                .sum::<usize>()
        })
    });
    let mut buf = vec![0.0f32; layout::TOTAL];
    group.bench_function("observation", |b| {
        b.iter(|| {
            for (i, s) in states.iter().enumerate() {
                s.write_observation(i & 1, &mut buf)
                    .expect("valid seat and buffer");
            }
            buf[0]
        })
    });
    group.finish();
    let _ = rng.next_u64();
}

/// The engine's random deals (`scope = deal`) against both bounds, interleaved, then the
/// equivalence check.
fn ratio() {
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(11);
    let mut brng = SeededRng::new(12);
    interleave::compare(
        "klaberjass random deal against the play-phase bound",
        5_000,
        || {
            let p = random_deal_totals(&g, &mut rng);
            p[0] + p[1]
        },
        || {
            let p = play_phase::random_deal(&mut brng);
            p[0] + p[1]
        },
    );
    interleave::compare(
        "klaberjass random deal against the same-work bound",
        5_000,
        || {
            let p = random_deal_totals(&g, &mut rng);
            p[0] + p[1]
        },
        || {
            let p = same_work::random_deal(&mut brng);
            p[0] + p[1]
        },
    );
    // 50,000 deals each take about a second in a debug build (the smoke run) too.
    assert!(
        check::check(&g, 50_000),
        "the same-work bound plays another distribution of deals than the engine"
    );
}

fn bound_deals(c: &mut Criterion) {
    interleave::bench_bound(
        c,
        "klaberjass",
        "bound_random_deal",
        play_phase::random_deal,
    );
    interleave::bench_bound(
        c,
        "klaberjass",
        "same_work_bound_random_deal",
        same_work::random_deal,
    );
}

criterion_group!(benches, deals, bound_deals, calls);

fn main() {
    interleave::main(ratio, benches);
}
