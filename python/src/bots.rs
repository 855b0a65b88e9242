//! `cardhouse.bots`: the engine's bots ([`cardhouse::bots`]) for Python.
//!
//! Registered on `cardhouse._core` as `_Bot` and `_make_bot`; `cardhouse/bots.py` exposes
//! `random`, `heuristic`, `ismcts` and the `Bot` type.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cardhouse::bots::{BotKind, IsmctsConfig, Policy};
use cardhouse::{Player, SeededRng};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args::{F64, I64, MAX_TIME_BUDGET, U64};
use crate::classes::{PyGame, PyState};
use crate::errors::{Kind, ResultExt, new_err};

/// A bot: decides for one seat from what that seat knows only (never from hidden cards),
/// deterministically for its seed and the sequence of calls.
///
/// ``bot.act(state)`` (or ``bot(state)``, the form Gymnasium opponents take) returns the
/// action id it chooses for the seat to act; the state is not changed.
#[pyclass(name = "Bot", module = "cardhouse.bots")]
pub(crate) struct PyBot {
    kind: BotKind,
    game: Option<String>,
    rng: Mutex<SeededRng>,
    time_budget: Option<Duration>,
    seed: u64,
}

/// The bot of `value`: a bot name (``"heuristic"``, ``"policy:jass"``, ...) or a ``Bot``.
pub(crate) fn bot_kind(value: &Bound<'_, PyAny>) -> PyResult<BotKind> {
    if let Ok(bot) = value.cast::<PyBot>() {
        return Ok(bot.borrow().kind.clone());
    }
    if let Ok(name) = value.extract::<String>() {
        return name.parse::<BotKind>().py();
    }
    Err(new_err(
        Kind::InvalidOption,
        format!(
            "a bot must be a name (random, heuristic, ismcts, ismcts:N, rollout:N, pimc:N, \
             policy:NAME) or a cardhouse.bots.Bot, not {}",
            value.get_type().name()?
        ),
    ))
}

#[pymethods]
impl PyBot {
    /// The bot's name: ``random``, ``heuristic``, ``ismcts``, ``ismcts:N``, ``rollout:N``,
    /// ``pimc:N`` or ``policy:NAME``.
    #[getter]
    fn name(&self) -> String {
        self.kind.to_string()
    }

    /// For a policy bot, ``{"name", "game", "info", "parameters", "hint_bonus"}`` (what its
    /// file says; ``hint_bonus`` is None unless it takes the heuristic's action as input);
    /// None for the other bots.
    #[getter]
    fn policy_info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let BotKind::Policy(p) = &self.kind else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("name", p.name())?;
        d.set_item("game", p.game())?;
        d.set_item("info", p.info())?;
        d.set_item("parameters", p.num_parameters())?;
        d.set_item("hint_bonus", p.hint_bonus())?;
        Ok(Some(d))
    }

    /// For a policy bot, the logits of its network for ``observation`` (one per action id,
    /// float32), as the engine computes them, with ``hint`` the heuristic's action for a
    /// policy that takes it; None for the other bots.
    ///
    /// Raises:
    ///     BufferSizeError: the observation does not have the game's length.
    ///     InvalidOptionError: the policy takes a hint and none was given.
    #[pyo3(signature = (observation, hint=None))]
    fn policy_logits<'py>(
        &self,
        py: Python<'py>,
        observation: Vec<f32>,
        hint: Option<u32>,
    ) -> PyResult<Option<Bound<'py, PyArray1<f32>>>> {
        let BotKind::Policy(p) = &self.kind else {
            return Ok(None);
        };
        let logits = p.logits(&observation, hint).py()?;
        Ok(Some(PyArray1::from_vec(py, logits)))
    }

    /// The action id this bot chooses for ``seat`` (default: the seat to act) at ``state``.
    ///
    /// Raises:
    ///     IllegalActionError: the seat is not to act (or the game is over).
    ///     InvalidOptionError: the state is of another game than the bot was made for.
    #[pyo3(signature = (state, seat=None))]
    fn act(&self, py: Python<'_>, state: &PyState, seat: Option<I64>) -> PyResult<u32> {
        let s = &state.state;
        let seat = match seat {
            Some(p) => Some(crate::convert::seat(p.0, s.game().num_players())?),
            None => None,
        };
        self.choose(py, s, seat)
    }

    /// ``bot(state, rng=None)``: the same as ``bot.act(state)``, in the form of a
    /// ``cardhouse.gymnasium`` opponent policy (``rng`` is ignored: the bot has its own).
    #[pyo3(signature = (state, rng=None))]
    fn __call__(&self, py: Python<'_>, state: &PyState, rng: Option<Py<PyAny>>) -> PyResult<u32> {
        let _ = rng;
        self.act(py, state, None)
    }

    fn __repr__(&self) -> String {
        let mut out = format!("Bot({}, seed={}", self.kind, self.seed);
        if let Some(g) = &self.game {
            out.push_str(&format!(", game={g:?}"));
        }
        if let Some(b) = self.time_budget {
            out.push_str(&format!(", time_budget={}", b.as_secs_f64()));
        }
        out.push(')');
        out
    }
}

impl PyBot {
    /// The action this bot chooses at `s` for `seat` (default: the seat to act), drawing
    /// from its own generator, within its time budget, without the GIL.
    pub(crate) fn choose(
        &self,
        py: Python<'_>,
        s: &cardhouse::AnyState,
        seat: Option<usize>,
    ) -> PyResult<u32> {
        if let Some(name) = &self.game
            && s.game().name() != name
        {
            return Err(new_err(
                Kind::InvalidOption,
                format!(
                    "this bot was made for {name}; the state is a {} state",
                    s.game().name()
                ),
            ));
        }
        let seat = match (seat, s.current_player()) {
            (Some(seat), _) => seat,
            (None, Player::Seat(seat)) => seat,
            (None, Player::Chance) => {
                return Err(new_err(
                    Kind::IllegalAction,
                    "a chance event is pending: no seat is to act".into(),
                ));
            }
            (None, Player::Terminal) => {
                return Err(new_err(
                    Kind::IllegalAction,
                    "the game is over: no seat is to act".into(),
                ));
            }
        };
        // The generator is copied out and back: no lock is held while the GIL is released
        // (another thread waiting for it with the GIL held would deadlock).
        let poisoned = |_| new_err(Kind::Cardhouse, "the bot's generator is poisoned".into());
        let mut local = self.rng.lock().map_err(poisoned)?.clone();
        let kind = &self.kind;
        let budget = self.time_budget;
        let chosen = py.detach(|| {
            let start = Instant::now();
            let mut stop = || budget.is_some_and(|b| start.elapsed() >= b);
            s.bot_action(kind, seat, &mut local, &mut stop)
        });
        *self.rng.lock().map_err(poisoned)? = local;
        chosen.py()
    }
}

/// Makes a bot (use ``cardhouse.bots.random`` / ``heuristic`` / ``ismcts``).
#[pyfunction]
#[pyo3(
    name = "_make_bot",
    signature = (kind, game=None, seed=U64(0), iterations=None, time_budget=None),
    text_signature = "(kind, game=None, seed=0, iterations=None, time_budget=None)"
)]
pub(crate) fn make_bot(
    kind: &str,
    game: Option<PyRef<'_, PyGame>>,
    seed: U64,
    iterations: Option<I64>,
    time_budget: Option<F64>,
) -> PyResult<PyBot> {
    let seed = seed.0;
    let mut kind: BotKind = kind.parse().py()?;
    if let Some(I64(n)) = iterations {
        match kind {
            BotKind::Ismcts(_) if (1..=1_000_000).contains(&n) => {
                kind = BotKind::Ismcts(IsmctsConfig {
                    iterations: n as u32,
                    ..IsmctsConfig::default()
                });
            }
            BotKind::Ismcts(_) => {
                return Err(new_err(
                    Kind::InvalidOption,
                    format!("iterations={n}: allowed 1 to 1000000"),
                ));
            }
            _ => {
                return Err(new_err(
                    Kind::InvalidOption,
                    format!("iterations apply to the ismcts bot only, not to {kind}"),
                ));
            }
        }
    }
    let time_budget = match time_budget {
        None => None,
        Some(F64(t)) => Some(time_budget_of(t).map_err(|e| new_err(Kind::InvalidOption, e))?),
    };
    Ok(PyBot {
        kind,
        game: game.map(|g| g.game.name().to_owned()),
        rng: Mutex::new(SeededRng::new(seed)),
        time_budget,
        seed,
    })
}

/// A time budget from 0 (excluded) to [`MAX_TIME_BUDGET`] seconds (`Duration` cannot hold
/// every float: `1e20` seconds would panic).
fn time_budget_of(seconds: f64) -> Result<Duration, String> {
    if seconds > 0.0 && seconds <= MAX_TIME_BUDGET {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(format!(
            "time_budget={seconds}: give a number of seconds above 0 and at most \
             {MAX_TIME_BUDGET}, or None"
        ))
    }
}

/// A policy bot from the bytes of a policy file (use ``cardhouse.bots.policy``).
#[pyfunction]
#[pyo3(name = "_load_policy", signature = (data, game=None))]
pub(crate) fn load_policy(data: &[u8], game: Option<PyRef<'_, PyGame>>) -> PyResult<PyBot> {
    let policy = Policy::from_bytes(data).py()?;
    let kind = BotKind::Policy(Arc::new(policy));
    if let Some(g) = &game {
        kind.check_game(&g.game).py()?;
    }
    Ok(PyBot {
        kind,
        game: game.map(|g| g.game.name().to_owned()),
        rng: Mutex::new(SeededRng::new(0)),
        time_budget: None,
        seed: 0,
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.setattr("_Bot", py.get_type::<PyBot>())?;
    m.setattr("_load_policy", wrap_pyfunction!(load_policy, m)?)?;
    // Private names stay out of the module's `__all__` (set, not added).
    m.setattr("_make_bot", wrap_pyfunction!(make_bot, m)?)?;
    Ok(())
}
