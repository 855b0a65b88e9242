"""Masked PPO and Deep Monte-Carlo on branched rollouts (``--algo ppo`` and ``--algo dmc`` of
:mod:`cardhouse.train`): one loop that collects ``steps`` decisions per env on
:class:`cardhouse.VectorEnv` and then updates the network."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import torch
from torch import nn

import cardhouse

from ._agent import Agent, rank_sharing, sides
from ._run import Run, minibatches

if TYPE_CHECKING:
    from .train import Config

__all__ = ["SideEnvs", "train_rl"]


class SideEnvs:
    """The learner on every side of the table: one :class:`cardhouse.VectorEnv` per side
    (``num_envs // sides`` envs each, the learner on that side's seats, the opponent on the
    others), presented as one (outputs concatenated, side 0's envs first). In one-deal Jass
    the same seat deals every game, so a learner on side 0 alone would never choose trumps,
    a decision the duplicate evaluation gives it in half the deals; so PPO and DMC collect
    from every side, as the distillation does. In self-play one env holds every seat."""

    def __init__(self, config: Config, game: cardhouse.Game) -> None:
        from ._distil import side_seats

        players = game.num_players
        self.seat_sets = side_seats(game, config.opponent)
        per = max(1, config.num_envs // len(self.seat_sets))
        self.envs = [
            cardhouse.VectorEnv(
                config.game,
                per,
                config.seed + k,
                num_threads=config.env_threads,
                bots={s: config.opponent for s in range(players) if s not in seats},
                hints=config.hint,
                **config.options,
            )
            for k, seats in enumerate(self.seat_sets)
        ]
        self.num_envs = per * len(self.envs)
        self.learner = np.repeat([seats[0] for seats in self.seat_sets], per)
        """A learner seat of each row (for the training returns)."""
        self.learner_seats = [e.learner_seats for e in self.envs]

    def _split(self, rows: np.ndarray) -> list[np.ndarray]:
        return np.split(rows, len(self.envs))

    def reset(self) -> tuple[np.ndarray, ...]:
        parts = [e.reset() for e in self.envs]
        return tuple(np.concatenate(x) for x in zip(*parts))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        parts = [e.step(a) for e, a in zip(self.envs, self._split(actions))]
        return tuple(np.concatenate(x) for x in zip(*parts))

    @property
    def heuristic_actions(self) -> np.ndarray:
        return np.concatenate([e.heuristic_actions for e in self.envs])

    def rollout_values(self, bot: str) -> np.ndarray:
        return np.concatenate([e.rollout_values(bot) for e in self.envs])


def train_rl(config: Config, log: Callable[[str], None]) -> dict[str, Any]:
    """Runs masked PPO or DMC as ``config`` says; returns the run's summary."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    rng = np.random.default_rng(config.seed)
    game = cardhouse.new_game(config.game, **config.options)
    players = game.num_players
    env = SideEnvs(config, game)
    obs_len, num_actions = game.observation_shape[0], game.num_distinct_actions
    dmc = config.algo == "dmc"
    bonus = config.margin if dmc else config.hint_bonus
    sharing = rank_sharing(game) if config.rank_sharing else None
    agent = Agent(obs_len, num_actions, config.hidden, bonus if config.hint else None, sharing)
    if dmc and agent.hint_bonus is not None:
        agent.hint_bonus.requires_grad_(False)
    optimizer = torch.optim.Adam(agent.parameters(), lr=config.lr, eps=1e-5)
    T, N = config.steps, env.num_envs
    b_obs = torch.zeros((T, N, obs_len))
    b_mask = torch.zeros((T, N, num_actions), dtype=torch.bool)
    b_act = torch.zeros((T, N), dtype=torch.long)
    b_hint = torch.zeros((T, N), dtype=torch.long)
    b_logp = torch.zeros((T, N))
    b_val = np.zeros((T, N), dtype=np.float32)
    b_player = np.zeros((T, N), dtype=np.int64)
    b_rew = np.zeros((T, N, players), dtype=np.float32)
    b_done = np.zeros((T, N), dtype=bool)
    b_target = torch.zeros((T, N, num_actions)) if dmc else torch.zeros(0)
    method = "masked PPO" if not dmc else f"DMC on {config.rollout_bot} rollouts"
    run = Run(config, game, log, method)
    clock = run.clock
    obs, mask, player = env.reset()
    scale = 0.0
    steps = updates = 0
    hints = env.heuristic_actions
    log(f"{config.game} vs {config.opponent}: {N} envs x {T} steps, learner seats "
        f"{env.learner_seats}, {sum(p.numel() for p in agent.parameters())} parameters")
    while run.running(steps):
        # --- rollout ---
        finished = []
        for t in range(T):
            t0 = time.perf_counter()
            o = torch.from_numpy(obs)
            m = torch.from_numpy(mask)
            b_obs[t].copy_(o)
            b_mask[t].copy_(m)
            b_player[t] = player
            hint = None
            if config.hint:
                b_hint[t].copy_(torch.from_numpy(hints))
                hint = b_hint[t]
            with torch.no_grad():
                logits, value = agent(b_obs[t], b_mask[t], hint)
                if dmc:
                    # Epsilon-greedy over the predicted returns.
                    noise = torch.rand_like(logits).masked_fill(~b_mask[t], -1.0)
                    explore = torch.rand(N) < config.epsilon
                    action = torch.where(explore, noise.argmax(-1), logits.argmax(-1))
                else:
                    logp_all = torch.log_softmax(logits, dim=-1)
                    gumbel = -torch.log(-torch.log(torch.rand_like(logits).clamp_(1e-20, 1.0)))
                    action = torch.argmax(logits + gumbel, dim=-1)
                    b_logp[t] = logp_all.gather(1, action[:, None]).squeeze(1)
            b_act[t] = action
            b_val[t] = value.numpy()
            actions = action.numpy()
            t1 = time.perf_counter()
            if dmc:
                targets = env.rollout_values(config.rollout_bot)
                if config.hint:
                    # Gains over the heuristic's move (common random numbers: low variance).
                    targets = targets - targets[np.arange(N), b_hint[t].numpy()][:, None]
                b_target[t].copy_(torch.from_numpy(np.nan_to_num(targets, nan=0.0)))
            obs, mask, player, rewards, dones = env.step(actions)
            t2 = time.perf_counter()
            b_done[t] = dones
            b_rew[t] = rewards
            if dones.any():
                finished.append(rewards[dones, env.learner[dones]].copy())
            clock["policy"] += t1 - t0
            clock["engine"] += t2 - t1
        steps += T * N
        # --- advantages ---
        t0 = time.perf_counter()
        if scale == 0.0:
            first = np.concatenate(finished) if finished else np.ones(1)
            scale = float(first.std()) or 1.0
        with torch.no_grad():
            last_hint = torch.from_numpy(hints.astype(np.int64)) if config.hint else None
            _, last_value = agent(torch.from_numpy(obs), torch.from_numpy(mask), last_hint)
        adv = _advantages(
            b_val,
            b_player,
            b_rew / scale,
            b_done,
            last_value.numpy(),
            player.astype(np.int64),
            sides(players),
            config.gae_lambda,
        )
        ret = adv + b_val
        if dmc:
            loss = _dmc_update(
                agent, optimizer, config, b_obs, b_mask, b_hint, b_target / scale, rng, run, steps, t0
            )
            updates += 1
            run.log_update(agent, updates, steps, finished, {"value_loss": loss})
            run.maybe_evaluate(agent, steps, updates)
            continue
        # --- update ---
        run.decay_lr(optimizer, steps)
        f_obs, f_mask = b_obs.reshape(T * N, obs_len), b_mask.reshape(T * N, num_actions)
        f_act, f_logp = b_act.reshape(-1), b_logp.reshape(-1)
        f_hint = b_hint.reshape(-1)
        f_adv, f_ret = torch.from_numpy(adv.reshape(-1)), torch.from_numpy(ret.reshape(-1))
        stats = []
        for idx in minibatches(rng, T * N, config.minibatches, config.epochs):
            logits, value = agent(f_obs[idx], f_mask[idx], f_hint[idx] if config.hint else None)
            logp_all = torch.log_softmax(logits, dim=-1)
            logp = logp_all.gather(1, f_act[idx, None]).squeeze(1)
            ratio = torch.exp(logp - f_logp[idx])
            a = f_adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - config.clip, 1 + config.clip)).mean()
            v_loss = 0.5 * ((value - f_ret[idx]) ** 2).mean()
            p = logp_all.exp()
            entropy = -(p * logp_all.clamp(min=-1e4)).sum(-1).mean()
            loss = pg_loss + config.vf_coef * v_loss - config.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimizer.step()
            stats.append((pg_loss.item(), v_loss.item(), entropy.item()))
        clock["update"] += time.perf_counter() - t0
        updates += 1
        s = np.mean(stats, axis=0)
        losses = {"policy_loss": s[0], "value_loss": s[1], "entropy": s[2]}
        run.log_update(agent, updates, steps, finished, losses)
        run.maybe_evaluate(agent, steps, updates)
    return run.finish(agent, steps, updates, reward_scale=scale)


def _advantages(
    values: np.ndarray,
    players: np.ndarray,
    rewards: np.ndarray,
    dones: np.ndarray,
    last_value: np.ndarray,
    last_players: np.ndarray,
    num_sides: int,
    lam: float,
) -> np.ndarray:
    """GAE (gamma 1) over each seat's own decisions in each env, scanning the rollout
    backwards. ``values``, ``players`` and ``dones`` are ``(T, N)``; ``rewards`` is
    ``(T, N, P)`` (a game's returns, at the step that ended it). At the cut, a seat on the
    side of the seat to act bootstraps from that seat's value; any other seat's unfinished
    trajectory is cut with no advantage at its last row."""
    T, N = values.shape
    P = rewards.shape[2]
    env = np.arange(N)
    next_v = np.full((N, P), np.nan, dtype=np.float32)
    side_of = np.arange(P) % num_sides
    same = side_of[None, :] == side_of[last_players][:, None]
    next_v[same] = np.broadcast_to(last_value[:, None], (N, P))[same]
    next_adv = np.zeros((N, P), dtype=np.float32)
    pending = np.zeros((N, P), dtype=np.float32)
    adv = np.zeros((T, N), dtype=np.float32)
    for t in range(T - 1, -1, -1):
        d = dones[t]
        # The game of row t ended after it: every seat's last decision gets its return.
        next_v[d] = 0.0
        next_adv[d] = 0.0
        pending[d] = rewards[t][d]
        p = players[t]
        v = values[t]
        nv = next_v[env, p]
        nv = np.where(np.isnan(nv), v, nv)
        a = pending[env, p] + nv - v + lam * next_adv[env, p]
        adv[t] = a
        next_v[env, p] = v
        next_adv[env, p] = a
        pending[env, p] = 0.0
    return adv


def _dmc_update(
    agent: Agent,
    optimizer: torch.optim.Optimizer,
    config: Config,
    obs: torch.Tensor,
    mask: torch.Tensor,
    hint: torch.Tensor,
    targets: torch.Tensor,
    rng: np.random.Generator,
    run: Run,
    steps: int,
    t0: float,
) -> float:
    """Deep Monte-Carlo: the policy head's outputs regress the rollout returns of every legal
    action (mean squared error over the legal entries). Returns the mean loss."""
    T, N, A = targets.shape
    run.decay_lr(optimizer, steps)
    f_obs, f_mask, f_target = obs.reshape(T * N, -1), mask.reshape(T * N, A), targets.reshape(T * N, A)
    f_hint = hint.reshape(T * N)
    losses = []
    for idx in minibatches(rng, T * N, config.minibatches, config.epochs):
        q, _ = agent.outputs(f_obs[idx], f_hint[idx] if agent.hint_embedding is not None else None)
        m = f_mask[idx].float()
        loss = (((q - f_target[idx]) ** 2) * m).sum() / m.sum()
        optimizer.zero_grad()
        torch.autograd.backward(loss)
        nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
        optimizer.step()
        losses.append(loss.item())
    run.clock["update"] += time.perf_counter() - t0
    return float(np.mean(losses))
