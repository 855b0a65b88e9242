//! Who plays each seat: the bot of every bot seat, any bot the engine knows by its name,
//! held to the server's limits ([`BotLimits`]). A new match asking more than the limits is
//! refused, naming the limit; a stored match is held to the limits in force (an operator who
//! lowers them lowers the work of every match, old ones too).

use cardhouse::AnyGame;
use cardhouse::bots::{BotKind, IsmctsConfig};

use crate::domain::{BotSeat, Seat};
use crate::error::ApiError;

/// The server's limits on a bot's work per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotLimits {
    /// Most IS-MCTS iterations a move (`--max-ismcts-iterations`).
    pub max_ismcts_iterations: u32,
    /// Most determinizations a move of the `rollout` bot (`--max-rollout-samples`).
    pub max_rollout_samples: u32,
    /// Most worlds a move of the `pimc` bot solves (`--max-pimc-worlds`).
    pub max_pimc_worlds: u32,
}

impl Default for BotLimits {
    fn default() -> Self {
        BotLimits {
            max_ismcts_iterations: 100_000,
            max_rollout_samples: 10_000,
            max_pimc_worlds: 1_000,
        }
    }
}

/// The bot named `name`, as a seat of a new match (or a timeout's stand-in) may use it:
/// parsed, able to play `game`, and within `limits`.
///
/// # Errors
/// `INVALID_ARGUMENT` naming what is wrong: an unknown name (with the names allowed), a
/// policy of another game, or a budget over a limit (with the limit's flag and value).
pub fn bot_for(name: &str, game: &AnyGame, limits: BotLimits) -> Result<BotKind, ApiError> {
    let bot: BotKind = name.parse()?;
    bot.check_game(game)
        .map_err(|e| ApiError::InvalidArgument(format!("bot `{name}`: {e}")))?;
    match &bot {
        BotKind::Ismcts(c) => {
            let asked = iterations_of(c, game);
            if asked > limits.max_ismcts_iterations {
                return Err(ApiError::InvalidArgument(format!(
                    "bot `{name}` asks {asked} IS-MCTS iterations a move; this server allows \
                     at most {} (--max-ismcts-iterations)",
                    limits.max_ismcts_iterations
                )));
            }
        }
        BotKind::Rollout(c) if c.samples > limits.max_rollout_samples => {
            return Err(ApiError::InvalidArgument(format!(
                "bot `{name}` asks {} determinizations a move; this server allows at most {} \
                 (--max-rollout-samples)",
                c.samples, limits.max_rollout_samples
            )));
        }
        BotKind::Pimc(c) if c.worlds > limits.max_pimc_worlds => {
            return Err(ApiError::InvalidArgument(format!(
                "bot `{name}` asks {} worlds solved a move; this server allows at most {} \
                 (--max-pimc-worlds)",
                c.worlds, limits.max_pimc_worlds
            )));
        }
        _ => {}
    }
    Ok(bot)
}

/// The iterations an IS-MCTS configuration searches in `game` (0 stands for the game's
/// default).
fn iterations_of(c: &IsmctsConfig, game: &AnyGame) -> u32 {
    match c.iterations {
        0 => game.default_ismcts_iterations(),
        n => n,
    }
}

/// `bot` held to `limits` (a stored match's bot after the operator lowered them).
fn held(bot: BotKind, game: &AnyGame, limits: BotLimits) -> BotKind {
    match bot {
        BotKind::Ismcts(c) if iterations_of(&c, game) > limits.max_ismcts_iterations => {
            BotKind::Ismcts(IsmctsConfig {
                iterations: limits.max_ismcts_iterations.max(1),
                ..c
            })
        }
        BotKind::Rollout(mut c) if c.samples > limits.max_rollout_samples => {
            c.samples = limits.max_rollout_samples.max(1);
            BotKind::Rollout(c)
        }
        BotKind::Pimc(mut c) if c.worlds > limits.max_pimc_worlds => {
            c.worlds = limits.max_pimc_worlds.max(1);
            BotKind::Pimc(c)
        }
        other => other,
    }
}

/// The bot playing each seat (`None` for humans) of a match of `game`: the three fixed bot
/// kinds as ever (IS-MCTS with `ismcts_iterations` a move, 0: the game's default), a named
/// seat by its name in `names` (checked when the match was created or read: a name that no
/// longer parses is an error), each held to `limits`.
///
/// # Errors
/// A named seat without a name that parses, in words for the operator's log.
pub fn seat_bots(
    seats: &[Seat],
    names: &[Option<String>],
    game: &AnyGame,
    ismcts_iterations: u32,
    limits: BotLimits,
) -> Result<Vec<Option<BotKind>>, String> {
    seats
        .iter()
        .enumerate()
        .map(|(s, seat)| {
            let bot = match seat {
                Seat::Human => return Ok(None),
                Seat::Bot(BotSeat::Random) => BotKind::Random,
                Seat::Bot(BotSeat::Heuristic) => BotKind::Heuristic,
                Seat::Bot(BotSeat::Ismcts) => BotKind::Ismcts(IsmctsConfig {
                    iterations: match ismcts_iterations {
                        0 => game.default_ismcts_iterations(),
                        n => n,
                    },
                    ..IsmctsConfig::default()
                }),
                Seat::Bot(BotSeat::Named) => {
                    let name = names.get(s).and_then(Option::as_deref).unwrap_or("");
                    name.parse()
                        .map_err(|e| format!("seat {s}'s bot {name:?}: {e}"))?
                }
            };
            Ok(Some(held(bot, game, limits)))
        })
        .collect()
}

/// A stored bot name (a timeout's stand-in) back, held to `limits`.
///
/// # Errors
/// A name that no longer parses, in words for the operator's log.
pub fn stored_bot(name: &str, game: &AnyGame, limits: BotLimits) -> Result<BotKind, String> {
    let bot: BotKind = name
        .parse()
        .map_err(|e| format!("the stand-in bot {name:?}: {e}"))?;
    Ok(held(bot, game, limits))
}

/// Whether `bot` is slow enough to be played only on the bot workers, never on a request's
/// thread (a search: IS-MCTS, rollouts, PIMC's solves).
pub fn is_slow(bot: &BotKind) -> bool {
    matches!(
        bot,
        BotKind::Ismcts(_) | BotKind::Rollout(_) | BotKind::Pimc(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(name: &str) -> AnyGame {
        cardhouse::new_game(name, &cardhouse::Options::new()).unwrap()
    }

    #[test]
    fn every_bot_the_engine_knows_may_sit_within_the_limits() {
        let limits = BotLimits {
            max_ismcts_iterations: 500,
            max_rollout_samples: 50,
            max_pimc_worlds: 30,
        };
        let jass = game("jass");
        for name in [
            "random",
            "heuristic",
            "ismcts",
            "ismcts:500",
            "rollout:50",
            "pimc",
            "pimc:30",
            "policy:jass",
        ] {
            assert!(bot_for(name, &jass, limits).is_ok(), "{name}");
        }
        let over = bot_for("ismcts:501", &jass, limits)
            .unwrap_err()
            .to_string();
        assert!(
            over.contains("--max-ismcts-iterations") && over.contains("500"),
            "{over}"
        );
        let over = bot_for("rollout", &jass, limits).unwrap_err().to_string();
        assert!(
            over.contains("--max-rollout-samples") && over.contains("50"),
            "{over}"
        );
        let over = bot_for("pimc:31", &jass, limits).unwrap_err().to_string();
        assert!(
            over.contains("--max-pimc-worlds") && over.contains("30"),
            "{over}"
        );
        // Cribbage's default search is 1,000 iterations: over this server's limit.
        let over = bot_for("ismcts", &game("cribbage"), limits)
            .unwrap_err()
            .to_string();
        assert!(over.contains("1000"), "{over}");
        let other = bot_for("policy:cribbage", &jass, limits)
            .unwrap_err()
            .to_string();
        assert!(other.contains("cribbage"), "{other}");
        let unknown = bot_for("alphazero", &jass, limits).unwrap_err().to_string();
        assert!(unknown.contains("rollout"), "{unknown}");
    }

    #[test]
    fn a_stored_match_is_held_to_lowered_limits() {
        let limits = BotLimits {
            max_ismcts_iterations: 10,
            max_rollout_samples: 5,
            max_pimc_worlds: 7,
        };
        let seats = [
            Seat::Human,
            Seat::Bot(BotSeat::Named),
            Seat::Bot(BotSeat::Ismcts),
            Seat::Bot(BotSeat::Named),
            Seat::Bot(BotSeat::Named),
        ];
        let names = [
            None,
            Some("ismcts:400".into()),
            None,
            Some("rollout:300".into()),
            Some("pimc:100".into()),
        ];
        let bots = seat_bots(&seats, &names, &game("jass"), 0, limits).unwrap();
        let shown: Vec<String> = bots.iter().flatten().map(ToString::to_string).collect();
        assert_eq!(shown, ["ismcts:10", "ismcts:10", "rollout:5", "pimc:7"]);
        let broken = [None, Some("nonsense".into()), None, None, None];
        assert!(seat_bots(&seats, &broken, &game("jass"), 0, limits).is_err());
    }
}
