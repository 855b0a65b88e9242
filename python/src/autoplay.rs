//! `State.play_until`: the engine's play-until-a-decision loop
//! ([`cardhouse::bots::autoplay::play_until`]) for Python, with chance drawn from a Python
//! seed or generator and seats played by `cardhouse.bots.Bot`s or by Python callables. The
//! Gymnasium, PettingZoo and RLlib wrappers run their other seats through it.

use cardhouse::bots::autoplay::{Autoplay, Until, play_until};
use cardhouse::{Action, AnyState, SeededRng};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::bots::PyBot;
use crate::classes::PyState;
use crate::errors::{Kind, new_err, to_py};
use crate::rng::{PyRng, RngSource, seed_u64};

/// Who plays a seat in `play_until`.
enum Seat<'py> {
    /// The seat decides itself: the loop stops when it is to act.
    Decides,
    /// A `cardhouse.bots.Bot`: its own generator, its own time budget, no GIL while it thinks.
    Bot(Bound<'py, PyBot>),
    /// A callable `(state, rng) -> action id`, given a copy of the state and the call's `rng`.
    Call(Bound<'py, PyAny>),
}

/// An error of the loop: the engine's, or one a Python player raised.
struct Failed(PyErr);

impl From<cardhouse::Error> for Failed {
    fn from(e: cardhouse::Error) -> Failed {
        Failed(to_py(e))
    }
}

/// The chance and the seats of one `play_until` call.
struct PyAutoplay<'py> {
    seats: Vec<Seat<'py>>,
    /// What the call's `rng` was: a generator drawn from at every chance step, or (an int) a
    /// generator seeded once for the whole call.
    rng: Bound<'py, PyAny>,
    seeded: Option<SeededRng>,
}

impl Autoplay for PyAutoplay<'_> {
    type Error = Failed;

    fn plays(&self, seat: usize) -> bool {
        !matches!(self.seats.get(seat), None | Some(Seat::Decides))
    }

    fn chance(&mut self, state: &mut AnyState) -> Result<Option<Action>, Failed> {
        match self.seeded.as_mut() {
            Some(rng) => state.resolve_chance(rng)?,
            // As `State.resolve_chance(rng)` does: a cardhouse.Rng runs on, a NumPy or
            // stdlib generator gives one seed per chance step.
            None => RngSource::extract(&self.rng)
                .map_err(Failed)?
                .run(|r| state.resolve_chance(r))?,
        }
        Ok(None)
    }

    fn bot(
        &mut self,
        state: &AnyState,
        seat: usize,
        _stop: &mut dyn FnMut() -> bool,
    ) -> Result<Action, Failed> {
        match &self.seats[seat] {
            Seat::Decides => Err(Failed(new_err(
                Kind::Cardhouse,
                format!("seat {seat} decides itself"),
            ))),
            Seat::Bot(bot) => bot
                .borrow()
                .choose(bot.py(), state, Some(seat))
                .map_err(Failed),
            Seat::Call(f) => {
                let copy = Bound::new(f.py(), PyState::new(state.clone())).map_err(Failed)?;
                let chosen = f.call1((copy, &self.rng)).map_err(Failed)?;
                chosen.extract::<Action>().map_err(|_| {
                    Failed(new_err(
                        Kind::IllegalAction,
                        format!("the player of seat {seat} returned {chosen}, not an action id"),
                    ))
                })
            }
        }
    }
}

/// Plays chance and the seats' players on `state` until a seat whose player is `None` is to
/// act or the game ends; returns the number of actions applied (chance outcomes included).
pub(crate) fn play(
    state: &mut PyState,
    players: &[Bound<'_, PyAny>],
    rng: &Bound<'_, PyAny>,
) -> PyResult<usize> {
    if players.len() != state.players {
        return Err(new_err(
            Kind::InvalidOption,
            format!(
                "{} players given: the game has {} seats, give one per seat (None for a seat \
                 that decides itself)",
                players.len(),
                state.players
            ),
        ));
    }
    let seats = players
        .iter()
        .enumerate()
        .map(|(s, p)| {
            if p.is_none() {
                Ok(Seat::Decides)
            } else if let Ok(bot) = p.cast::<PyBot>() {
                Ok(Seat::Bot(bot.clone()))
            } else if p.is_callable() {
                Ok(Seat::Call(p.clone()))
            } else {
                Err(new_err(
                    Kind::InvalidOption,
                    format!(
                        "the player of seat {s} must be None, a cardhouse.bots.Bot or a \
                         callable (state, rng) -> action id, not {}",
                        p.get_type().name()?
                    ),
                ))
            }
        })
        .collect::<PyResult<Vec<_>>>()?;
    // An int seeds one generator for the whole call (so that not every chance step draws
    // the same); generators are drawn from at each step, as `resolve_chance` does. Checked
    // now, before anything is played, without drawing from the generator.
    let seeded = if rng.cast::<PyRng>().is_ok() {
        None
    } else if rng.is_instance_of::<PyInt>() || rng.hasattr("__index__")? {
        Some(SeededRng::new(seed_u64(rng)?))
    } else if (rng.hasattr("bit_generator")? && rng.hasattr("integers")?)
        || rng.hasattr("getrandbits")?
    {
        None
    } else {
        return Err(PyTypeError::new_err(format!(
            "rng must be a seed (int from 0 to 2**64-1), a cardhouse.Rng, a \
             numpy.random.Generator or a random.Random, not {}",
            rng.get_type()
        )));
    };
    let mut auto = PyAutoplay {
        seats,
        rng: rng.clone(),
        seeded,
    };
    state.legal = None;
    play_until(&mut state.state, &mut auto, &mut Until::default())
        .map(|played| played.actions)
        .map_err(|Failed(e)| e)
}
