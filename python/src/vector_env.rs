//! `cardhouse.VectorEnv`: many games stepped per call, entirely in Rust with the GIL released.

use cardhouse::{Action, ActionSet, AnyGame, AnyState, Player, SeededRng};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::args::{I64, MAX_ENVS, MAX_THREADS, U64, action_ids, within, zeros1, zeros2};
use crate::classes::{PyGame, PyState};
use crate::convert::options_from_dict;
use crate::errors::{Kind, ResultExt, new_err, to_py_with};
use crate::rng::seed_u64;

/// SplitMix64 finalizer.
const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of environment `index` of a vector seeded with `seed`.
const fn env_seed(seed: u64, index: u64) -> u64 {
    mix(mix(seed).wrapping_add(index))
}

/// One env: its state, its generator and the cached legal set of the state.
#[derive(Clone, Debug)]
struct Env {
    state: AnyState,
    rng: SeededRng,
    legal: ActionSet,
}

/// Row lengths of the output arrays.
#[derive(Clone, Copy, Debug)]
struct Dims {
    obs_len: usize,
    num_actions: usize,
    players: usize,
}

/// Mutable views of the output arrays (owned by Python objects of the `VectorEnv`), for a
/// contiguous range of envs.
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    player: &'a mut [i32],
    rewards: &'a mut [f32],
    done: &'a mut [bool],
}

impl<'a> Out<'a> {
    /// Splits off the rows of the first `n` envs.
    fn split_at(self, n: usize, dims: Dims) -> (Out<'a>, Out<'a>) {
        let (obs, obs_rest) = self.obs.split_at_mut(n * dims.obs_len);
        let (mask, mask_rest) = self.mask.split_at_mut(n * dims.num_actions);
        let (player, player_rest) = self.player.split_at_mut(n);
        let (rewards, rewards_rest) = self.rewards.split_at_mut(n * dims.players);
        let (done, done_rest) = self.done.split_at_mut(n);
        (
            Out {
                obs,
                mask,
                player,
                rewards,
                done,
            },
            Out {
                obs: obs_rest,
                mask: mask_rest,
                player: player_rest,
                rewards: rewards_rest,
                done: done_rest,
            },
        )
    }
}

/// The Rust side: the game, the envs, and how many threads step them.
#[derive(Debug)]
struct Core {
    game: AnyGame,
    envs: Vec<Env>,
    dims: Dims,
    threads: usize,
}

impl Core {
    fn new(game: AnyGame, num_envs: usize, seed: u64, threads: usize) -> PyResult<Core> {
        let initial = game.new_initial_state();
        // Memory the system refuses is a MemoryError, never an abort.
        let mut envs = crate::args::vec_with_capacity(num_envs, "envs")?;
        envs.extend((0..num_envs).map(|i| Env {
            state: initial.clone(),
            rng: SeededRng::new(env_seed(seed, i as u64)),
            legal: ActionSet::EMPTY,
        }));
        Ok(Core {
            envs,
            dims: Dims {
                obs_len: game.observation_len(),
                num_actions: game.num_distinct_actions(),
                players: game.num_players(),
            },
            threads: threads.clamp(1, num_envs.max(1)),
            game,
        })
    }

    fn reseed(&mut self, seed: u64) {
        for (i, env) in self.envs.iter_mut().enumerate() {
            env.rng = SeededRng::new(env_seed(seed, i as u64));
        }
    }

    /// Runs `f` on consecutive ranges of envs with their output rows, on `self.threads`
    /// scoped threads (no pool outlives the call, so `fork` is safe).
    fn for_ranges<F>(&mut self, out: Out<'_>, f: F)
    where
        F: Fn(&AnyGame, Dims, &mut [Env], Out<'_>, usize) + Sync,
    {
        let (game, dims) = (&self.game, self.dims);
        if self.threads <= 1 {
            f(game, dims, &mut self.envs, out, 0);
            return;
        }
        let per = self.envs.len().div_ceil(self.threads);
        std::thread::scope(|scope| {
            let mut chunks = self.envs.chunks_mut(per);
            // The calling thread takes the first range itself; the others get a thread each.
            let Some(own) = chunks.next() else { return };
            let (own_out, mut rest_out) = out.split_at(own.len(), dims);
            let mut first = own.len();
            for chunk in chunks {
                let (mine, rest) = rest_out.split_at(chunk.len(), dims);
                rest_out = rest;
                let f = &f;
                let start = first;
                first += chunk.len();
                scope.spawn(move || f(game, dims, chunk, mine, start));
            }
            f(game, dims, own, own_out, 0);
        });
    }

    fn reset(&mut self, out: Out<'_>) {
        self.for_ranges(out, |game, dims, envs, mut out, _| {
            for (i, env) in envs.iter_mut().enumerate() {
                reset_env(game, env);
                write_env(dims, env, i, &mut out);
            }
            out.rewards.fill(0.0);
            out.done.fill(false);
        });
    }

    /// Checks every action before changing anything.
    fn check(&self, actions: &[i64]) -> Result<(), (usize, cardhouse::Error)> {
        for (i, (&a, env)) in actions.iter().zip(&self.envs).enumerate() {
            let ok = matches!(env.state.current_player(), Player::Seat(_))
                && Action::try_from(a).is_ok_and(|a| env.legal.contains(a));
            if !ok {
                // Let the engine say why.
                let err = match Action::try_from(a) {
                    Ok(a) => env.state.check_action(a).err(),
                    Err(_) => None,
                };
                return Err((
                    i,
                    err.unwrap_or(cardhouse::Error::UnknownAction {
                        action: a,
                        reason: format!(
                            "action ids are 0 to {}",
                            self.dims.num_actions.saturating_sub(1)
                        ),
                    }),
                ));
            }
        }
        Ok(())
    }

    fn step(&mut self, actions: &[i64], out: Out<'_>) -> Result<(), (usize, cardhouse::Error)> {
        self.check(actions)?;
        self.for_ranges(out, |game, dims, envs, mut out, first| {
            let actions = &actions[first..first + envs.len()];
            for (i, (env, &a)) in envs.iter_mut().zip(actions).enumerate() {
                let state = &mut env.state;
                // Checked above: `a` is legal for the seat to act.
                state.apply_unchecked(a as Action);
                if state.is_chance_node() {
                    // Cannot fail: this is a chance node.
                    let _ = state.resolve_chance(&mut env.rng);
                }
                let rewards = state.rewards();
                let row = &mut out.rewards[i * dims.players..(i + 1) * dims.players];
                for (slot, &r) in row.iter_mut().zip(rewards.iter()) {
                    *slot = r as f32;
                }
                let done = state.is_terminal();
                out.done[i] = done;
                if done {
                    reset_env(game, env);
                }
                write_env(dims, env, i, &mut out);
            }
        });
        Ok(())
    }
}

/// A new game in `env`, chance resolved from its generator.
fn reset_env(game: &AnyGame, env: &mut Env) {
    let mut state = game.new_initial_state();
    // Cannot fail: an initial state is a chance node.
    let _ = state.resolve_chance(&mut env.rng);
    env.state = state;
}

/// Writes observation, mask and player of `env` into row `i` of `out` and caches its legal
/// set.
fn write_env(dims: Dims, env: &mut Env, i: usize, out: &mut Out<'_>) {
    let state = &env.state;
    let legal = state.legal_actions();
    env.legal = legal;
    let obs = &mut out.obs[i * dims.obs_len..(i + 1) * dims.obs_len];
    let mask = &mut out.mask[i * dims.num_actions..(i + 1) * dims.num_actions];
    mask.fill(false);
    let player = state.current_player();
    match player {
        Player::Seat(seat) => {
            for a in legal.iter() {
                if let Some(slot) = mask.get_mut(a as usize) {
                    *slot = true;
                }
            }
            // Cannot fail: the seat exists and the buffer has the game's length.
            if state.write_observation(seat, obs).is_err() {
                obs.fill(0.0);
            }
        }
        _ => obs.fill(0.0),
    }
    out.player[i] = player.to_i32();
}

/// Many games of one kind stepped together, entirely in Rust with the GIL released.
///
/// Every call fills NumPy arrays that this object owns (no views of engine memory) and
/// returns them; the next call overwrites them in place, so copy what you keep
/// (``obs.copy()``):
///
/// * ``observations``: float32 ``(num_envs, *observation_shape)``, the observation of the
///   seat to act in each env;
/// * ``legal_action_masks``: bool ``(num_envs, num_distinct_actions)``;
/// * ``current_players``: int32 ``(num_envs,)``, the seat to act;
/// * ``rewards``: float32 ``(num_envs, num_players)``, every seat's reward of the step;
/// * ``dones``: bool ``(num_envs,)``, True where the step ended a game.
///
/// **Auto-reset.** When a step ends the game of an env, that env reports the terminal
/// rewards (its returns) and ``done=True``, and is immediately reset: a new game is created
/// and dealt, and the observation, mask and current player written for the env are those of
/// the *new* game. The final observation of the finished game is not reported (step a
/// ``State`` yourself if you need it).
///
/// **Randomness.** Chance events (deals) are resolved inside with one generator per env:
/// env ``i`` uses ``cardhouse.Rng(VectorEnv.env_seed(seed, i))`` for all its games, one
/// after another, so ``seed`` reproduces the whole run. ``reset(seed=s)`` reseeds every env
/// as the constructor does; ``reset()`` continues the streams.
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
///     **options: game options, as for ``cardhouse.new_game``.
///
/// Raises:
///     UnknownGameError, InvalidOptionError: as ``cardhouse.new_game``.
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
        };
        // A caller may have resized an array in place (`ndarray.resize(..., refcheck=False)`).
        let (n, d) = (self.core.envs.len(), self.core.dims);
        if out.obs.len() != n * d.obs_len
            || out.mask.len() != n * d.num_actions
            || out.player.len() != n
            || out.rewards.len() != n * d.players
            || out.done.len() != n
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
    #[pyo3(
        signature = (name, num_envs, seed, *, num_threads = I64(1), **options),
        text_signature = "(name, num_envs, seed, *, num_threads=1, **options)"
    )]
    fn new(
        py: Python<'_>,
        name: &str,
        num_envs: I64,
        seed: &Bound<'_, PyAny>,
        num_threads: I64,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let num_envs = within("num_envs", num_envs.0, 1, MAX_ENVS)?;
        let num_threads = within("num_threads", num_threads.0, 1, MAX_THREADS)?;
        let seed = seed_u64(seed)?;
        let game = cardhouse::new_game(name, &options_from_dict(options)?).py()?;
        let obs_len = game.observation_len();
        let num_actions = game.num_distinct_actions();
        let players = game.num_players();
        // The output arrays come from numpy.zeros, so memory NumPy cannot get is a
        // MemoryError.
        let mut env = PyVectorEnv {
            obs: zeros2(py, num_envs, obs_len, "float32")?.unbind(),
            mask: zeros2(py, num_envs, num_actions, "bool")?.unbind(),
            player: zeros1(py, num_envs, "int32")?.unbind(),
            rewards: zeros2(py, num_envs, players, "float32")?.unbind(),
            done: zeros1(py, num_envs, "bool")?.unbind(),
            core: Core::new(game, num_envs, seed, num_threads)?,
            fresh: true,
        };
        env.with_out(py, |core, out| core.reset(out))?;
        Ok(env)
    }

    /// The seed of env ``index``'s generator in a vector seeded with ``seed``:
    /// ``cardhouse.Rng(VectorEnv.env_seed(seed, i))`` resolves the chance events of env
    /// ``i``, game after game.
    #[staticmethod]
    fn env_seed(seed: U64, index: U64) -> u64 {
        env_seed(seed.0, index.0)
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
        self.with_out(py, |core, out| core.reset(out))?;
        self.fresh = false;
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
        if let Err((i, err)) = result {
            return Err(to_py_with(&format!("env {i}: "), err));
        }
        self.arrays(py, true)
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

    /// The done flags array (overwritten by every call).
    #[getter]
    fn dones<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.done.bind(py).clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<cardhouse.VectorEnv {} × {}>",
            self.core.game.name(),
            self.core.envs.len()
        )
    }
}
