//! Cribbage self-play statistics of a bot (default: `heuristic`), beside the published
//! expert averages: mean points per deal of the dealer and the non-dealer, split into
//! pegging, hand and crib, and the first dealer's win rate.
//!
//! ```text
//! cargo run --release -p cardhouse --example cribbage_stats -- [GAMES] [BOT] [SEED]
//! ```

use cardhouse::bots::BotKind;
use cardhouse::games::cribbage::{LastDeal, Phase};
use cardhouse::seeds::mix;
use cardhouse::{AnyState, Player, SeededRng, new_game, options};

fn main() -> Result<(), cardhouse::Error> {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let bot: BotKind = args.get(2).map_or(Ok(BotKind::Heuristic), |b| b.parse())?;
    let seed: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let game = new_game("cribbage", &options([("players", 2.into())]))?;
    // Sums per role: [pegging, hand, crib, total (heels included)], and deal count.
    let (mut dealer, mut pone) = ([0u64; 4], [0u64; 4]);
    let mut deals = 0u64;
    let mut first_dealer_wins = 0u64;
    for g in 0..games {
        let mut chance = SeededRng::new(mix(seed, g));
        let mut rngs = [
            SeededRng::new(mix(seed, g + (1 << 40))),
            SeededRng::new(mix(seed, g + (2 << 40))),
        ];
        let mut state = game.new_initial_state();
        let mut first = None;
        let mut prev: Option<LastDeal> = None;
        while !state.is_terminal() {
            match state.current_player() {
                Player::Chance => state.resolve_chance(&mut chance)?,
                Player::Seat(s) => {
                    let a = state.bot_action(&bot, s, &mut rngs[s], &mut || false)?;
                    state.apply(a)?;
                }
                Player::Terminal => break,
            }
            let AnyState::Cribbage(c) = &state else {
                unreachable!("a cribbage state")
            };
            if first.is_none() && c.phase() != Phase::FirstDealer {
                first = Some(c.dealer());
            }
            // Each show counted in full leaves a new `last_deal` (a game that ends
            // mid-deal leaves none for that deal: only whole deals are counted).
            if let Some(d) = c.last_deal()
                && prev != Some(d)
            {
                count(&d, &mut dealer, &mut pone);
                deals += 1;
                prev = Some(d);
            }
        }
        let AnyState::Cribbage(c) = &state else {
            unreachable!("a cribbage state")
        };
        if c.winner().is_some() && c.winner() == first {
            first_dealer_wins += 1;
        }
    }
    let per = |x: u64| x as f64 / deals.max(1) as f64;
    println!("cribbage self-play of `{bot}`: {games} games, {deals} deals (seed {seed})");
    println!(
        "{:<11}{:>9}{:>8}{:>8}{:>8}   published expert averages",
        "", "pegging", "hand", "crib", "total"
    );
    println!(
        "{:<11}{:>9.2}{:>8.2}{:>8}{:>8.2}   2.0 + 8.1 = 10.1",
        "non-dealer",
        per(pone[0]),
        per(pone[1]),
        "-",
        per(pone[3])
    );
    println!(
        "{:<11}{:>9.2}{:>8.2}{:>8.2}{:>8.2}   3.5 + 8.0 + 4.7 = 16.2",
        "dealer",
        per(dealer[0]),
        per(dealer[1]),
        per(dealer[2]),
        per(dealer[3])
    );
    let p = first_dealer_wins as f64 / games.max(1) as f64;
    let half = 1.96 * (p * (1.0 - p) / games.max(1) as f64).sqrt();
    println!(
        "first dealer wins {:.1}% ± {:.1}% (published: 55-56% for equal players)",
        100.0 * p,
        100.0 * half
    );
    Ok(())
}

/// Adds one finished deal (2 players: side = seat).
fn count(d: &LastDeal, dealer: &mut [u64; 4], pone: &mut [u64; 4]) {
    let dl = usize::from(d.dealer);
    let pn = 1 - dl;
    // Show order: the non-dealer's hand, the dealer's hand, the crib.
    pone[0] += u64::from(d.pegging[pn]);
    pone[1] += u64::from(d.show[0].total);
    pone[3] += u64::from(d.points[pn]);
    dealer[0] += u64::from(d.pegging[dl]);
    dealer[1] += u64::from(d.show[1].total);
    dealer[2] += u64::from(d.show[2].total);
    dealer[3] += u64::from(d.points[dl]);
}
