//! The check that the Avinas bound ([`super::bound`]) plays the engine's distribution of
//! deals: the same statistics of many random deals from both, compared within a tolerance
//! ([`super::stats`]). Run by the bench's `-- ratio` (and its smoke run) after the ratio.

use cardhouse::games::avinas::{AvinasGame, Kind};
use cardhouse::{Game, SeededRng, State};

use super::{bound, stats};

/// The statistics compared by [`check`], per deal; teams are the declaring one and the
/// defenders.
const CHECKED: [&str; 17] = [
    "decisions (actions) per deal",
    "all passed (no score)",
    "sevens game",
    "bidding game",
    "sevens game: face-up Sevens",
    "bidding game: the winning bid",
    "knock",
    "double",
    "knock failed",
    "early stop",
    "card points declaring team",
    "card points defenders",
    "tricks declaring team",
    "tricks defenders",
    "rams or pips given",
    "given against the declaring team",
    "value for the dealer's team",
];

fn values(d: &bound::Deal) -> [f64; 17] {
    let f = f64::from;
    let b = |x: bool| f64::from(u32::from(x));
    [
        f(d.decisions),
        b(d.kind == 0),
        b(d.kind == 1),
        b(d.kind == 2),
        f(d.base),
        f(d.bid),
        b(d.knock),
        b(d.double),
        b(d.knock_failed),
        b(d.stopped),
        f(d.points[0]),
        f(d.points[1]),
        f(d.tricks[0]),
        f(d.tricks[1]),
        f(d.amount),
        b(d.kind != 0 && d.against_declarer),
        f64::from(d.value),
    ]
}

/// The equivalence check: `deals` random deals of the engine's random player (`game` has
/// `scope = deal` and dealer 0, as the ratio's) and as many of the bound, compared on the means
/// of [`CHECKED`] (decisions per deal; the rates of all-pass deals, sevens and bidding games;
/// the face-up Sevens and the winning bid; the rates of a knock, a double, a failed knock and
/// an early stop; card points and tricks of each team; the rams or pips given, the rate of
/// their going against the declaring team, and the deal's value for the dealer's team); each
/// difference must be within [`stats::TOLERANCE`] (4) standard errors of the difference.
/// Seeded, so the outcome is the same on every run. Returns whether all agree.
pub fn check(game: &AvinasGame, deals: usize) -> bool {
    let mut engine = stats::Sample::new(CHECKED.len());
    let mut rng = SeededRng::new(21);
    for _ in 0..deals {
        let mut s = game.new_initial_state();
        let mut decisions = 0;
        while !s.is_terminal() {
            if s.is_chance_node() {
                s.resolve_chance(&mut rng);
                continue;
            }
            let a = s.legal_actions().choose(&mut rng).expect("legal action");
            s.apply_unchecked(a);
            decisions += 1;
        }
        let r = s.last_deal().expect("a finished deal");
        let declaring = r.declarer.map_or(0, |p| p & 1);
        let d = bound::Deal {
            kind: match r.kind {
                None => 0,
                Some(Kind::Sevens) => 1,
                Some(Kind::Bidding) => 2,
            },
            base: r.base,
            bid: r.bid,
            knock: s.knocked_by().is_some(),
            double: s.doubled_by().is_some(),
            knock_failed: r.knock_failed,
            stopped: r.stopped,
            decisions,
            points: [r.declarer_points, r.defender_points],
            tricks: [r.declarer_tricks, r.defender_tricks],
            amount: r.amount,
            against_declarer: r.against == Some(declaring),
            value: s.returns()[0] as i32,
        };
        engine.add(&values(&d));
    }
    let mut sample = stats::Sample::new(CHECKED.len());
    let mut brng = SeededRng::new(22);
    for _ in 0..deals {
        sample.add(&values(&bound::deal(&mut brng)));
    }
    stats::compare("avinas", &CHECKED, &engine, &sample)
}
