//! The check that the Klaberjass same-work bound ([`super::same_work`]) plays the engine's
//! distribution of deals: the same statistics of many random deals from both, compared within
//! a tolerance ([`super::stats`]), and the options offered compared exactly along the engine's
//! deals. Run by the bench's `-- ratio` (and its smoke run) after the ratios.

use cardhouse::games::klaberjass::{
    DECLARE_BASE, EXCHANGE, KEEP, KlaberjassGame, KlaberjassState, Outcome, PASS, Phase, WAIT,
    card_action,
};
use cardhouse::{ActionSet, Game, Player, SeededRng, State};

use super::{play_phase, same_work, stats};

/// The statistics compared by [`check`], per deal; "elder" and "dealer" are roles.
const CHECKED: [&str; 22] = [
    "decisions (actions) per deal",
    "annulled (four passes)",
    "bids per deal",
    "trump taken in round 1",
    "dealer is the maker",
    "exchange windows held",
    "exchange in window 1",
    "exchange in window 2",
    "runs declared",
    "a player declares two runs or more",
    "sequences scored",
    "sequence points elder",
    "sequence points dealer",
    "Bella points elder",
    "Bella points dealer",
    "card points + last trick elder",
    "card points + last trick dealer",
    "deal totals elder",
    "deal totals dealer",
    "points added elder",
    "points added dealer",
    "maker wins (Tm > To)",
];

/// What [`check`] reads of one deal, per role `[elder, dealer]`.
#[derive(Default)]
struct Checked {
    decisions: u32,
    annulled: bool,
    bids: u32,
    maker_dealer: bool,
    windows: bool,
    exchanged: u32,
    declared: u32,
    multi: bool,
    seq: [u32; 2],
    bella: [u32; 2],
    cards: [u32; 2],
    totals: [u32; 2],
    added: [u32; 2],
    maker_wins: bool,
}

impl Checked {
    fn values(&self) -> [f64; 22] {
        let f = f64::from;
        let b = |x: bool| f64::from(u32::from(x));
        let mut v = [
            f(self.decisions),
            b(self.annulled),
            f(self.bids),
            b(!self.annulled && self.bids <= 2),
            b(self.maker_dealer),
            b(self.windows),
            b(self.exchanged == 1),
            b(self.exchanged == 2),
            f(self.declared),
            b(self.multi),
            b(self.seq[0] + self.seq[1] > 0),
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            b(self.maker_wins),
        ];
        for r in 0..2 {
            v[11 + r] = f(self.seq[r]);
            v[13 + r] = f(self.bella[r]);
            v[15 + r] = f(self.cards[r]);
            v[17 + r] = f(self.totals[r]);
            v[19 + r] = f(self.added[r]);
        }
        v
    }
}

/// The equivalence check: `deals` random deals of the engine's random player and as many of the
/// same-work bound, compared on the means of [`CHECKED`] (decisions and bids per deal, the rates of
/// annulled deals, of trump taken in round 1, of the dealer making, of exchange windows held and of
/// an exchange in each, runs declared per deal, the rates of a player declaring two runs or more
/// and of deals with sequence points, and per role (elder, dealer) the sequence, Bella, card, total
/// and added points, and the rate of the maker winning); each difference must be within
/// [`stats::TOLERANCE`] (4) standard errors of the difference. And exactly ([`Offers`]): the legal
/// cards at each card decision, the runs offered at each announcement decision, whether `exchange` is offered at each window decision,
/// and each played deal's sequence points must be the bound's. Seeded, so the outcome is the
/// same on every run. Returns whether all agree.
pub fn check(g: &KlaberjassGame, deals: usize) -> bool {
    let mut engine = stats::Sample::new(CHECKED.len());
    let mut rng = SeededRng::new(21);
    let mut offers = Offers::default();
    for _ in 0..deals {
        let mut s = g.new_initial_state();
        let mut c = Checked::default();
        offers.new_deal();
        // A player's declarations are consecutive, before his `announce`.
        let mut in_a_row = 0;
        while !s.is_terminal() {
            if s.is_chance_node() {
                s.resolve_chance(&mut rng);
                continue;
            }
            let legal = s.legal_actions();
            let a = legal.choose(&mut rng).expect("legal action");
            offers.step(&s, &legal, a);
            c.decisions += 1;
            c.bids += u32::from((PASS..EXCHANGE).contains(&a));
            c.windows |= a == WAIT || a == KEEP || a == EXCHANGE;
            c.declared += u32::from(a >= DECLARE_BASE);
            in_a_row = if a >= DECLARE_BASE { in_a_row + 1 } else { 0 };
            c.multi |= in_a_row >= 2;
            s.apply_unchecked(a);
        }
        let d = s.last_deal().expect("a finished deal");
        let elder = 1 - s.dealer();
        let role = |v: [u32; 2]| [v[elder], v[1 - elder]];
        c.annulled = d.outcome == Outcome::Annulled;
        c.maker_dealer = d.maker == Some(s.dealer());
        c.exchanged = s.exchanged().map_or(0, |(_, w)| u32::from(w));
        c.seq = role(s.sequence_points());
        c.bella = role(s.bella().map(|b| 20 * u32::from(b)));
        c.totals = role(d.totals);
        c.cards = [0, 1].map(|r| c.totals[r] - c.seq[r] - c.bella[r]);
        c.added = role(d.added);
        c.maker_wins = d.outcome == Outcome::MakerWins;
        if !c.annulled {
            offers.score(&s);
        }
        engine.add(&c.values());
    }
    let mut bound = stats::Sample::new(CHECKED.len());
    let mut brng = SeededRng::new(22);
    for _ in 0..deals {
        let d = same_work::deal(&mut brng);
        let played = !d.annulled;
        let c = Checked {
            decisions: d.bids
                + if played {
                    4 * u32::from(d.windows) + 2 + d.declared + 18
                } else {
                    0
                },
            annulled: d.annulled,
            bids: d.bids,
            maker_dealer: played && d.maker == 1,
            windows: d.windows,
            exchanged: d.exchanged,
            declared: d.declared,
            multi: d.multi,
            seq: d.seq,
            bella: d.bella,
            cards: d.cards,
            totals: d.totals,
            added: [d.added[1 - d.dealer], d.added[d.dealer]],
            maker_wins: played && d.totals[d.maker] > d.totals[1 - d.maker],
        };
        bound.add(&c.values());
    }
    let same = stats::compare("klaberjass", &CHECKED, &engine, &bound);
    println!(
        "  exactly: the legal cards at {} card decisions against the bounds', {} differ",
        offers.cards, offers.wrong_cards
    );
    println!(
        "  exactly: the runs offered at {} announcement decisions against the bound's, {} differ; \
         the exchange offered or not at {} window decisions against the bound's, {} differ; the \
         sequence points of {} deals against the bound's scoring of the runs declared, {} differ",
        offers.announce,
        offers.wrong_announce,
        offers.window,
        offers.wrong_window,
        offers.scored,
        offers.wrong_scores
    );
    same && offers.wrong_cards == 0
        && offers.wrong_announce == 0
        && offers.wrong_window == 0
        && offers.wrong_scores == 0
}

/// The exact part of [`check`]: at every card decision of the engine's random deals, its legal
/// cards against the bounds' [`play_phase::legal`] for the same hand and lead; at every
/// announcement decision,
/// the runs it offers against the bound's ([`same_work::run_tops`] after the last declared),
/// at every exchange-window decision whether it offers `exchange` against the bound's rule
/// (the seat holds the trump 7), and after each played deal its sequence points against the
/// bound's scoring ([`same_work::run`], the better best run scores) of the runs declared.
#[derive(Default)]
struct Offers {
    cards: usize,
    wrong_cards: usize,
    /// The card led to the trick being played, if it is.
    lead: Option<u32>,
    announce: usize,
    wrong_announce: usize,
    window: usize,
    wrong_window: usize,
    scored: usize,
    wrong_scores: usize,
    /// Per seat in this deal: the top card id of the last run declared (+1), the declared
    /// points and the best key.
    after: [u32; 2],
    points: [u32; 2],
    key: [u32; 2],
}

impl Offers {
    fn new_deal(&mut self) {
        self.lead = None;
        self.after = [0; 2];
        self.points = [0; 2];
        self.key = [0; 2];
    }

    fn step(&mut self, s: &KlaberjassState, legal: &ActionSet, a: u32) {
        let Player::Seat(seat) = s.current_player() else {
            return;
        };
        let hand = s
            .hand(seat)
            .iter()
            .fold(0u64, |m, c| m | 1 << card_action(c));
        let trump = s.trump().map_or(0, |t| t as usize);
        match s.phase() {
            Phase::Announce => {
                let expected = same_work::run_tops(hand) & !((1u64 << self.after[seat]) - 1);
                let mut offered = 0u64;
                legal.for_each(|x| {
                    if x >= DECLARE_BASE {
                        let item = x - DECLARE_BASE;
                        offered |= 1 << (item / 6 * 8 + item % 6 + 2);
                    }
                });
                self.announce += 1;
                self.wrong_announce += usize::from(offered != expected);
                if a >= DECLARE_BASE {
                    let item = a - DECLARE_BASE;
                    let top = item / 6 * 8 + item % 6 + 2;
                    let (p, k) = same_work::run(hand, top, trump);
                    self.points[seat] += p;
                    self.key[seat] = self.key[seat].max(k);
                    self.after[seat] = top + 1;
                }
            }
            Phase::Play => {
                let expected = match self.lead {
                    Some(lead) => play_phase::legal(hand, lead as usize, trump),
                    None => hand,
                };
                let mut offered = 0u64;
                legal.for_each(|x| offered |= 1 << x);
                self.cards += 1;
                self.wrong_cards += usize::from(offered != expected);
                self.lead = if self.lead.is_none() { Some(a) } else { None };
            }
            Phase::Exchange1 | Phase::Exchange2 => {
                let holds_seven = hand >> (8 * trump) & 1 == 1;
                self.window += 1;
                self.wrong_window += usize::from(legal.contains(EXCHANGE) != holds_seven);
            }
            _ => {}
        }
    }

    fn score(&mut self, s: &KlaberjassState) {
        let mut seq = [0; 2];
        if self.key[0] != self.key[1] {
            let w = usize::from(self.key[1] > self.key[0]);
            seq[w] = self.points[w];
        }
        self.scored += 1;
        self.wrong_scores += usize::from(seq != s.sequence_points());
    }
}
