//! `cardhouse.VectorEnv`: many games stepped per call, entirely in Rust with the GIL released.

mod core;

use cardhouse::bots::{BotKind, IsmctsConfig, RolloutConfig};
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use self::core::{Core, EnvError, Out};
use crate::args::{I64, MAX_ENVS, MAX_THREADS, U64, action_ids, within, zeros1, zeros2, zeros3};
use crate::bots::bot_kind;
use crate::classes::{PyGame, PyState};
use crate::convert::options_from_dict;
use crate::errors::{Kind, ResultExt, new_err, to_py_with};
use crate::rng::seed_u64;
use cardhouse::seeds::{env_bot_seed as bot_seed, env_seed};

/// Many games of one kind stepped together, entirely in Rust with the GIL released.
///
/// Every call fills NumPy arrays that this object owns (no views of engine memory) and
/// returns them; the next call overwrites them in place, so copy what you keep
/// (``obs.copy()``):
///
/// * ``observations``: float32 ``(num_envs, *observation_shape)``, the observation of the
///   seat to act in each env;
/// * ``legal_action_masks``: bool ``(num_envs, num_distinct_actions)``;
/// * ``current_players``: int32 ``(num_envs,)``, the seat to act (always a learner seat);
/// * ``rewards``: float32 ``(num_envs, num_players)``, every seat's reward of the step;
/// * ``dones``: bool ``(num_envs,)``, True where the step ended a game;
/// * ``final_observations``: float32 ``(num_envs, num_players, *observation_shape)``: where
///   ``dones`` is True, every seat's observation of the finished game's terminal state
///   (other rows hold stale values);
/// * ``heuristic_actions``: int32 ``(num_envs,)``, with ``hints=True``, the action the game's
///   heuristic bot would choose for the seat to act (-1 otherwise), drawn with a generator
///   of its own per env (seed ``VectorEnv.bot_seed(seed, i, num_players)``).
///
/// **Learners and bots.** ``bots`` gives seats to the engine's bots (``{1: "heuristic",
/// 3: "heuristic"}``; names as ``cardhouse.bots``: ``random``, ``heuristic``, ``ismcts``,
/// ``ismcts:N``, ``policy:NAME``, or a ``cardhouse.bots.Bot``). Their moves are played inside
/// the call (GIL released), so every row returned is a decision of a learner seat: the
/// seats without a bot. Without ``bots`` every seat is a learner (self-play) and
/// ``current_players`` tells whose decision each row is. A bot decides from its seat's
/// knowledge only, as everywhere in cardhouse.
///
/// **Auto-reset.** When a step ends the game of an env (on the learner's move or on a bot's
/// move after it), that env reports the game's returns in ``rewards`` (rewards are 0 until a
/// game ends: the step's ``rewards`` are the finished game's returns), ``done=True`` and
/// every seat's terminal observation in ``final_observations``; it is then reset: a new game
/// is created and dealt, the bots play until a learner is to act, and the observation, mask
/// and current player written for the env are those of the *new* game. (Were a game to end
/// before any learner decided, its returns would be added to the same row.)
///
/// **Randomness.** Chance events (deals) are resolved inside with one generator per env:
/// env ``i`` uses ``cardhouse.Rng(VectorEnv.env_seed(seed, i))`` for all its games, one
/// after another, and the bot on seat ``s`` of env ``i`` draws from its own generator,
/// seeded ``VectorEnv.bot_seed(seed, i, s)`` (as ``cardhouse.bots.heuristic(seed=...)``
/// would be). So ``seed`` reproduces the whole run, env ``i``'s games do not depend on
/// ``num_envs`` or ``num_threads``, and ``reset(seed=s)`` reseeds every env as the
/// constructor does; ``reset()`` continues the streams.
///
/// The constructor deals the first games, so ``step`` may be called at once. The first
/// ``reset()`` without a seed (before any step) returns those deals rather than dealing
/// again, so ``VectorEnv(name, n, s).reset()`` equals ``reset(seed=s)``.
///
/// Args:
///     name: a registered game name.
///     num_envs: number of games, 1 to 2**24.
///     seed: an int from 0 to 2**64-1.
///     num_threads: split every call over this many threads (scoped to the call: no pool
///         outlives it, so forking is safe). 1 (the default) steps in the calling thread;
///         more pays off from a few hundred envs per thread. Results do not depend on it.
///         At most 1024.
///     bots: ``{seat: bot}`` for the seats the engine plays; at least one seat must be left
///         to the learner. None (the default): every seat learns.
///     hints: also compute ``heuristic_actions`` (one heuristic decision per row).
///     **options: game options, as for ``cardhouse.new_game``.
///
/// Raises:
///     UnknownGameError, InvalidOptionError: as ``cardhouse.new_game``, or a bad ``bots``
///         entry (unknown name, no such seat, every seat a bot, a policy of another game).
///     ValueError: ``num_envs``, ``seed`` or ``num_threads`` out of range.
///     MemoryError: not enough memory for ``num_envs`` games and their arrays.
#[pyclass(module = "cardhouse", name = "VectorEnv")]
#[derive(Debug)]
pub struct PyVectorEnv {
    core: Core,
    /// True while the envs hold the constructor's deals, with no step or reset since: a
    /// `reset()` without a seed then keeps them.
    fresh: bool,
    obs: Py<PyArray2<f32>>,
    mask: Py<PyArray2<bool>>,
    player: Py<PyArray1<i32>>,
    rewards: Py<PyArray2<f32>>,
    done: Py<PyArray1<bool>>,
    final_obs: Py<PyArray3<f32>>,
    hint: Py<PyArray1<i32>>,
}

impl PyVectorEnv {
    /// Runs `f` on the core and the output arrays without the GIL.
    fn with_out<T: Send>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut Core, Out<'_>) -> T + Send,
    ) -> PyResult<T> {
        let busy = |_| {
            new_err(
                Kind::BufferSize,
                "an output array is borrowed elsewhere".to_owned(),
            )
        };
        let mut obs = self.obs.bind(py).try_readwrite().map_err(busy)?;
        let mut mask = self.mask.bind(py).try_readwrite().map_err(busy)?;
        let mut player = self.player.bind(py).try_readwrite().map_err(busy)?;
        let mut rewards = self.rewards.bind(py).try_readwrite().map_err(busy)?;
        let mut done = self.done.bind(py).try_readwrite().map_err(busy)?;
        let mut final_obs = self.final_obs.bind(py).try_readwrite().map_err(busy)?;
        let mut hint = self.hint.bind(py).try_readwrite().map_err(busy)?;
        let layout = |_| {
            new_err(
                Kind::BufferSize,
                "an output array lost its layout".to_owned(),
            )
        };
        let out = Out {
            obs: obs.as_slice_mut().map_err(layout)?,
            mask: mask.as_slice_mut().map_err(layout)?,
            player: player.as_slice_mut().map_err(layout)?,
            rewards: rewards.as_slice_mut().map_err(layout)?,
            done: done.as_slice_mut().map_err(layout)?,
            final_obs: final_obs.as_slice_mut().map_err(layout)?,
            hint: hint.as_slice_mut().map_err(layout)?,
        };
        // A caller may have resized an array in place (`ndarray.resize(..., refcheck=False)`).
        let (n, d) = (self.core.envs.len(), self.core.dims);
        if out.obs.len() != n * d.obs_len
            || out.mask.len() != n * d.num_actions
            || out.player.len() != n
            || out.rewards.len() != n * d.players
            || out.done.len() != n
            || out.final_obs.len() != n * d.players * d.obs_len
            || out.hint.len() != n
        {
            return Err(new_err(
                Kind::BufferSize,
                "an output array was resized; the VectorEnv cannot write to it".to_owned(),
            ));
        }
        let core = &mut self.core;
        Ok(py.detach(|| f(core, out)))
    }

    fn arrays<'py>(&self, py: Python<'py>, with_step: bool) -> PyResult<Bound<'py, PyTuple>> {
        if with_step {
            (
                self.obs.bind(py),
                self.mask.bind(py),
                self.player.bind(py),
                self.rewards.bind(py),
                self.done.bind(py),
            )
                .into_pyobject(py)
        } else {
            (self.obs.bind(py), self.mask.bind(py), self.player.bind(py)).into_pyobject(py)
        }
    }
}

#[pymethods]
impl PyVectorEnv {
    #[new]
    // The arguments are the Python constructor's, keyword by keyword.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(
        signature = (name, num_envs, seed, *, num_threads = I64(1), bots = None, hints = false, **options),
        text_signature = "(name, num_envs, seed, *, num_threads=1, bots=None, hints=False, **options)"
    )]
    fn new(
        py: Python<'_>,
        name: &str,
        num_envs: I64,
        seed: &Bound<'_, PyAny>,
        num_threads: I64,
        bots: Option<&Bound<'_, PyDict>>,
        hints: bool,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let num_envs = within("num_envs", num_envs.0, 1, MAX_ENVS)?;
        let num_threads = within("num_threads", num_threads.0, 1, MAX_THREADS)?;
        let seed = seed_u64(seed)?;
        let game = cardhouse::new_game(name, &options_from_dict(options)?).py()?;
        let obs_len = game.observation_len();
        let num_actions = game.num_distinct_actions();
        let players = game.num_players();
        let bots = seat_bots(&game, bots)?;
        // The output arrays come from numpy.zeros, so memory NumPy cannot get is a
        // MemoryError.
        let mut env = PyVectorEnv {
            obs: zeros2(py, num_envs, obs_len, "float32")?.unbind(),
            mask: zeros2(py, num_envs, num_actions, "bool")?.unbind(),
            player: zeros1(py, num_envs, "int32")?.unbind(),
            rewards: zeros2(py, num_envs, players, "float32")?.unbind(),
            done: zeros1(py, num_envs, "bool")?.unbind(),
            final_obs: zeros3(py, [num_envs, players, obs_len], "float32")?.unbind(),
            hint: zeros1(py, num_envs, "int32")?.unbind(),
            core: Core::new(game, num_envs, seed, num_threads, bots, hints)?,
            fresh: true,
        };
        env.with_out(py, |core, out| core.reset(out))?
            .map_err(env_error)?;
        Ok(env)
    }

    /// The seed of env ``index``'s generator in a vector seeded with ``seed``:
    /// ``cardhouse.Rng(VectorEnv.env_seed(seed, i))`` resolves the chance events of env
    /// ``i``, game after game.
    #[staticmethod]
    fn env_seed(seed: U64, index: U64) -> u64 {
        env_seed(seed.0, index.0)
    }

    /// The seed of the generator of the bot on ``seat`` of env ``index`` in a vector
    /// seeded with ``seed``: ``cardhouse.bots.heuristic(game, seed=VectorEnv.bot_seed(seed,
    /// i, s))`` makes the same moves as that bot.
    #[staticmethod]
    fn bot_seed(seed: U64, index: U64, seat: U64) -> u64 {
        bot_seed(seed.0, index.0, seat.0)
    }

    /// Starts a new game in every env (deals resolved) and returns
    /// ``(observations, legal_action_masks, current_players)``. Rewards and dones are zeroed.
    ///
    /// Args:
    ///     seed: if given, reseeds every env's generator as the constructor does; otherwise
    ///         the generators continue (except that the first ``reset()`` after
    ///         construction, before any step, keeps the constructor's deals).
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        if let Some(seed) = seed {
            let seed = seed_u64(seed)?;
            self.core.reseed(seed);
        } else if self.fresh {
            // Keep the constructor's deals: `VectorEnv(..., seed).reset()` starts the streams.
            self.fresh = false;
            return self.arrays(py, false);
        }
        let result = self.with_out(py, |core, out| core.reset(out))?;
        self.fresh = false;
        result.map_err(env_error)?;
        self.arrays(py, false)
    }

    /// Applies one action per env (for the seat to act there), resolves chance events,
    /// auto-resets finished games, and returns
    /// ``(observations, legal_action_masks, current_players, rewards, dones)``.
    ///
    /// Args:
    ///     actions: ``num_envs`` action ids (a NumPy integer array or a sequence of ints).
    ///
    /// Raises:
    ///     IllegalActionError: an action is illegal in its env; the message names the env
    ///         index and the rule. No env is changed.
    ///     ValueError: ``actions`` has the wrong length or shape.
    ///     TypeError: ``actions`` are not integers (floats are never truncated).
    ///     BufferSizeError: an output array was resized or made read-only by the caller.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        // An int64 C-contiguous 1-d array is used as is; other integer arrays and sequences
        // are converted without truncation; anything else is refused.
        let actions: PyReadonlyArray1<'py, i64> = action_ids(actions)?;
        let actions = actions.as_slice().map_err(|_| {
            pyo3::exceptions::PyValueError::new_err("actions must be a 1-d contiguous array")
        })?;
        if actions.len() != self.core.envs.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "expected {} actions (one per env), got {}",
                self.core.envs.len(),
                actions.len()
            )));
        }
        let result = self.with_out(py, |core, out| core.step(actions, out))?;
        self.fresh = false;
        result.map_err(env_error)?;
        self.arrays(py, true)
    }

    /// Rollout values, for training targets: for every env and every legal action of the seat
    /// to act there, that seat's return when the action is taken and the game is then
    /// played to its end by ``bot`` (default ``"heuristic"``) on every seat (chance from a copy of the env's generator,
    /// the same draws for every action of an env). Returns a new float32 array
    /// ``(num_envs, num_distinct_actions)``, NaN for illegal actions. The envs do not change.
    ///
    /// The rollouts start from the true state (hidden cards included): they are the
    /// environment simulating outcomes, as any return is; a policy trained on them still
    /// decides from its observation. Use ``scope="deal"`` games (a rollout plays to the end
    /// of the game).
    ///
    /// Raises:
    ///     InvalidOptionError: an unknown bot, or a policy of another game.
    #[pyo3(signature = (bot = None))]
    fn rollout_values<'py>(
        &mut self,
        py: Python<'py>,
        bot: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let kind = match bot {
            Some(b) => bot_kind(b)?,
            None => BotKind::Heuristic,
        };
        kind.check_game(&self.core.game).py()?;
        let (n, a) = (self.core.envs.len(), self.core.dims.num_actions);
        let mut values = vec![0.0f32; n * a];
        let core = &mut self.core;
        py.detach(|| core.rollout_values(&kind, &mut values))
            .map_err(env_error)?;
        numpy::ndarray::Array2::from_shape_vec((n, a), values)
            .map(|arr| PyArray2::from_owned_array(py, arr))
            .map_err(|e| new_err(Kind::Cardhouse, format!("rollout values: {e}")))
    }

    /// The visit counts of an IS-MCTS search (the ``ismcts`` bot's) for the seat to act in
    /// every env, for training targets (expert iteration: a network learns to imitate the
    /// search): a new float32 array ``(num_envs, num_distinct_actions)``, each row the root
    /// visits of the legal actions the search tried (0 elsewhere; a forced move counts one
    /// visit). The bot plays the row's most visited action. Searches run in Rust with the
    /// GIL released, split over ``num_threads``.
    ///
    /// Each search decides from the seat's knowledge only (over states resampled for it,
    /// never the real hidden cards). Env ``i`` searches with a generator of its own, seeded
    /// ``VectorEnv.bot_seed(seed, i, num_players + 1)`` and continued from call to call, so
    /// the counts do not depend on ``num_threads``. The envs' games do not change.
    ///
    /// Args:
    ///     iterations: determinizations per search, 1 to 1,000,000 (default: the game's, as
    ///         the ``ismcts`` bot).
    ///
    /// Raises:
    ///     InvalidOptionError: ``iterations`` out of range.
    #[pyo3(signature = (iterations = None))]
    fn search_visits<'py>(
        &mut self,
        py: Python<'py>,
        iterations: Option<I64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let iterations = match iterations {
            None => 0,
            Some(I64(n)) => u32::try_from(n)
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .ok_or_else(|| {
                    new_err(
                        Kind::InvalidOption,
                        format!("iterations={n}: give 1 to 1000000 (or None for the game's)"),
                    )
                })?,
        };
        let config = IsmctsConfig {
            iterations,
            ..IsmctsConfig::default()
        };
        let (n, a) = (self.core.envs.len(), self.core.dims.num_actions);
        let mut visits = vec![0.0f32; n * a];
        let core = &mut self.core;
        py.detach(|| core.search_visits(&config, &mut visits))
            .map_err(env_error)?;
        numpy::ndarray::Array2::from_shape_vec((n, a), visits)
            .map(|arr| PyArray2::from_owned_array(py, arr))
            .map_err(|e| new_err(Kind::Cardhouse, format!("search visits: {e}")))
    }

    /// The action values of the ``rollout`` bot's search for the seat to act in every env,
    /// for training targets: a new float32 array ``(num_envs, num_distinct_actions)``, each
    /// legal action's mean return (in the game's return units) for the seat over ``samples``
    /// determinizations, played out with the heuristic on every seat after the action (and,
    /// when the seat acts again at once, after its best next action: a Cribbage discard is
    /// judged as a pair), every action on the same determinizations and playout draws. 0 for
    /// the other actions, and for a forced move. The bot plays the legal action of highest
    /// value. Searches run in Rust with the GIL released, split over ``num_threads``.
    ///
    /// Each search decides from the seat's knowledge only (over states resampled for it,
    /// never the real hidden cards), with the generator :meth:`search_visits` uses.
    ///
    /// Args:
    ///     samples: determinizations per search, 1 to 100,000.
    ///     playouts: instead, playouts per search (1 to 10,000,000), shared out among the
    ///         seat's plans (a Cribbage discard has 30 two-card plans, a play at most 5):
    ///         ``playouts // plans`` determinizations, at least one.
    ///     max_actions: search only decisions with at most this many legal actions (the
    ///         others' rows stay 0; default: all).
    ///
    /// Raises:
    ///     InvalidOptionError: ``samples`` or ``playouts`` out of range.
    #[pyo3(
        signature = (samples = I64(100), playouts = None, max_actions = None),
        text_signature = "($self, samples=100, playouts=None, max_actions=None)"
    )]
    fn rollout_search<'py>(
        &mut self,
        py: Python<'py>,
        samples: I64,
        playouts: Option<I64>,
        max_actions: Option<I64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let max_actions = match max_actions {
            None => usize::MAX,
            Some(I64(n)) => usize::try_from(n).map_err(|_| {
                new_err(
                    Kind::InvalidOption,
                    format!("max_actions={n}: give 0 or more"),
                )
            })?,
        };
        let playouts = match playouts {
            None => 0,
            Some(I64(n)) => u32::try_from(n)
                .ok()
                .filter(|n| (1..=10_000_000).contains(n))
                .ok_or_else(|| {
                    new_err(
                        Kind::InvalidOption,
                        format!("playouts={n}: give 1 to 10000000 (or None)"),
                    )
                })?,
        };
        let samples = u32::try_from(samples.0)
            .ok()
            .filter(|n| (1..=100_000).contains(n))
            .ok_or_else(|| {
                new_err(
                    Kind::InvalidOption,
                    format!("samples={}: give 1 to 100000", samples.0),
                )
            })?;
        let config = RolloutConfig {
            samples,
            playouts,
            ..RolloutConfig::default()
        };
        let (n, a) = (self.core.envs.len(), self.core.dims.num_actions);
        let mut values = vec![0.0f32; n * a];
        let core = &mut self.core;
        py.detach(|| core.rollout_search(&config, max_actions, &mut values))
            .map_err(env_error)?;
        numpy::ndarray::Array2::from_shape_vec((n, a), values)
            .map(|arr| PyArray2::from_owned_array(py, arr))
            .map_err(|e| new_err(Kind::Cardhouse, format!("rollout search: {e}")))
    }

    /// A copy of env ``index``'s current state (for inspection; changing it does not change
    /// the env).
    ///
    /// Raises:
    ///     IndexError: no such env.
    fn state(&self, index: I64) -> PyResult<PyState> {
        let index = index.0;
        usize::try_from(index)
            .ok()
            .and_then(|i| self.core.envs.get(i))
            .map(|env| PyState::new(env.state.clone()))
            .ok_or_else(|| {
                pyo3::exceptions::PyIndexError::new_err(format!(
                    "env {index} does not exist; there are {}",
                    self.core.envs.len()
                ))
            })
    }

    /// The game being played.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame {
            game: self.core.game.clone(),
        }
    }

    /// Number of threads each call is split over.
    #[getter]
    fn num_threads(&self) -> usize {
        self.core.threads
    }

    /// Number of envs.
    #[getter]
    fn num_envs(&self) -> usize {
        self.core.envs.len()
    }

    /// Number of seats per game.
    #[getter]
    fn num_players(&self) -> usize {
        self.core.game.num_players()
    }

    /// Size of the action space (columns of ``legal_action_masks``).
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        self.core.game.num_distinct_actions()
    }

    /// Shape of one env's observation.
    #[getter]
    fn observation_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.core.game.observation_shape())
    }

    /// The observations array (overwritten by every call).
    #[getter]
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.obs.bind(py).clone()
    }

    /// The legal action masks array (overwritten by every call).
    #[getter]
    fn legal_action_masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        self.mask.bind(py).clone()
    }

    /// The current players array (overwritten by every call).
    #[getter]
    fn current_players<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        self.player.bind(py).clone()
    }

    /// The rewards array (overwritten by every call).
    #[getter]
    fn rewards<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.rewards.bind(py).clone()
    }

    /// The final observations array ``(num_envs, num_players, *observation_shape)``: where
    /// ``dones`` is True, every seat's observation of the finished game (overwritten by
    /// every call that ends a game).
    #[getter]
    fn final_observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f32>> {
        self.final_obs.bind(py).clone()
    }

    /// With ``hints=True``, int32 ``(num_envs,)``: the action the game's heuristic bot would
    /// choose for the seat to act (a feature for the learner; it decides from that seat's
    /// knowledge only); -1 without hints (overwritten by every call).
    #[getter]
    fn heuristic_actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        self.hint.bind(py).clone()
    }

    /// Whether ``heuristic_actions`` are computed.
    #[getter]
    fn hints(&self) -> bool {
        self.core.hints
    }

    /// The seats the learner plays (those without a bot), ascending.
    #[getter]
    fn learner_seats(&self) -> Vec<usize> {
        (0..self.core.bots.len())
            .filter(|&s| self.core.bots[s].is_none())
            .collect()
    }

    /// ``{seat: bot name}`` for the seats the engine's bots play.
    #[getter]
    fn bots(&self) -> std::collections::BTreeMap<usize, String> {
        self.core
            .bots
            .iter()
            .enumerate()
            .filter_map(|(s, b)| b.as_ref().map(|b| (s, b.to_string())))
            .collect()
    }

    /// The done flags array (overwritten by every call).
    #[getter]
    fn dones<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.done.bind(py).clone()
    }

    fn __repr__(&self) -> String {
        let bots: Vec<String> = self
            .bots()
            .iter()
            .map(|(s, b)| format!("{s}: {b}"))
            .collect();
        let bots = if bots.is_empty() {
            String::new()
        } else {
            format!(", bots {{{}}}", bots.join(", "))
        };
        format!(
            "<cardhouse.VectorEnv {} × {}{bots}>",
            self.core.game.name(),
            self.core.envs.len()
        )
    }
}

/// A Python error for an env's error, naming the env.
fn env_error((i, err): EnvError) -> PyErr {
    to_py_with(&format!("env {i}: "), err)
}

/// Per seat, the bot of `bots` (``{seat: name or Bot}``) or `None` for a learner.
fn seat_bots(
    game: &cardhouse::AnyGame,
    bots: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Option<BotKind>>> {
    let n = game.num_players();
    let mut out = vec![None; n];
    let Some(bots) = bots else {
        return Ok(out);
    };
    for (key, value) in bots.iter() {
        let seat = key
            .extract::<usize>()
            .ok()
            .filter(|&s| s < n)
            .ok_or_else(|| {
                new_err(
                    Kind::InvalidOption,
                    format!(
                        "bots: seat {key} does not exist; {} has seats 0 to {}",
                        game.name(),
                        n - 1
                    ),
                )
            })?;
        let kind = bot_kind(&value)?;
        kind.check_game(game).py()?;
        out[seat] = Some(kind);
    }
    if out.iter().all(Option::is_some) {
        return Err(new_err(
            Kind::InvalidOption,
            format!(
                "bots: every seat of {} is a bot; leave at least one to the learner",
                game.name()
            ),
        ));
    }
    Ok(out)
}
