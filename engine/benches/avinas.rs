//! Avinas benchmarks: random full deals (including the deal), full matches, and the hot-path
//! calls on their own; first, the engine's random deals against their bound (a minimal bitmask
//! deal loop making the engine's random player's decisions and scoring the deal, [`bound`])
//! measured interleaved, with the ratio printed, then the check that the bound plays the
//! engine's distribution of deals ([`check`](check::check)). Figures go into the README's
//! benchmark table.
//!
//! `cargo bench -p cardhouse --bench avinas` (the ratio alone: `-- ratio`)

use std::hint::black_box;

use cardhouse::games::avinas::{AvinasGame, AvinasState, layout};
use cardhouse::{Game, Options, Rng, SeededRng, State};
use criterion::{Criterion, Throughput, criterion_group};

#[allow(dead_code)]
#[path = "bound/bitmask.rs"]
mod bitmask;
#[path = "bound/avinas.rs"]
mod bound;
#[path = "bound/avinas_check.rs"]
mod check;
#[path = "bound/interleave.rs"]
mod interleave;
#[path = "bound/stats.rs"]
mod stats;

fn game(pairs: &[(&str, &str)]) -> AvinasGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    AvinasGame::from_options(&opts).expect("valid options")
}

/// One random deal (or match) from the shuffle to the score, uniform among legal actions.
/// Always inlined: the callers that keep one figure keep the state in their frame, not copied
/// out to a return slot (a `memcpy` of the whole state a deal, which a user's loop does not pay).
#[inline(always)]
fn random_deal(g: &AvinasGame, rng: &mut SeededRng) -> AvinasState {
    let mut s = g.new_initial_state();
    s.resolve_chance(rng);
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

/// The same, returning only the card points (the state stays local to the loop).
#[inline(never)]
fn random_deal_points(g: &AvinasGame, rng: &mut SeededRng) -> [u32; 2] {
    random_deal(g, rng).card_points()
}

/// The same, returning the deal's value for seat 0 (its `scope = deal` return, the rams or pips
/// given against the other team less those given against its own), as a user reads a deal.
#[inline(never)]
fn random_deal_value(g: &AvinasGame, rng: &mut SeededRng) -> i32 {
    random_deal(g, rng).returns()[0] as i32
}

/// States sampled along random deals, for the per-call benchmarks.
fn sample_states(g: &AvinasGame, n: usize) -> Vec<AvinasState> {
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
    let mut group = c.benchmark_group("avinas");
    group.throughput(Throughput::Elements(1));
    for (name, opts) in [
        (
            "random_deal",
            &[("scope", "deal"), ("first_dealer", "0")][..],
        ),
        (
            "random_deal_no_early_stop",
            &[
                ("scope", "deal"),
                ("first_dealer", "0"),
                ("early_stop_allowed", "false"),
            ][..],
        ),
    ] {
        let g = game(opts);
        let mut rng = SeededRng::new(7);
        // The result is checked, so the benchmark measures real, complete deals.
        let end = random_deal(&g, &mut rng);
        assert!(end.is_terminal() && end.card_points().iter().sum::<u32>() <= 120);
        group.bench_function(name, |b| {
            b.iter(|| black_box(random_deal_points(&g, &mut rng)))
        });
    }
    let g = game(&[]);
    let mut rng = SeededRng::new(9);
    let m = random_deal(&g, &mut rng);
    assert!(m.loser().is_some() && m.pips().iter().any(|&p| p >= 12));
    group.sample_size(20);
    group.bench_function("random_match_to_12_pips", |b| {
        b.iter(|| black_box(random_deal(&g, &mut rng).pips()))
    });
    group.finish();
}

fn calls(c: &mut Criterion) {
    let g = game(&[("scope", "deal")]);
    let states = sample_states(&g, 4096);
    let mut group = c.benchmark_group("avinas_calls");
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

/// The engine's random deals (`scope = deal`) against the bound, interleaved, each read as the
/// deal's value for seat 0; then the equivalence check.
fn ratio() {
    let g = game(&[("scope", "deal"), ("first_dealer", "0")]);
    let mut rng = SeededRng::new(11);
    let mut brng = SeededRng::new(12);
    interleave::compare(
        "avinas random deal (early stop allowed)",
        10_000,
        || random_deal_value(&g, &mut rng) as u32,
        || bound::random_deal(&mut brng) as u32,
    );
    // 50,000 deals each take about a second in a debug build (the smoke run) too.
    assert!(
        check::check(&g, 50_000),
        "the bound plays another distribution of deals than the engine"
    );
}

fn bound_deals(c: &mut Criterion) {
    interleave::bench_bound(c, "avinas", "bound_random_deal", bound::random_deal);
}

criterion_group!(benches, deals, bound_deals, calls);

fn main() {
    interleave::main(ratio, benches);
}
