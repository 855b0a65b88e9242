//! The check that the Jass same-work bound ([`super::same_work`]) plays the engine's
//! distribution of deals: the same statistics of many random deals from both, compared within
//! a tolerance ([`super::stats`]), and the options offered compared exactly along the engine's
//! deals. Run by the bench's `-- ratio` (and its smoke run) after the ratios.

use cardhouse::games::jass::{JassGame, JassState, Mode, Phase, SCHIEBEN, WYS_BASE, card_action};
use cardhouse::{ActionSet, Game, Player, SeededRng, State};

use super::{play_phase, same_work, stats};

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
pub fn check(g: &JassGame, deals: usize) -> bool {
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
