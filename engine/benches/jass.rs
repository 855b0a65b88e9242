//! Jass benchmarks: random full deals (including the deal), full matches, and the hot-path
//! calls on their own; first, the engine's random deals against two bounds measured
//! interleaved, with both ratios printed: the play-phase bound ([`play_phase`], a minimal bitmask
//! deal loop that draws the mode and plays the cards, without schieben or Wys) and the
//! same-work bound ([`same_work`], a minimal bitmask loop of the whole deal making the
//! engine's random player's decisions: schieben, the Wys offers of trick 1, the cards), then
//! the check that the same-work bound plays the engine's distribution of deals ([`check`](check::check)).
//! Figures go into the README's benchmark table.
//!
//! `cargo bench -p cardhouse --bench jass` (the ratios and the check alone: `-- ratio`)
//! The bounds alone under criterion: `jass/bound_random_deal` (play-phase) and
//! `jass/same_work_bound_random_deal`.

use std::hint::black_box;

use cardhouse::games::jass::{JassGame, JassState, layout};
use cardhouse::{Game, Options, Rng, SeededRng, State};
use criterion::{Criterion, Throughput, criterion_group};

#[allow(dead_code)]
#[path = "bound/bitmask.rs"]
mod bitmask;
#[path = "bound/jass_check.rs"]
mod check;
#[path = "bound/interleave.rs"]
mod interleave;
#[path = "bound/jass_play_phase.rs"]
mod play_phase;
#[path = "bound/jass_same_work.rs"]
mod same_work;
#[path = "bound/stats.rs"]
mod stats;

fn game(pairs: &[(&str, &str)]) -> JassGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    JassGame::from_options(&opts).expect("valid options")
}

/// One random deal (or match) from the shuffle to the score, uniform among legal actions.
/// Always inlined: the callers that keep one figure keep the state in their frame, not copied
/// out to a return slot (a `memcpy` of the whole state a deal, which a user's loop does not pay).
#[inline(always)]
fn random_deal(g: &JassGame, rng: &mut SeededRng) -> JassState {
    let mut s = g.new_initial_state();
    s.resolve_chance(rng);
    while !s.is_terminal() {
        let legal = s.legal_actions();
        let a = legal.choose(rng).expect("legal action");
        s.apply_unchecked(a);
    }
    s
}

/// The same, returning only the card points (the state stays local to the loop).
#[inline(never)]
fn random_deal_points(g: &JassGame, rng: &mut SeededRng) -> [u32; 2] {
    random_deal(g, rng).card_points()
}

/// States sampled along random deals, for the per-call benchmarks.
fn sample_states(g: &JassGame, n: usize) -> Vec<JassState> {
    let mut rng = SeededRng::new(1);
    let mut out = Vec::new();
    while out.len() < n {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        while !s.is_terminal() {
            out.push(s.clone());
            let a = s.legal_actions().choose(&mut rng).expect("legal");
            s.apply_unchecked(a);
        }
    }
    out.truncate(n);
    out
}

fn deals(c: &mut Criterion) {
    let mut group = c.benchmark_group("jass");
    group.throughput(Throughput::Elements(1));
    for (name, opts) in [
        ("random_deal_manual_wys", &[("scope", "deal")][..]),
        (
            "random_deal_auto_wys",
            &[("scope", "deal"), ("wys", "auto")][..],
        ),
    ] {
        let g = game(opts);
        let mut rng = SeededRng::new(7);
        // The result is checked, so the benchmark measures real, complete deals.
        let end = random_deal(&g, &mut rng);
        assert_eq!(end.card_points()[0] + end.card_points()[1], 152);
        group.bench_function(name, |b| {
            b.iter(|| black_box(random_deal_points(&g, &mut rng)))
        });
    }
    let g = game(&[("wys", "auto")]);
    let mut rng = SeededRng::new(9);
    let m = random_deal(&g, &mut rng);
    assert!(m.winner().is_some() && m.scores().iter().any(|&s| s >= 2500));
    group.sample_size(20);
    group.bench_function("random_match_to_2500", |b| {
        b.iter(|| black_box(random_deal(&g, &mut rng).scores()))
    });
    group.finish();
}

fn calls(c: &mut Criterion) {
    let g = game(&[("scope", "deal")]);
    let states = sample_states(&g, 4096);
    let mut group = c.benchmark_group("jass_calls");
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
                s.write_observation(i & 3, &mut buf)
                    .expect("valid seat and buffer");
            }
            buf[0]
        })
    });
    group.finish();
    let _ = rng.next_u64();
}

/// The engine's random deals (`wys = manual`, `scope = deal`) against both bounds,
/// interleaved, then the equivalence check.
fn ratio() {
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(11);
    let mut brng = SeededRng::new(12);
    let first = play_phase::random_deal(&mut brng);
    assert!(first[0] + first[1] >= 157);
    interleave::compare(
        "jass random deal (wys = manual) against the play-phase bound",
        5_000,
        || {
            let p = random_deal_points(&g, &mut rng);
            p[0] + p[1]
        },
        || {
            let p = play_phase::random_deal(&mut brng);
            p[0] + p[1]
        },
    );
    interleave::compare(
        "jass random deal (wys = manual) against the same-work bound",
        5_000,
        || {
            let p = random_deal_points(&g, &mut rng);
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
    interleave::bench_bound(c, "jass", "bound_random_deal", play_phase::random_deal);
    interleave::bench_bound(
        c,
        "jass",
        "same_work_bound_random_deal",
        same_work::random_deal,
    );
}

criterion_group!(benches, deals, bound_deals, calls);

fn main() {
    interleave::main(ratio, benches);
}
