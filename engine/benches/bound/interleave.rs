//! The engine against its bound, measured in the same process and run: batches of random
//! deals alternate between the two (the order flips every round, so neither always runs on a
//! warmer or quieter core), each batch timed on its own; the reported figures are the medians
//! over the rounds, and the ratio is the median of the per-round ratios (engine / bound).
//!
//! Run by `cargo bench -p cardhouse --bench <game>` before the criterion benchmarks, or alone
//! with `cargo bench -p cardhouse --bench <game> -- ratio`. Under `cargo test --benches` it runs
//! a few small rounds as a smoke test.

use std::hint::black_box;
use std::time::Instant;

use cardhouse::SeededRng;
use criterion::{Criterion, Throughput};

/// A bench's `main`: the ratio first (when [`wanted`]), then the criterion `benches`.
pub fn main(ratio: impl FnOnce(), benches: impl FnOnce()) {
    if wanted() {
        ratio();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

/// Criterion's `<game>/<name>`: one deal of a bound per iteration (`bound_random_deal` for the
/// play-phase bound, `same_work_bound_random_deal` for the same-work one).
pub fn bench_bound<T>(
    c: &mut Criterion,
    game: &str,
    name: &str,
    mut deal: impl FnMut(&mut SeededRng) -> T,
) {
    let mut group = c.benchmark_group(game);
    group.throughput(Throughput::Elements(1));
    let mut rng = SeededRng::new(7);
    group.bench_function(name, |b| b.iter(|| black_box(deal(&mut rng))));
    group.finish();
}

/// Whether this run should measure the ratio: a bench run with no filter, or a filter that
/// names `ratio`; a test run (no `--bench` flag) measures it briefly.
pub fn wanted() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    filters.is_empty() || filters.iter().any(|f| "ratio".contains(f.as_str()))
}

/// Rounds and deals per batch: full size under `cargo bench`, tiny under `cargo test`.
fn sizes(batch: usize) -> (usize, usize) {
    if std::env::args().any(|a| a == "--bench") {
        (101, batch)
    } else {
        (3, 200)
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `n` calls of `f` and returns calls per second. (A bench measures time; the engine's
/// clock ban is for the library, as criterion's own clock shows.)
#[allow(clippy::disallowed_methods)]
fn rate(n: usize, f: &mut impl FnMut() -> u32) -> f64 {
    let start = Instant::now();
    let mut sum = 0u32;
    for _ in 0..n {
        sum = sum.wrapping_add(f());
    }
    black_box(sum);
    n as f64 / start.elapsed().as_secs_f64()
}

/// Measures `engine` and `bound` (each plays one random deal and returns a checksum) in
/// alternating batches of `batch` deals and prints the medians and the ratio. Returns the
/// median ratio.
pub fn compare(
    name: &str,
    batch: usize,
    mut engine: impl FnMut() -> u32,
    mut bound: impl FnMut() -> u32,
) -> f64 {
    let (rounds, batch) = sizes(batch);
    // Warm-up: caches, branch predictors and the CPU's clock.
    rate(batch, &mut engine);
    rate(batch, &mut bound);
    let (mut e, mut b, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (x, y) = if round % 2 == 0 {
            let x = rate(batch, &mut engine);
            (x, rate(batch, &mut bound))
        } else {
            let y = rate(batch, &mut bound);
            (rate(batch, &mut engine), y)
        };
        e.push(x);
        b.push(y);
        r.push(x / y);
    }
    let ratio = median(&mut r);
    let (lo, hi) = (r[0], r[r.len() - 1]);
    println!(
        "{name}: engine {:.3} M deals/s, bound {:.3} M deals/s, ratio {ratio:.3} \
         (median of {rounds} alternating rounds of {batch} deals; per-round ratios {lo:.3}-{hi:.3})",
        median(&mut e) / 1e6,
        median(&mut b) / 1e6,
    );
    ratio
}
