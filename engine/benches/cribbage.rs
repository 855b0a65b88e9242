//! Cribbage benchmarks: random full games to 121 for 2, 3 and 4 players (from the first
//! dealer draw to the winning point), random single deals, the hand scorer (hands per
//! second), and the hot-path calls on their own. Figures go into the README's table.
//!
//! `cargo bench -p cardhouse --bench cribbage`

use std::hint::black_box;

use cardhouse::games::cribbage::{CribbageGame, CribbageState, layout, score_hand};
use cardhouse::{Card, Game, Options, Pack, Rng, SeededRng, State};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn game(pairs: &[(&str, &str)]) -> CribbageGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    CribbageGame::from_options(&opts).expect("valid options")
}

/// One random game (or deal) from the first chance event to the end, uniform among legal
/// actions, chance events resolved by the RNG.
/// Always inlined: the callers that keep one figure keep the state in their frame, not copied
/// out to a return slot (a `memcpy` of the whole state a deal, which a user's loop does not pay).
#[inline(always)]
fn random_game(g: &CribbageGame, rng: &mut SeededRng) -> CribbageState {
    let mut s = g.new_initial_state();
    loop {
        s.resolve_chance(rng);
        if s.is_terminal() {
            return s;
        }
        let a = s.legal_actions().choose(rng).expect("legal action");
        s.apply_unchecked(a);
    }
}

/// The same, returning only the winner's score (the state stays local to the loop).
#[inline(never)]
fn random_game_top(g: &CribbageGame, rng: &mut SeededRng) -> u32 {
    random_game(g, rng)
        .scores()
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
}

fn games(c: &mut Criterion) {
    let mut group = c.benchmark_group("cribbage");
    group.throughput(Throughput::Elements(1));
    for players in ["2", "3", "4"] {
        let g = game(&[("players", players)]);
        let mut rng = SeededRng::new(7);
        // The result is checked, so the benchmark measures real, complete games.
        let end = random_game(&g, &mut rng);
        assert!(end.winner().is_some() && end.scores().iter().any(|&s| s >= 121));
        group.bench_function(format!("random_game_to_121_{players}p"), |b| {
            b.iter(|| black_box(random_game_top(&g, &mut rng)))
        });
    }
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(9);
    assert!(random_game(&g, &mut rng).is_terminal());
    group.bench_function("random_deal_2p", |b| {
        b.iter(|| black_box(random_game_top(&g, &mut rng)))
    });
    group.finish();
}

fn scorer(c: &mut Criterion) {
    // 4096 random hands with starters, scored in a loop.
    let mut rng = SeededRng::new(3);
    let pack: Vec<Card> = Pack::Full52.cards().iter().collect();
    let hands: Vec<([Card; 4], Card, bool)> = (0..4096)
        .map(|i| {
            let mut cards = pack.clone();
            for k in 0..5 {
                let j = k + rng.below((52 - k) as u64) as usize;
                cards.swap(k, j);
            }
            (
                [cards[0], cards[1], cards[2], cards[3]],
                cards[4],
                i % 4 == 0,
            )
        })
        .collect();
    let total: u32 = hands
        .iter()
        .map(|&(h, s, k)| u32::from(score_hand(h, s, k).total))
        .sum();
    assert!(total > 4096 * 3, "random hands average about 4.7 points");
    let mut group = c.benchmark_group("cribbage_score_hand");
    group.throughput(Throughput::Elements(hands.len() as u64));
    group.bench_function("score_hand", |b| {
        b.iter(|| {
            hands
                .iter()
                .map(|&(h, s, k)| u32::from(black_box(score_hand(black_box(h), s, k)).total))
                .sum::<u32>()
        })
    });
    group.finish();
}

/// States sampled along random games, for the per-call benchmarks.
fn sample_states(g: &CribbageGame, n: usize) -> Vec<CribbageState> {
    let mut rng = SeededRng::new(1);
    let mut out = Vec::new();
    while out.len() < n {
        let mut s = g.new_initial_state();
        loop {
            s.resolve_chance(&mut rng);
            if s.is_terminal() {
                break;
            }
            out.push(s.clone());
            let a = s.legal_actions().choose(&mut rng).expect("legal");
            s.apply_unchecked(a);
        }
    }
    out.truncate(n);
    out
}

fn calls(c: &mut Criterion) {
    let g = game(&[("scope", "deal")]);
    let states = sample_states(&g, 4096);
    let mut group = c.benchmark_group("cribbage_calls");
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

criterion_group!(benches, games, scorer, calls);
criterion_main!(benches);
