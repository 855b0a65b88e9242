//! The `random` bot: uniform over the legal actions.

use crate::{Action, Error, Rng, State};

/// A uniformly random legal action of the seat to act.
///
/// # Errors
/// [`Error::GameOver`] if there is no legal action.
pub fn action<S: State, R: Rng + ?Sized>(state: &S, rng: &mut R) -> Result<Action, Error> {
    state.legal_actions().choose(rng).ok_or(Error::GameOver)
}
