//! The Rust side of `VectorEnv`: the envs, their generators, the bots on their seats, and the
//! stepping (no Python here; the caller releases the GIL around every call).

use cardhouse::bots::autoplay::{Stopped, Streams, Until, play_until};
use cardhouse::bots::{BotKind, IsmctsConfig, RolloutConfig};
use cardhouse::{Action, ActionSet, AnyGame, AnyState, Player, SeededRng, seeds};

/// One env: its state, its generators and the cached legal set of the state.
#[derive(Clone, Debug)]
pub(crate) struct Env {
    pub(crate) state: AnyState,
    rng: SeededRng,
    /// One generator per seat, used by the bot on that seat (if any), then one for the
    /// heuristic's suggestions to the learner (index `players`) and one for the searches of
    /// [`Core::search_visits`] (index `players + 1`).
    bot_rngs: Vec<SeededRng>,
    legal: ActionSet,
}

/// Row lengths of the output arrays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dims {
    pub(crate) obs_len: usize,
    pub(crate) num_actions: usize,
    pub(crate) players: usize,
}

/// Mutable views of the output arrays (owned by Python objects of the `VectorEnv`), for a
/// contiguous range of envs.
pub(crate) struct Out<'a> {
    pub(crate) obs: &'a mut [f32],
    pub(crate) mask: &'a mut [bool],
    pub(crate) player: &'a mut [i32],
    pub(crate) rewards: &'a mut [f32],
    pub(crate) done: &'a mut [bool],
    /// The heuristic's action for the seat to act (-1 without hints).
    pub(crate) hint: &'a mut [i32],
    /// `players × obs_len` per env: the finished game's last observation of every seat.
    pub(crate) final_obs: &'a mut [f32],
}

impl<'a> Out<'a> {
    /// Splits off the rows of the first `n` envs.
    fn split_at(self, n: usize, dims: Dims) -> (Out<'a>, Out<'a>) {
        let (obs, obs_rest) = self.obs.split_at_mut(n * dims.obs_len);
        let (mask, mask_rest) = self.mask.split_at_mut(n * dims.num_actions);
        let (player, player_rest) = self.player.split_at_mut(n);
        let (rewards, rewards_rest) = self.rewards.split_at_mut(n * dims.players);
        let (done, done_rest) = self.done.split_at_mut(n);
        let (hint, hint_rest) = self.hint.split_at_mut(n);
        let (final_obs, final_rest) = self.final_obs.split_at_mut(n * dims.players * dims.obs_len);
        (
            Out {
                obs,
                mask,
                player,
                rewards,
                done,
                hint,
                final_obs,
            },
            Out {
                obs: obs_rest,
                mask: mask_rest,
                player: player_rest,
                rewards: rewards_rest,
                done: done_rest,
                hint: hint_rest,
                final_obs: final_rest,
            },
        )
    }
}

/// An error of one env: its index and the engine's error.
pub(crate) type EnvError = (usize, cardhouse::Error);

/// The Rust side: the game, the envs, the bots, and how many threads step them.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) game: AnyGame,
    pub(crate) envs: Vec<Env>,
    pub(crate) dims: Dims,
    pub(crate) threads: usize,
    /// Per seat: the bot playing it, or `None` for a learner seat.
    pub(crate) bots: Vec<Option<BotKind>>,
    /// Whether the heuristic's action is reported for every learner decision.
    pub(crate) hints: bool,
}

/// What the stepping closures see of the core (shared by the threads).
#[derive(Clone, Copy)]
struct Shared<'a> {
    game: &'a AnyGame,
    dims: Dims,
    bots: &'a [Option<BotKind>],
    hints: bool,
}

impl Core {
    pub(crate) fn new(
        game: AnyGame,
        num_envs: usize,
        seed: u64,
        threads: usize,
        bots: Vec<Option<BotKind>>,
        hints: bool,
    ) -> pyo3::PyResult<Core> {
        let initial = game.new_initial_state();
        let players = game.num_players();
        // Memory the system refuses is a MemoryError, never an abort.
        let mut envs = crate::args::vec_with_capacity(num_envs, "envs")?;
        envs.extend((0..num_envs).map(|_| Env {
            state: initial.clone(),
            rng: SeededRng::new(0),
            bot_rngs: vec![SeededRng::new(0); players + 2],
            legal: ActionSet::EMPTY,
        }));
        let mut core = Core {
            envs,
            dims: Dims {
                obs_len: game.observation_len(),
                num_actions: game.num_distinct_actions(),
                players,
            },
            threads: threads.clamp(1, num_envs.max(1)),
            game,
            bots,
            hints,
        };
        core.reseed(seed);
        Ok(core)
    }

    pub(crate) fn reseed(&mut self, seed: u64) {
        for (i, env) in self.envs.iter_mut().enumerate() {
            env.rng = SeededRng::new(seeds::env_seed(seed, i as u64));
            for (s, r) in env.bot_rngs.iter_mut().enumerate() {
                *r = SeededRng::new(seeds::env_bot_seed(seed, i as u64, s as u64));
            }
        }
    }

    /// Runs `f` on consecutive ranges of envs with their output rows, on `self.threads`
    /// scoped threads (no pool outlives the call, so `fork` is safe). Returns the first
    /// error in env order (`f` gets the index of its first env and reports global indices).
    fn for_ranges<F>(&mut self, out: Out<'_>, f: F) -> Result<(), EnvError>
    where
        F: Fn(Shared<'_>, &mut [Env], Out<'_>, usize) -> Result<(), EnvError> + Sync,
    {
        let shared = Shared {
            game: &self.game,
            dims: self.dims,
            bots: &self.bots,
            hints: self.hints,
        };
        let dims = self.dims;
        if self.threads <= 1 {
            return f(shared, &mut self.envs, out, 0);
        }
        let per = self.envs.len().div_ceil(self.threads);
        std::thread::scope(|scope| {
            let mut chunks = self.envs.chunks_mut(per);
            // The calling thread takes the first range itself; the others get a thread each.
            let Some(own) = chunks.next() else {
                return Ok(());
            };
            let (own_out, mut rest_out) = out.split_at(own.len(), dims);
            let mut first = own.len();
            let mut handles = Vec::new();
            for chunk in chunks {
                let (mine, rest) = rest_out.split_at(chunk.len(), dims);
                rest_out = rest;
                let f = &f;
                let start = first;
                first += chunk.len();
                handles.push(scope.spawn(move || f(shared, chunk, mine, start)));
            }
            let mut result = f(shared, own, own_out, 0);
            for h in handles {
                // A panic in a stepping thread is a bug: propagate it.
                let r = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                if result.is_ok() {
                    result = r;
                }
            }
            result
        })
    }

    /// A new game in every env, the bots' moves played up to the first learner decision.
    pub(crate) fn reset(&mut self, out: Out<'_>) -> Result<(), EnvError> {
        self.for_ranges(out, |sh, envs, mut out, first| {
            out.rewards.fill(0.0);
            out.done.fill(false);
            for (i, env) in envs.iter_mut().enumerate() {
                reset_env(sh.game, env);
                advance(sh, env, i, &mut out).map_err(|e| (first + i, e))?;
                write_env(sh, env, i, &mut out);
            }
            Ok(())
        })
    }

    /// Checks every action before changing anything.
    fn check(&self, actions: &[i64]) -> Result<(), EnvError> {
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

    pub(crate) fn step(&mut self, actions: &[i64], out: Out<'_>) -> Result<(), EnvError> {
        self.check(actions)?;
        self.for_ranges(out, |sh, envs, mut out, first| {
            let actions = &actions[first..first + envs.len()];
            for (i, (env, &a)) in envs.iter_mut().zip(actions).enumerate() {
                out.rewards[i * sh.dims.players..(i + 1) * sh.dims.players].fill(0.0);
                out.done[i] = false;
                // Checked above: `a` is legal for the seat to act.
                env.state.apply_unchecked(a as Action);
                advance(sh, env, i, &mut out).map_err(|e| (first + i, e))?;
                write_env(sh, env, i, &mut out);
            }
            Ok(())
        })
    }
}

impl Core {
    /// For every env and every legal action of the seat to act there: the return of that
    /// seat when the action is taken and the game is then played to its end by `bot` on every
    /// seat, chance drawn from a copy of the env's generator (the same draws for every action
    /// of an env: common random numbers). `out` has `num_actions` values per env; illegal
    /// actions get NaN. Nothing of the envs changes.
    pub(crate) fn rollout_values(
        &mut self,
        bot: &BotKind,
        out: &mut [f32],
    ) -> Result<(), EnvError> {
        self.for_rows(out, |env, row| rollout_env(env, bot, row))
    }

    /// For every env, the root visit counts of an ISMCTS search (`config`) for the seat to
    /// act there, from what that seat knows only, into its row of `out` (`num_actions`
    /// values per env, 0 for actions not tried); a forced move counts one visit. Each env
    /// searches with a generator of its own (the last of its bot generators), so the result
    /// does not depend on the threads. The envs' games do not change.
    pub(crate) fn search_visits(
        &mut self,
        config: &IsmctsConfig,
        out: &mut [f32],
    ) -> Result<(), EnvError> {
        let players = self.dims.players;
        self.for_rows(out, |env, row| {
            row.fill(0.0);
            let Player::Seat(seat) = env.state.current_player() else {
                return Ok(());
            };
            let rng = &mut env.bot_rngs[players + 1];
            for edge in env.state.ismcts_root(config, seat, rng, &mut || false)? {
                if let Some(slot) = row.get_mut(edge.action as usize) {
                    *slot = edge.visits as f32;
                }
            }
            Ok(())
        })
    }

    /// The `rollout` bot's action values for the seat to act in every env (0 for actions
    /// not legal or not sampled, and for every action of a decision with more than
    /// `max_actions` legal ones, not searched), into `out` (`num_actions` per env); the
    /// generator is the one [`Core::search_visits`] uses.
    pub(crate) fn rollout_search(
        &mut self,
        config: &RolloutConfig,
        max_actions: usize,
        out: &mut [f32],
    ) -> Result<(), EnvError> {
        let players = self.dims.players;
        self.for_rows(out, |env, row| {
            row.fill(0.0);
            let Player::Seat(seat) = env.state.current_player() else {
                return Ok(());
            };
            if env.state.legal_actions().len() > max_actions {
                return Ok(());
            }
            let rng = &mut env.bot_rngs[players + 1];
            for v in env.state.rollout_root(config, seat, rng, &mut || false)? {
                if let Some(slot) = row.get_mut(v.action as usize) {
                    *slot = v.value as f32;
                }
            }
            Ok(())
        })
    }

    /// Runs `f` on every env with its row of `out` (`out.len() / num_envs` values per env),
    /// on `self.threads` scoped threads. Returns the first error in env order.
    fn for_rows<F>(&mut self, out: &mut [f32], f: F) -> Result<(), EnvError>
    where
        F: Fn(&mut Env, &mut [f32]) -> Result<(), cardhouse::Error> + Sync,
    {
        let width = out.len() / self.envs.len().max(1);
        let per = self.envs.len().div_ceil(self.threads.max(1));
        let run = |first: usize, chunk: &mut [Env], rows: &mut [f32]| -> Result<(), EnvError> {
            for (j, (env, row)) in chunk.iter_mut().zip(rows.chunks_mut(width)).enumerate() {
                f(env, row).map_err(|e| (first + j, e))?;
            }
            Ok(())
        };
        let mut ranges = self.envs.chunks_mut(per).zip(out.chunks_mut(per * width));
        let Some((own, own_rows)) = ranges.next() else {
            return Ok(());
        };
        std::thread::scope(|scope| {
            let run = &run;
            // The calling thread takes the first range itself; the others get a thread each.
            let handles: Vec<_> = ranges
                .enumerate()
                .map(|(k, (chunk, rows))| scope.spawn(move || run((k + 1) * per, chunk, rows)))
                .collect();
            let mut result = run(0, own, own_rows);
            for h in handles {
                let r = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                if result.is_ok() {
                    result = r;
                }
            }
            result
        })
    }
}

/// The rollout values of one env (see [`Core::rollout_values`]).
fn rollout_env(env: &Env, bot: &BotKind, row: &mut [f32]) -> Result<(), cardhouse::Error> {
    row.fill(f32::NAN);
    let Player::Seat(seat) = env.state.current_player() else {
        return Ok(());
    };
    let players = env.bot_rngs.len() - 2;
    let everyone = vec![Some(bot.clone()); players];
    for a in env.legal.iter() {
        let mut state = env.state.clone();
        let mut chance = env.rng.clone();
        let mut rngs = env.bot_rngs.clone();
        state.apply(a)?;
        let mut auto = Streams {
            bots: &everyone,
            chance: &mut chance,
            seats: &mut rngs[..players],
        };
        play_until(&mut state, &mut auto, &mut Until::default())?;
        if let Some(slot) = row.get_mut(a as usize) {
            *slot = state.returns()[seat] as f32;
        }
    }
    Ok(())
}

/// Plays chance and the bots' moves in `env` until a learner seat is to act, resetting
/// (and reporting in row `i` of `out`) every game that ends on the way.
fn advance(
    sh: Shared<'_>,
    env: &mut Env,
    i: usize,
    out: &mut Out<'_>,
) -> Result<(), cardhouse::Error> {
    // A game without any learner decision could loop for ever if every seat were a bot;
    // the constructor refuses that, so some seat always learns.
    loop {
        let mut auto = Streams {
            bots: sh.bots,
            chance: &mut env.rng,
            seats: &mut env.bot_rngs[..sh.dims.players],
        };
        match play_until(&mut env.state, &mut auto, &mut Until::default())?.stopped {
            Stopped::Terminal => {
                finish(sh.dims, env, i, out);
                reset_env(sh.game, env);
            }
            // A learner seat is to act (no budget was set: nothing else stops the loop).
            _ => return Ok(()),
        }
    }
}

/// Reports the finished game of `env` in row `i`: its returns added to the rewards, done,
/// and every seat's final observation.
fn finish(dims: Dims, env: &Env, i: usize, out: &mut Out<'_>) {
    let returns = env.state.returns();
    let row = &mut out.rewards[i * dims.players..(i + 1) * dims.players];
    for (slot, &r) in row.iter_mut().zip(returns.iter()) {
        *slot += r as f32;
    }
    out.done[i] = true;
    let block = dims.players * dims.obs_len;
    let finals = &mut out.final_obs[i * block..(i + 1) * block];
    for (seat, obs) in finals.chunks_exact_mut(dims.obs_len).enumerate() {
        // Cannot fail: the seat exists and the buffer has the game's length.
        if env.state.write_observation(seat, obs).is_err() {
            obs.fill(0.0);
        }
    }
}

/// A new game in `env`, chance resolved from its generator.
fn reset_env(game: &AnyGame, env: &mut Env) {
    let mut state = game.new_initial_state();
    // Cannot fail: an initial state is a chance node.
    let _ = state.resolve_chance(&mut env.rng);
    env.state = state;
}

/// Writes observation, mask, player (and the heuristic's hint) of `env` into row `i` of
/// `out` and caches its legal set.
fn write_env(sh: Shared<'_>, env: &mut Env, i: usize, out: &mut Out<'_>) {
    let dims = sh.dims;
    let state = &env.state;
    env.legal = state.legal_actions();
    let legal = &env.legal;
    let obs = &mut out.obs[i * dims.obs_len..(i + 1) * dims.obs_len];
    let mask = &mut out.mask[i * dims.num_actions..(i + 1) * dims.num_actions];
    mask.fill(false);
    out.hint[i] = -1;
    let player = state.current_player();
    match player {
        Player::Seat(seat) => {
            legal.for_each(|a| {
                if let Some(slot) = mask.get_mut(a as usize) {
                    *slot = true;
                }
            });
            // Cannot fail: the seat exists and the buffer has the game's length.
            if state.write_observation(seat, obs).is_err() {
                obs.fill(0.0);
            }
            if sh.hints {
                let rng = &mut env.bot_rngs[dims.players];
                if let Ok(a) = state.heuristic_action(seat, rng) {
                    out.hint[i] = a as i32;
                }
            }
        }
        _ => obs.fill(0.0),
    }
    out.player[i] = player.to_i32();
}
