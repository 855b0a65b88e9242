//! Thinking time per move of bots, on one core: random one-deal games (`scope = deal`) of a
//! game played by a lineup of bots, each bot's moves timed (the mean, median, 90th and 99th
//! percentile and maximum, in milliseconds), over every move and over the moves of the
//! card play alone (the moves after the first card of the deal is played). For stating the
//! time per move at which two bots are compared (`cardhouse simulate ... --duplicate`).
//!
//! ```text
//! cargo run --release -p cardhouse --example move_times -- GAME BOT,BOT,... [DEALS] [SEED]
//! ```
//!
//! `DEALS` defaults to 10. A shorter lineup repeats round the table, as in `cardhouse
//! simulate`.

use std::collections::BTreeMap;
use std::time::Instant;

use cardhouse::bots::BotKind;
use cardhouse::seeds::mix;
use cardhouse::{Player, SeededRng, new_game, options};

/// Milliseconds of each move, all moves and the play's.
#[derive(Default)]
struct Times {
    all: Vec<f64>,
    play: Vec<f64>,
}

fn line(label: &str, times: &mut [f64]) {
    if times.is_empty() {
        return;
    }
    times.sort_by(f64::total_cmp);
    let q = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "{label:<32} moves {:>6}  mean {mean:>9.3}  median {:>9.3}  p90 {:>9.3}  p99 {:>9.3}  max {:>9.3} ms",
        times.len(),
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
    );
}

#[allow(clippy::disallowed_methods)] // an example may read the clock
fn main() -> Result<(), cardhouse::Error> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(name), Some(lineup)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: move_times GAME BOT,BOT,... [DEALS] [SEED]");
        std::process::exit(2);
    };
    let deals: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(10);
    let seed: u64 = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(1);
    let game = new_game(name, &options([("scope", "deal".into())]))?;
    let names: Vec<&str> = lineup.split(',').map(str::trim).collect();
    let bots: Vec<BotKind> = names.iter().map(|b| b.parse()).collect::<Result<_, _>>()?;
    let mut times: BTreeMap<String, Times> = BTreeMap::new();
    for deal in 0..deals {
        let mut chance = SeededRng::new(mix(seed, deal));
        let mut rngs: Vec<SeededRng> = (0..game.num_players())
            .map(|s| SeededRng::new(mix(seed ^ 0x5EED, deal * 8 + s as u64)))
            .collect();
        let mut state = game.new_initial_state();
        let mut played_cards = false;
        loop {
            match state.current_player() {
                Player::Chance => state.resolve_chance(&mut chance)?,
                Player::Terminal => break,
                Player::Seat(s) => {
                    let bot = &bots[s % bots.len()];
                    let t = Instant::now();
                    let a = state.bot_action(bot, s, &mut rngs[s], &mut || false)?;
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    let entry = times.entry(bot.to_string()).or_default();
                    entry.all.push(ms);
                    if played_cards {
                        entry.play.push(ms);
                    }
                    played_cards |= state.action_to_string(a).starts_with("play");
                    state.apply(a)?;
                }
            }
        }
    }
    println!("{name}, {deals} deals, lineup {lineup}");
    for (bot, t) in &mut times {
        line(&format!("{bot}: every move"), &mut t.all);
        line(&format!("{bot}: the play"), &mut t.play);
    }
    Ok(())
}
