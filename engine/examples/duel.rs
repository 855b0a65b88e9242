//! Two bots in duplicate sets of one game (default: two-player Cribbage, one deal), on
//! several threads: the first bot's win rate (a tie counts half) with its 95% Wilson
//! interval, and its mean return per set.
//!
//! ```text
//! cargo run --release -p cardhouse --example duel -- BOT_A BOT_B [SETS] [THREADS] [SEED] [GAME]
//! ```
//!
//! In Cribbage a bot may be `DISCARDER/PEGGER` (two bots, e.g. `rollout:100/heuristic`): the
//! first decides the discards, the second the play.

use cardhouse::bots::BotKind;
use cardhouse::games::cribbage::Phase;
use cardhouse::seeds::mix;
use cardhouse::{AnyGame, AnyState, Player, SeededRng, new_game, options};

/// A bot, or a Cribbage discarder and pegger.
#[derive(Clone)]
struct Duo(BotKind, BotKind);

fn duo(text: &str) -> Result<Duo, cardhouse::Error> {
    match text.split_once('/') {
        Some((d, p)) => Ok(Duo(d.parse()?, p.parse()?)),
        None => Ok(Duo(text.parse()?, text.parse()?)),
    }
}

/// One duplicate set of `[a, b]` (two seats): the first bot's return less the second's.
fn set(game: &AnyGame, bots: &[Duo; 2], seed: u64) -> f64 {
    let mut total = 0.0;
    for turn in 0..2 {
        let mut chance = SeededRng::new(mix(seed, 0x00C4_A7CE));
        let mut rngs: Vec<SeededRng> = (0..2).map(|s| SeededRng::new(mix(seed, 1 + s))).collect();
        let mut state = game.new_initial_state();
        while !state.is_terminal() {
            match state.current_player() {
                Player::Chance => state.resolve_chance(&mut chance).unwrap(),
                Player::Seat(s) => {
                    let d = &bots[(s + turn) % 2];
                    let discarding =
                        matches!(&state, AnyState::Cribbage(c) if c.phase() == Phase::Discard);
                    let bot = if discarding { &d.0 } else { &d.1 };
                    let a = state
                        .bot_action(bot, s, &mut rngs[s], &mut || false)
                        .unwrap();
                    state.apply(a).unwrap();
                }
                Player::Terminal => break,
            }
        }
        let r = state.returns();
        for s in 0..2 {
            total += if (s + turn) % 2 == 0 { r[s] } else { -r[s] };
        }
    }
    total
}

fn main() -> Result<(), cardhouse::Error> {
    let args: Vec<String> = std::env::args().collect();
    let a = duo(args.get(1).map_or("rollout", String::as_str))?;
    let b = duo(args.get(2).map_or("heuristic", String::as_str))?;
    let sets: u64 = args.get(3).and_then(|x| x.parse().ok()).unwrap_or(300);
    let threads: u64 = args.get(4).and_then(|x| x.parse().ok()).unwrap_or(2);
    let seed: u64 = args.get(5).and_then(|x| x.parse().ok()).unwrap_or(7);
    let name = args.get(6).map_or("cribbage", String::as_str).to_owned();
    let results: Vec<(f64, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (a, b, name) = (a.clone(), b.clone(), name.clone());
                scope.spawn(move || {
                    let game = new_game(&name, &options([("scope", "deal".into())])).unwrap();
                    let bots = [a, b];
                    (0..sets)
                        .filter(|i| i % threads == t)
                        .map(|i| {
                            let d = set(&game, &bots, mix(seed, i));
                            let w = if d > 0.0 {
                                1.0
                            } else if d < 0.0 {
                                0.0
                            } else {
                                0.5
                            };
                            (w, d)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let n = results.len() as f64;
    let p = results.iter().map(|r| r.0).sum::<f64>() / n;
    let margin = results.iter().map(|r| r.1).sum::<f64>() / n;
    let z = 1.96f64;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    println!(
        "{} vs {}: win {:.3} ({:.3}-{:.3}) over {} sets, margin {:+.3} points/set",
        args.get(1).map_or("rollout", String::as_str),
        args.get(2).map_or("heuristic", String::as_str),
        p,
        centre - half,
        centre + half,
        results.len(),
        margin
    );
    Ok(())
}
