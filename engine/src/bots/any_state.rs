//! The bots on a state of any game ([`AnyState`]): the dispatch from the registry's enum
//! to the bots, which are generic over the State API. Here, not in the registry, so that the
//! registry knows nothing of bots (bots build on it: the arena, the shipped policies).

use crate::registry::{match_state, on_state};
use crate::{Action, AnyState, Error, Rng};

impl AnyState {
    /// The action `bot` chooses for `seat` (to act), from what `seat` knows only; see
    /// [`crate::bots`]. `stop` ends an ISMCTS search early (a time budget; `|| false` for
    /// none).
    ///
    /// # Errors
    /// As [`crate::bots::choose`].
    pub fn bot_action<R: Rng + ?Sized>(
        &self,
        bot: &crate::bots::BotKind,
        seat: usize,
        rng: &mut R,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Action, Error> {
        on_state!(self, s => crate::bots::choose(bot, s, seat, rng, stop))
    }

    /// The root statistics of an ISMCTS search for `seat` (to act), from what `seat` knows
    /// only: see [`crate::bots::ismcts::search_root`]. Draws from `rng` as the `ismcts` bot
    /// of the same `config` does.
    ///
    /// # Errors
    /// [`Error::WrongNode`] if `seat` is not to act; otherwise as
    /// [`crate::bots::ismcts::search_root`].
    pub fn ismcts_root<R: Rng + ?Sized>(
        &self,
        config: &crate::bots::IsmctsConfig,
        seat: usize,
        rng: &mut R,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<crate::bots::RootEdge>, Error> {
        on_state!(self, s => {
            crate::game::expect_turn(s, seat)?;
            crate::bots::ismcts::search_root(s, seat, config, rng, stop)
        })
    }

    /// The estimates of the `rollout` bot for every legal action of `seat` (to act), from
    /// what `seat` knows only: see [`crate::bots::rollout::root_values`]. Draws from `rng`
    /// as the `rollout` bot of the same `config` does.
    ///
    /// # Errors
    /// [`Error::WrongNode`] if `seat` is not to act; otherwise as
    /// [`crate::bots::rollout::root_values`].
    pub fn rollout_root<R: Rng + ?Sized>(
        &self,
        config: &crate::bots::RolloutConfig,
        seat: usize,
        rng: &mut R,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<crate::bots::rollout::ActionValue>, Error> {
        on_state!(self, s => {
            crate::game::expect_turn(s, seat)?;
            crate::bots::rollout::root_values(s, seat, config, rng, stop)
        })
    }

    /// The mean values of the `pimc` bot for every legal action of `seat` (to act), from
    /// what `seat` knows only: see [`crate::bots::pimc::root_values`]. Draws from `rng` as
    /// the `pimc` bot of the same `config` does.
    ///
    /// # Errors
    /// [`Error::WrongNode`] if `seat` is not to act; otherwise as
    /// [`crate::bots::pimc::root_values`].
    pub fn pimc_root<R: Rng + ?Sized>(
        &self,
        config: &crate::bots::PimcConfig,
        seat: usize,
        rng: &mut R,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<crate::bots::pimc::WorldValue>, Error> {
        on_state!(self, s => {
            crate::game::expect_turn(s, seat)?;
            crate::bots::pimc::root_values(s, seat, config, rng, stop)
        })
    }
}
