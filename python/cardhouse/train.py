"""Training on :class:`cardhouse.VectorEnv` in one small file (in the spirit of CleanRL's
``ppo.py``): PyTorch on CPU, a two-layer MLP, Deep Monte-Carlo on branched rollouts (the
default) or masked PPO, against an engine bot or in self-play, with a time budget, CSV logs,
checkpoints and periodic evaluation in duplicate deals.

::

    pip install "./python[train]"          # torch (CPU is enough) and matplotlib
    python -m cardhouse.train --game jass --opponent heuristic --minutes 30 --out runs/jass

What happens:

* ``VectorEnv(game, num_envs, bots={...})`` plays the opponent's seats (the engine's
  ``heuristic``, ``random``, ``ismcts:N`` or a ``policy:NAME``) inside Rust, so every row it
  returns is a decision of ours (side 0: seats 0 and 2 in Jass and Avinas, seat 0 in
  two-handed games). With ``--opponent self`` every seat is ours (self-play: one network
  plays all seats, each from its own seat's observation).
* ``--algo dmc`` (the default): Deep Monte-Carlo (as DouZero) on branched rollouts. At every
  decision collected, ``VectorEnv.rollout_values`` plays each legal action out to the end of
  the deal with the heuristic on every seat (from the true state, common random numbers),
  and the network regresses those returns for every legal action at once. With ``--hint``
  (the default) the network also sees the heuristic's move and regresses each action's
  *gain* over it; it plays the heuristic's move unless it predicts a gain above
  ``--margin``: a learned one-step improvement of the heuristic, deciding from the seat's
  observation only (the rollouts are the environment's simulation, like any return).
  Collection is epsilon-greedy.
* ``--algo ppo``: rollouts of ``--steps`` decisions per env; advantages by GAE over each
  seat's own decisions (a seat's rows in an env form its trajectory; the reward is the
  game's return, scaled by the standard deviation measured in the first rollout); the
  clipped PPO objective with the illegal actions masked out of the softmax; an entropy
  bonus; a value head on the shared trunk. With ``--hint`` it starts near the heuristic
  (a learned bonus on the heuristic's move).
* Every ``--eval-every`` minutes of training (and at the end) the policy is exported in the
  engine's policy format and played by the engine's arena in duplicate deals
  (:func:`cardhouse.bots.duplicate`) against ``random``, ``heuristic`` and IS-MCTS: win
  rates with 95% Wilson intervals, in ``eval.csv``. The exported file is the bot:
  ``cardhouse.bots.policy("runs/jass/policy.chp")``, ``cardhouse play --bots
  policy:runs/jass/policy.chp``.
* Files in ``--out``: ``progress.csv`` (one row per update: time, environment steps,
  training return and win rate, losses, throughput and where the time went), ``eval.csv``,
  ``agent.pt`` (the PyTorch checkpoint), ``policy.chp`` (the engine's policy file) and
  ``curve.png`` (:func:`plot`).

The time budget (``--minutes``) counts the training itself (environment steps, the policy's
forward passes, the updates), not the evaluations, which are timed apart.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import struct
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

import cardhouse
from cardhouse import bots as _bots

__all__ = [
    "Agent",
    "Config",
    "evaluate",
    "export_policy",
    "learner_seats",
    "load_agent",
    "main",
    "plot",
    "train",
]


@dataclass
class Config:
    """Everything a run depends on (the command line's flags, same names)."""

    game: str = "jass"
    algo: str = "dmc"
    """``ppo`` (masked PPO) or ``dmc`` (Deep Monte-Carlo on branched rollouts: the network
    regresses, for every legal action, the return of playing it and then the rollout bot to
    the end, :meth:`cardhouse.VectorEnv.rollout_values`, and plays the argmax; with ``hint``
    it regresses each action's gain over the heuristic's move instead)."""
    opponent: str = "heuristic"
    """A bot for the other side's seats, or ``self`` for self-play."""
    options: dict[str, Any] = field(default_factory=lambda: {"scope": "deal"})
    minutes: float = 30.0
    max_steps: int = 0
    """Stop after this many environment steps too (0: the time budget alone)."""
    num_envs: int = 256
    steps: int = 32
    """Decisions per env per rollout (a batch is ``num_envs * steps`` rows)."""
    epochs: int = 3
    minibatches: int = 4
    lr: float = 5e-4
    hidden: int = 128
    hint: bool = True
    """Give the network the heuristic bot's action as an input (and a learned bonus on its
    logit): the policy starts near the heuristic and learns where to differ."""
    hint_bonus: float = 3.0
    """The initial logit bonus of the heuristic's action (with ``hint``)."""
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.005
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 0
    env_threads: int = 1
    torch_threads: int = 1
    eval_every: float = 6.0
    """Minutes of training between evaluations (0: only at the end)."""
    eval_sets: int = 500
    eval_ismcts: str = "ismcts:50"
    eval_ismcts_sets: int = 100
    eval_threads: int = 2
    final_sets: int = 1000
    """Duplicate sets of the final evaluation against random and heuristic."""
    final_ismcts: str = "ismcts"
    final_ismcts_sets: int = 200
    rollout_bot: str = "heuristic"
    """With ``dmc``: the bot that plays the rollouts (every seat) after the branched action."""
    epsilon: float = 0.05
    """With ``dmc``: the share of random legal moves while collecting."""
    margin: float = 0.15
    """With ``dmc`` and ``hint``: the hint bonus, fixed: the policy leaves the heuristic's
    move only where it predicts a gain above this (in reward-scale units)."""
    out: str = "runs/train"


def sides(players: int) -> int:
    """Partnerships with four players (seats ``s`` and ``s + 2``), every seat alone
    otherwise."""
    return 2 if players == 4 else players


def learner_seats(game: cardhouse.Game) -> list[int]:
    """The seats of side 0."""
    return [s for s in range(game.num_players) if s % sides(game.num_players) == 0]


class Agent(nn.Module):
    """A two-layer MLP (ReLU) with a policy head (logits over every action id) and a value
    head on the same trunk. With ``hint``, the heuristic's action is a second input (a
    one-hot, here an embedding added to the first layer) and ``hint_bonus`` is added to its
    logit. The trunk and the policy head are what the engine evaluates
    (:func:`export_policy`)."""

    def __init__(
        self, obs_len: int, num_actions: int, hidden: int = 256, hint: float | None = None
    ) -> None:
        super().__init__()
        self.first = nn.Linear(obs_len, hidden)
        self.second = nn.Linear(hidden, hidden)
        self.actor = nn.Linear(hidden, num_actions)
        self.critic = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.actor.weight, 0.01)
        nn.init.zeros_(self.actor.bias)
        self.hint_embedding: nn.Embedding | None = None
        self.hint_bonus: nn.Parameter | None = None
        if hint is not None:
            self.hint_embedding = nn.Embedding(num_actions, hidden)
            nn.init.normal_(self.hint_embedding.weight, std=0.01)
            self.hint_bonus = nn.Parameter(torch.tensor(float(hint)))

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, hint: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at -1e9) and values."""
        x = self.first(obs)
        if self.hint_embedding is not None and hint is not None:
            x = x + self.hint_embedding(hint)
        h = torch.relu(self.second(torch.relu(x)))
        logits = self.actor(h)
        if self.hint_bonus is not None and hint is not None:
            logits = logits.scatter_add(
                1, hint[:, None], self.hint_bonus.expand(len(hint), 1)
            )
        return logits.masked_fill(~mask, -1e9), self.critic(h).squeeze(-1)


def export_policy(agent: Agent, game: cardhouse.Game, name: str, info: str = "") -> bytes:
    """The policy (trunk and policy head) as the engine's policy file, version 1: magic
    ``CHPOLICY``, u32 version, then u32-length-prefixed UTF-8 name, game and info, u32
    observation length, u32 action count, u32 features (1: the heuristic's action one-hot
    follows the observation), f32 hint bonus, u32 layer count, and per layer u32 inputs, u32
    outputs, the weights input-major (``weight.T``) and the biases, all little-endian. A
    ReLU follows every layer but the last. Load it with :func:`cardhouse.bots.policy`."""

    def array(t: torch.Tensor) -> np.ndarray:
        return t.detach().to(torch.float32).cpu().numpy()

    first_w = array(agent.first.weight).T  # (obs_len, hidden), input-major
    if agent.hint_embedding is not None:
        first_w = np.concatenate([first_w, array(agent.hint_embedding.weight)], axis=0)
    layers = [
        (first_w, array(agent.first.bias)),
        (array(agent.second.weight).T, array(agent.second.bias)),
        (array(agent.actor.weight).T, array(agent.actor.bias)),
    ]
    bonus = float(agent.hint_bonus.item()) if agent.hint_bonus is not None else 0.0
    out = bytearray(b"CHPOLICY")
    out += struct.pack("<I", 1)
    for text in (name, game.name, info):
        data = text.encode()
        out += struct.pack("<I", len(data)) + data
    out += struct.pack("<II", game.observation_shape[0], game.num_distinct_actions)
    out += struct.pack("<If", int(agent.hint_bonus is not None), bonus)
    out += struct.pack("<I", len(layers))
    for w, b in layers:
        out += struct.pack("<II", w.shape[0], w.shape[1])
        out += np.ascontiguousarray(w, dtype="<f4").tobytes()
        out += np.ascontiguousarray(b, dtype="<f4").tobytes()
    return bytes(out)


def load_agent(path: str | os.PathLike[str]) -> tuple[Agent, Config]:
    """The agent and config of a checkpoint (``agent.pt``) written by :func:`train`."""
    saved = torch.load(path, map_location="cpu", weights_only=False)
    config = Config(**saved["config"])
    game = cardhouse.new_game(config.game, **config.options)
    agent = Agent(
        game.observation_shape[0],
        game.num_distinct_actions,
        config.hidden,
        config.hint_bonus if config.hint else None,
    )
    agent.load_state_dict(saved["agent"])
    return agent, config


def evaluate(
    policy: _bots.Bot,
    game: cardhouse.Game,
    opponents: list[tuple[str, int]],
    seed: int = 1,
    threads: int = 2,
) -> list[dict[str, Any]]:
    """The policy against each ``(bot, sets)`` of ``opponents`` in duplicate deals (the
    policy on side 0's seats, the bot on the others, then turned): one row per opponent
    with the win rate, its 95% Wilson interval and the mean return per set."""
    rows = []
    for opponent, sets in opponents:
        start = time.perf_counter()
        lineup = [policy if s in learner_seats(game) else opponent for s in range(game.num_players)]
        r = _bots.duplicate(game, lineup, sets, seed, threads=threads)
        rows.append(
            {
                "opponent": opponent,
                "sets": sets,
                "win_rate": r.win_rate,
                "win_rate_lo": r.win_rate_ci[0],
                "win_rate_hi": r.win_rate_ci[1],
                "mean_return": r.mean_return,
                "seconds": time.perf_counter() - start,
            }
        )
    return rows


class _Csv:
    """Appends dict rows to a CSV file (header from the first row)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer: csv.DictWriter[str] | None = None
        self.file: Any = None

    def write(self, row: dict[str, Any]) -> None:
        if self.writer is None:
            self.file = open(self.path, "w", newline="")
            self.writer = csv.DictWriter(self.file, fieldnames=list(row))
            self.writer.writeheader()
        self.writer.writerow(row)
        self.file.flush()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


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


def _log_update(
    progress: _Csv,
    log: Callable[[str], None],
    agent: Agent,
    updates: int,
    steps: int,
    trained: Callable[[], float],
    clock: dict[str, float],
    finished: list[np.ndarray],
    stats: list[tuple[float, float, float]],
) -> None:
    """One row of ``progress.csv`` (and a line of the log now and then)."""
    done_returns = np.concatenate(finished) if finished else np.zeros(0)
    s = np.mean(stats, axis=0)
    row = {
        "update": updates,
        "train_seconds": round(trained(), 2),
        "env_steps": steps,
        "games": len(done_returns),
        "train_return": float(done_returns.mean()) if len(done_returns) else math.nan,
        "train_win_rate": float((done_returns > 0).mean()) if len(done_returns) else math.nan,
        "policy_loss": s[0],
        "value_loss": s[1],
        "entropy": s[2],
        "hint_bonus": float(agent.hint_bonus.item()) if agent.hint_bonus is not None else 0.0,
        "steps_per_second": steps / trained(),
        "engine_seconds": round(clock["engine"], 2),
        "policy_seconds": round(clock["policy"], 2),
        "update_seconds": round(clock["update"], 2),
    }
    progress.write(row)
    if updates % 20 == 1:
        log(
            f"update {updates}: {steps} steps in {trained():.0f} s ({row['steps_per_second']:.0f}/s), "
            f"training win rate {row['train_win_rate']:.3f}, return {row['train_return']:+.1f}, "
            f"losses {s[0]:.3f} {s[1]:.3f}, entropy {s[2]:.2f}"
        )


def _dmc_update(
    agent: Agent,
    optimizer: torch.optim.Optimizer,
    config: Config,
    obs: torch.Tensor,
    mask: torch.Tensor,
    hint: torch.Tensor,
    targets: torch.Tensor,
    rng: np.random.Generator,
    clock: dict[str, float],
    t0: float,
    trained: Callable[[], float],
    budget: float,
) -> float:
    """Deep Monte-Carlo: the policy head's outputs regress the rollout returns of every legal
    action (mean squared error over the legal entries). Returns the mean loss."""
    T, N, A = targets.shape
    frac = max(0.0, 1.0 - trained() / budget)
    for g in optimizer.param_groups:
        g["lr"] = config.lr * frac
    f_obs, f_mask, f_target = obs.reshape(T * N, -1), mask.reshape(T * N, A), targets.reshape(T * N, A)
    f_hint = hint.reshape(T * N)
    size = T * N // config.minibatches
    losses = []
    for _ in range(config.epochs):
        order = torch.from_numpy(rng.permutation(T * N))
        for k in range(config.minibatches):
            idx = order[k * size : (k + 1) * size]
            x = agent.first(f_obs[idx])
            if agent.hint_embedding is not None:
                x = x + agent.hint_embedding(f_hint[idx])
            q = agent.actor(torch.relu(agent.second(torch.relu(x))))
            m = f_mask[idx].float()
            loss = (((q - f_target[idx]) ** 2) * m).sum() / m.sum()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
    clock["update"] += time.perf_counter() - t0
    return float(np.mean(losses))


def train(config: Config, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Runs masked PPO as ``config`` says; returns the run's summary (also written to
    ``summary.json`` in ``config.out``)."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    rng = np.random.default_rng(config.seed)
    game = cardhouse.new_game(config.game, **config.options)
    players = game.num_players
    if config.opponent == "self":
        bots: dict[int, str] = {}
    else:
        bots = {s: config.opponent for s in range(players) if s not in learner_seats(game)}
    env = cardhouse.VectorEnv(
        config.game,
        config.num_envs,
        config.seed,
        num_threads=config.env_threads,
        bots=bots,
        hints=config.hint,
        **config.options,
    )
    obs_len, num_actions = game.observation_shape[0], game.num_distinct_actions
    bonus = config.margin if config.algo == "dmc" else config.hint_bonus
    agent = Agent(obs_len, num_actions, config.hidden, bonus if config.hint else None)
    if config.algo == "dmc" and agent.hint_bonus is not None:
        agent.hint_bonus.requires_grad_(False)
    optimizer = torch.optim.Adam(agent.parameters(), lr=config.lr, eps=1e-5)
    T, N = config.steps, config.num_envs
    b_obs = torch.zeros((T, N, obs_len))
    b_mask = torch.zeros((T, N, num_actions), dtype=torch.bool)
    b_act = torch.zeros((T, N), dtype=torch.long)
    b_hint = torch.zeros((T, N), dtype=torch.long)
    b_logp = torch.zeros((T, N))
    b_val = np.zeros((T, N), dtype=np.float32)
    b_player = np.zeros((T, N), dtype=np.int64)
    b_rew = np.zeros((T, N, players), dtype=np.float32)
    b_done = np.zeros((T, N), dtype=bool)
    dmc = config.algo == "dmc"
    if config.algo not in ("ppo", "dmc"):
        raise ValueError(f"algo={config.algo!r}: ppo or dmc")
    b_target = torch.zeros((T, N, num_actions)) if dmc else torch.zeros(0)
    progress, evals = _Csv(out / "progress.csv"), _Csv(out / "eval.csv")
    budget = config.minutes * 60.0
    obs, mask, player = env.reset()
    ours = learner_seats(game)
    scale = 0.0
    steps = updates = 0
    clock = {"engine": 0.0, "policy": 0.0, "update": 0.0}
    eval_seconds = 0.0
    next_eval = config.eval_every * 60.0 if config.eval_every > 0 else math.inf
    eval_rows: list[dict[str, Any]] = []
    method = "masked PPO" if config.algo == "ppo" else f"DMC on {config.rollout_bot} rollouts"
    info = f"{method} vs {config.opponent}, options {config.options}, hint {config.hint}"
    hints = env.heuristic_actions

    def trained() -> float:
        return clock["engine"] + clock["policy"] + clock["update"]

    def run_eval(final: bool) -> None:
        nonlocal eval_seconds
        start = time.perf_counter()
        data = export_policy(agent, game, config.game, info + f", {steps} steps")
        (out / "policy.chp").write_bytes(data)
        torch.save({"agent": agent.state_dict(), "config": asdict(config)}, out / "agent.pt")
        bot = _bots.policy(data, game)
        sets = config.final_sets if final else config.eval_sets
        opponents = [("random", sets), ("heuristic", sets)]
        ismcts, ismcts_sets = (
            (config.final_ismcts, config.final_ismcts_sets)
            if final
            else (config.eval_ismcts, config.eval_ismcts_sets)
        )
        if ismcts and ismcts_sets > 0:
            opponents.append((ismcts, ismcts_sets))
        for row in evaluate(bot, game, opponents, seed=10_000 + updates, threads=config.eval_threads):
            row = {"train_seconds": round(trained(), 1), "env_steps": steps, "final": final, **row}
            evals.write(row)
            eval_rows.append(row)
            log(
                f"  eval vs {row['opponent']:>12}: win rate {row['win_rate']:.3f} "
                f"[{row['win_rate_lo']:.3f}, {row['win_rate_hi']:.3f}] over {row['sets']} "
                f"duplicate sets, mean return {row['mean_return']:+.2f}"
            )
        eval_seconds += time.perf_counter() - start

    log(f"{config.game} vs {config.opponent}: {N} envs x {T} steps, learner seats "
        f"{env.learner_seats}, {sum(p.numel() for p in agent.parameters())} parameters")
    while trained() < budget and not (config.max_steps and steps >= config.max_steps):
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
                finished.append(rewards[dones][:, ours[0]].copy())
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
                agent, optimizer, config, b_obs, b_mask, b_hint, b_target / scale, rng, clock, t0,
                trained, budget,
            )
            updates += 1
            _log_update(progress, log, agent, updates, steps, trained, clock, finished, [(loss, 0.0, 0.0)])
            if trained() >= next_eval:
                log(f"evaluation after {trained() / 60:.1f} min, {steps} steps:")
                run_eval(False)
                next_eval += config.eval_every * 60.0
            continue
        # --- update ---
        frac = max(0.0, 1.0 - trained() / budget)
        if config.max_steps:
            frac = min(frac, max(0.0, 1.0 - steps / config.max_steps))
        for g in optimizer.param_groups:
            g["lr"] = config.lr * frac
        f_obs, f_mask = b_obs.reshape(T * N, obs_len), b_mask.reshape(T * N, num_actions)
        f_act, f_logp = b_act.reshape(-1), b_logp.reshape(-1)
        f_hint = b_hint.reshape(-1)
        f_adv, f_ret = torch.from_numpy(adv.reshape(-1)), torch.from_numpy(ret.reshape(-1))
        size = T * N // config.minibatches
        stats = []
        for _ in range(config.epochs):
            order = torch.from_numpy(rng.permutation(T * N))
            for k in range(config.minibatches):
                idx = order[k * size : (k + 1) * size]
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
        _log_update(progress, log, agent, updates, steps, trained, clock, finished, stats)
        if trained() >= next_eval:
            log(f"evaluation after {trained() / 60:.1f} min, {steps} steps:")
            run_eval(False)
            next_eval += config.eval_every * 60.0
    log(f"final evaluation after {trained() / 60:.1f} min, {steps} steps:")
    run_eval(True)
    progress.close()
    evals.close()
    summary = {
        "config": asdict(config),
        "env_steps": steps,
        "updates": updates,
        "train_seconds": trained(),
        "eval_seconds": eval_seconds,
        "steps_per_second": steps / trained(),
        "seconds": dict(clock),
        "reward_scale": scale,
        "final_eval": [r for r in eval_rows if r["final"]],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    try:
        plot(out, out / "curve.png")
    except ImportError:
        pass
    return summary


def plot(run: str | os.PathLike[str], path: str | os.PathLike[str] | None = None) -> Any:
    """The learning curve of a run directory: the training win rate against the opponent
    (per update, smoothed) and the evaluations' duplicate win rates with their 95% intervals,
    over environment steps. Returns the matplotlib figure (saved to ``path`` if given)."""
    import matplotlib.pyplot as plt

    run = Path(run)
    with open(run / "progress.csv") as f:
        prog = list(csv.DictReader(f))
    with open(run / "eval.csv") as f:
        ev = list(csv.DictReader(f))
    x = np.array([float(r["env_steps"]) for r in prog]) / 1e6
    y = np.array([float(r["train_win_rate"]) for r in prog])
    window = max(1, len(y) // 25)
    smooth = np.convolve(y, np.ones(window) / window, mode="valid")
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(x[window - 1 :], smooth, color="0.6", lw=1, label="training games (not duplicate)")
    for k, opp in enumerate(dict.fromkeys(r["opponent"] for r in ev)):
        rows = [r for r in ev if r["opponent"] == opp]
        ex = np.array([float(r["env_steps"]) for r in rows]) / 1e6
        wr = np.array([float(r["win_rate"]) for r in rows])
        lo = wr - np.array([float(r["win_rate_lo"]) for r in rows])
        hi = np.array([float(r["win_rate_hi"]) for r in rows]) - wr
        ax.errorbar(ex, wr, yerr=[lo, hi], fmt="o-", ms=3, capsize=2, color=f"C{k}", label=f"duplicate vs {opp}")
    ax.axhline(0.5, ls="--", color="0.3", lw=0.8)
    ax.set(xlabel="environment steps (millions)", ylabel="win rate", ylim=(0, 1))
    algo = "?"
    if (run / "summary.json").is_file():
        algo = json.loads((run / "summary.json").read_text())["config"]["algo"]
    ax.set_title(f"{run.name}: {'DMC' if algo == 'dmc' else 'masked PPO'}", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=60)
    return fig


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--option {text!r}: give KEY=VALUE")
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    try:
        return key, int(value)
    except ValueError:
        return key, value


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: ``python -m cardhouse.train --help``."""
    parser = argparse.ArgumentParser(
        prog="python -m cardhouse.train", description=(__doc__ or "").split("\n\n")[0]
    )
    defaults = Config()
    for name, value in asdict(defaults).items():
        if name == "options":
            continue
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=value)
        else:
            parser.add_argument(flag, type=type(value), default=value)
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option (default scope=deal)",
    )
    args = vars(parser.parse_args(argv))
    options = {"scope": "deal", **dict(_option(o) for o in args.pop("option"))}
    config = Config(**args, options=options)
    return train(config)


if __name__ == "__main__":
    main()
