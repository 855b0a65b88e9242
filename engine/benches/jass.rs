//! Jass benchmarks: random full deals (including the deal), full matches, and the hot-path
//! calls on their own; first, the engine's random deals against two bounds measured
//! interleaved, with both ratios printed: the play-phase bound ([`play_phase`], a minimal bitmask
//! deal loop that draws the mode and plays the cards, without schieben or Wys) and the
//! same-work bound ([`same_work`], a minimal bitmask loop of the whole deal making the
//! engine's random player's decisions: schieben, the Wys offers of trick 1, the cards), then
//! the check that the same-work bound plays the engine's distribution of deals ([`check`]).
//! Figures go into the README's benchmark table.
//!
//! `cargo bench -p cardhouse --bench jass` (the ratios and the check alone: `-- ratio`)
//! The bounds alone under criterion: `jass/bound_random_deal` (play-phase) and
//! `jass/same_work_bound_random_deal`.

use std::hint::black_box;

use cardhouse::games::jass::{
    JassGame, JassState, Mode, Phase, SCHIEBEN, WYS_BASE, card_action, layout,
};
use cardhouse::{ActionSet, Game, Options, Player, Rng, SeededRng, State};
use criterion::{Criterion, Throughput, criterion_group};

#[allow(dead_code)]
#[path = "bound/bitmask.rs"]
mod bitmask;
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
        check(&g, 50_000),
        "the same-work bound plays another distribution of deals than the engine"
    );
}

/// The statistics compared by [`check`], per deal.
const CHECKED: [&str; 22] = [
    "decisions (actions) per deal",
    "schieben",
    "mode: trump lane 0 (Bells)",
    "mode: trump lane 1 (Acorns)",
    "mode: trump lane 2 (Roses)",
    "mode: trump lane 3 (Shields)",
    "mode: Obenabe",
    "mode: Undenufe",
    "Wys items declared",
    "some Wys declared",
    "a seat declares two Wys items or more",
    "Wys won by team 0",
    "Wys points team 0",
    "Wys points team 1",
    "Stoeck points team 0",
    "Stoeck points team 1",
    "card points team 0",
    "card points team 1",
    "raw points team 0",
    "raw points team 1",
    "scored points team 0",
    "scored points team 1",
];

/// The values of [`CHECKED`] for one deal.
#[allow(clippy::too_many_arguments)]
fn checked_values(
    decisions: u32,
    pushed: bool,
    mode: usize,
    declared: u32,
    multi: bool,
    wys: [u32; 2],
    stoeck: [u32; 2],
    cards: [u32; 2],
    raw: [u32; 2],
    scored: [u32; 2],
) -> [f64; 22] {
    let f = f64::from;
    let mut v = [0.0; 22];
    v[0] = f(decisions);
    v[1] = f(u32::from(pushed));
    v[2 + mode] = 1.0;
    v[8] = f(declared);
    v[9] = f(u32::from(declared > 0));
    v[10] = f(u32::from(multi));
    v[11] = f(u32::from(wys[0] > 0));
    for t in 0..2 {
        v[12 + t] = f(wys[t]);
        v[14 + t] = f(stoeck[t]);
        v[16 + t] = f(cards[t]);
        v[18 + t] = f(raw[t]);
        v[20 + t] = f(scored[t]);
    }
    v
}

/// The equivalence check: `deals` random deals of the engine's random player and as many of the
/// same-work bound, compared on the means of [`CHECKED`] (decisions per deal, the schieben rate,
/// the six modes' rates, Wys items declared per deal, the rates of deals with a Wys declared, of a
/// seat declaring two items or more and of Wys won by team 0, and per team the Wys, Stöck, card,
/// raw and scored points); each difference must be within [`stats::TOLERANCE`] (4) standard errors
/// of the difference. And exactly ([`Offers`]): at every card decision the engine's legal cards
/// must be the bounds' for that hand and trick, at every decision of trick 1 the Wys items the
/// engine offers the bound's candidates for that hand and those declarations, and each deal's
/// Wys points the bound's scoring of the items declared. Seeded, so the outcome is the
/// same on every run. Returns whether all agree.
fn check(g: &JassGame, deals: usize) -> bool {
    let mut engine = stats::Sample::new(CHECKED.len());
    let mut offers = Offers::default();
    let mut rng = SeededRng::new(21);
    for _ in 0..deals {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        let (mut decisions, mut pushed, mut declared) = (0, false, 0);
        // A seat's declarations are consecutive, before its first card.
        let (mut in_a_row, mut multi) = (0, false);
        let mut wys = WysTrack::default();
        let mut trick = Trick::default();
        while !s.is_terminal() {
            let legal = s.legal_actions();
            let seat = match s.current_player() {
                Player::Seat(p) => p,
                _ => 0,
            };
            let first_trick = s.phase() == Phase::Play && wys.cards < 4;
            if first_trick {
                offers.compare(&s, seat, &legal, &wys);
            }
            if s.phase() == Phase::Play {
                offers.compare_cards(&s, seat, &legal, &trick);
            }
            let a = legal.choose(&mut rng).expect("legal action");
            decisions += 1;
            pushed |= a == SCHIEBEN;
            declared += u32::from(a >= WYS_BASE);
            in_a_row = if a >= WYS_BASE { in_a_row + 1 } else { 0 };
            multi |= in_a_row >= 2;
            if first_trick {
                wys.step(seat, a, mode_index(s.mode()));
            }
            if s.phase() == Phase::Play && a < 36 {
                trick.step(a, mode_index(s.mode()));
            }
            s.apply_unchecked(a);
        }
        let d = s.last_deal().expect("a finished deal");
        offers.scored += 1;
        offers.wrong_scores += usize::from(wys.scored() != d.wys);
        engine.add(&checked_values(
            decisions,
            pushed,
            mode_index(Some(d.mode)),
            declared,
            multi,
            d.wys,
            d.stoeck,
            d.cards,
            d.raw,
            d.scored,
        ));
    }
    let mut bound = stats::Sample::new(CHECKED.len());
    let mut brng = SeededRng::new(22);
    for _ in 0..deals {
        let d = same_work::deal(&mut brng);
        let decisions = 1 + u32::from(d.pushed) + d.declared + 36;
        bound.add(&checked_values(
            decisions, d.pushed, d.mode, d.declared, d.multi, d.wys, d.stoeck, d.cards, d.raw,
            d.scored,
        ));
    }
    let same = stats::compare("jass (wys = manual)", &CHECKED, &engine, &bound);
    println!(
        "  exactly: the legal cards at {} decisions of trick play against the bound's, {} differ; the Wys \
         items offered at {} decisions of trick 1 against the bound's candidates, {} differ; the \
         Wys scored in {} deals against the bound's scoring of the items declared, {} differ",
        offers.cards,
        offers.wrong_cards,
        offers.compared,
        offers.wrong,
        offers.scored,
        offers.wrong_scores
    );
    same && offers.wrong_cards == 0 && offers.wrong == 0 && offers.wrong_scores == 0
}

/// The trick being played, as the bounds keep it: cards laid, the suit led and the winning
/// strength.
#[derive(Default)]
struct Trick {
    laid: usize,
    led_lane: u64,
    win_str: u8,
}

impl Trick {
    fn step(&mut self, card: u32, mode: usize) {
        let c = card as usize;
        let strength = play_phase::TABLES.strength[mode][c];
        if self.laid % 4 == 0 {
            self.led_lane = play_phase::LANE << (9 * (c / 9));
            self.win_str = strength;
        } else {
            let trump_lane = if mode < 4 {
                play_phase::LANE << (9 * mode)
            } else {
                0
            };
            if (1u64 << c) & (trump_lane | self.led_lane) != 0 {
                self.win_str = self.win_str.max(strength);
            }
        }
        self.laid += 1;
    }
}

/// The mode index of the bounds: the trump lane 0..4, Obenabe 4, Undenufe 5.
fn mode_index(mode: Option<Mode>) -> usize {
    match mode {
        Some(Mode::Trump(suit)) => suit as usize,
        Some(Mode::Obenabe) | None => 4,
        Some(Mode::Undenufe) => 5,
    }
}

/// The exact part of [`check`]: at every card decision of the engine's random deals, its legal
/// cards against the bounds' [`play_phase::legal`] for the same hand and trick; at every
/// decision of trick 1, the Wys items the engine offers against the bound's
/// [`same_work::candidates`] for the same hand and declarations; after each deal the engine's
/// Wys points against the bound's scoring of the items the engine's seats declared.
#[derive(Default)]
struct Offers {
    cards: usize,
    wrong_cards: usize,
    compared: usize,
    wrong: usize,
    scored: usize,
    wrong_scores: usize,
}

impl Offers {
    fn compare_cards(&mut self, s: &JassState, seat: usize, legal: &ActionSet, trick: &Trick) {
        let hand = s
            .hand(seat)
            .iter()
            .fold(0u64, |m, c| m | 1 << card_action(c));
        let expected = if trick.laid % 4 == 0 {
            hand
        } else {
            play_phase::legal(hand, trick.led_lane, trick.win_str, mode_index(s.mode()))
        };
        let mut offered = 0u64;
        legal.for_each(|a| {
            if a < 36 {
                offered |= 1 << a;
            }
        });
        self.cards += 1;
        self.wrong_cards += usize::from(offered != expected);
    }

    fn compare(&mut self, s: &JassState, seat: usize, legal: &ActionSet, wys: &WysTrack) {
        let hand = s
            .hand(seat)
            .iter()
            .fold(0u64, |m, c| m | 1 << card_action(c));
        let expected = same_work::candidates(hand, wys.used[seat], wys.after[seat]);
        let mut offered = 0u128;
        legal.for_each(|a| {
            if a >= WYS_BASE {
                offered |= 1 << (a - WYS_BASE);
            }
        });
        self.compared += 1;
        self.wrong += usize::from(offered != expected);
    }
}

/// The Wys declared in trick 1 as the bound keeps them: per seat the next item id allowed,
/// the cards of its declared four-of-a-kinds, its points and best key; the best key announced
/// and its seat; the cards laid.
#[derive(Default)]
struct WysTrack {
    after: [u32; 4],
    used: [u64; 4],
    points: [u32; 4],
    key: [u32; 4],
    best: (u32, usize),
    cards: usize,
}

impl WysTrack {
    fn step(&mut self, seat: usize, a: u32, mode: usize) {
        if a >= WYS_BASE {
            let id = a - WYS_BASE;
            let (p, k) = same_work::item(id, mode);
            self.points[seat] += p;
            self.key[seat] = self.key[seat].max(k);
            self.after[seat] = id + 1;
            if id < 9 {
                self.used[seat] |= same_work::QUARTET_CARDS << id;
            }
        } else {
            // Its first card commits the seat's Wys: the best so far if strictly better.
            if self.key[seat] > self.best.0 {
                self.best = (self.key[seat], seat);
            }
            self.cards += 1;
        }
    }

    fn scored(&self) -> [u32; 2] {
        let mut wys = [0; 2];
        if self.best.0 != 0 {
            let team = self.best.1 & 1;
            wys[team] = self.points[team] + self.points[team + 2];
        }
        wys
    }
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
