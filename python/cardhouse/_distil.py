"""Expert iteration by distillation (``--algo distil`` of :mod:`cardhouse.train`): IS-MCTS is the
teacher, the MLP the student.

At every decision collected, :meth:`cardhouse.VectorEnv.search_visits` runs the engine's
IS-MCTS (``ismcts:N``, ``N = teacher_iterations``) for the seat to act, in Rust with the GIL
released, over states resampled for that seat (never the real hidden cards); the visit counts,
normalised, are the label, and the teacher's most visited move is played, so the data are the
teacher's own games against the opponent. The rows (observation, legal mask, the heuristic's
move as the hint input, the label) go to a replay buffer, and after each collection the network
takes ``replay`` times as many rows as were collected, in minibatches drawn uniformly from the
buffer, minimising the cross-entropy between its masked softmax and the visit distribution.
The student then plays greedily from its seat's observation alone, in microseconds a move
instead of the search's milliseconds.

Against a bot, the learner takes every side in turn, as a duplicate set seats it: one
:class:`cardhouse.VectorEnv` per side (in Jass, where the same seat deals every one-deal game,
a learner on side 0 alone would never choose trumps); PPO and DMC do the same
(:class:`cardhouse._rl.SideEnvs`).

With ``teacher="rollout"`` the teacher is flat Monte Carlo instead
(:meth:`cardhouse.VectorEnv.rollout_search`, the engine's ``rollout`` bot): every legal
action (a Cribbage discard as a pair) played out with the heuristic on every seat over
common determinizations for the seat; the label is a softmax of the action values at
``label_temperature`` and the teacher plays the best; or, with ``distil_loss="value"``, the
network regresses each legal action's gain over the heuristic's move (mean squared error)
and leaves that move only for a predicted gain above ``margin``, as DMC does, but on values
averaged over many determinizations instead of one rollout from the true state. With ``dagger`` a share of the moves
played are the student's (DAgger), the teacher labelling every state.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import torch
from torch import nn

import cardhouse

from ._agent import Agent, rank_sharing, sides
from ._run import Run

if TYPE_CHECKING:
    from .train import Config

__all__ = ["train_distil"]


def side_seats(game: cardhouse.Game, opponent: str) -> list[list[int]]:
    """The learner's seats in each env: every seat in self-play, else one list per side (seats
    ``s`` and ``s + 2`` with four players, one seat otherwise)."""
    players = game.num_players
    if opponent == "self":
        return [list(range(players))]
    n = sides(players)
    return [[s for s in range(players) if s % n == side] for side in range(n)]


class _Buffer:
    """A ring buffer of labelled decisions (preallocated; the oldest rows are overwritten)."""

    def __init__(self, capacity: int, obs_len: int, num_actions: int) -> None:
        self.obs = torch.zeros((capacity, obs_len))
        self.mask = torch.zeros((capacity, num_actions), dtype=torch.bool)
        self.hint = torch.zeros(capacity, dtype=torch.long)
        self.target = torch.zeros((capacity, num_actions))
        self.capacity = capacity
        self.size = 0
        self.next = 0

    def add(self, obs: np.ndarray, mask: np.ndarray, hint: np.ndarray, target: np.ndarray) -> None:
        n = len(obs)
        idx = (self.next + np.arange(n)) % self.capacity
        t = torch.from_numpy(idx)
        self.obs[t] = torch.from_numpy(obs)
        self.mask[t] = torch.from_numpy(mask)
        self.hint[t] = torch.from_numpy(hint.astype(np.int64))
        self.target[t] = torch.from_numpy(target)
        self.next = int((self.next + n) % self.capacity)
        self.size = min(self.size + n, self.capacity)


def _labels(visits: np.ndarray) -> np.ndarray:
    """Visit counts as probabilities (rows without any visit stay 0)."""
    total = visits.sum(axis=1, keepdims=True)
    return np.asarray(visits / np.maximum(total, 1.0), dtype=np.float32)


def _value_labels(values: np.ndarray, mask: np.ndarray, temperature: float) -> np.ndarray:
    """Rollout values as probabilities: a softmax over the legal actions of ``values /
    temperature`` (``temperature`` in the game's return units; 0: all on the best)."""
    v = np.where(mask, values, -np.inf)
    if temperature <= 0:
        out = np.zeros_like(values, dtype=np.float32)
        out[np.arange(len(v)), v.argmax(1)] = 1.0
        return out
    z = np.exp((v - v.max(axis=1, keepdims=True)) / temperature)
    return np.asarray(z / z.sum(axis=1, keepdims=True), dtype=np.float32)


def _teach(
    env: cardhouse.VectorEnv, config: Config, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's labels and moves for every env: IS-MCTS visit distributions and its most
    visited move, or (``teacher="rollout"``) the rollout values as a softmax and the move of
    highest value."""
    if config.teacher == "rollout":
        values = env.rollout_search(
            config.teacher_samples, config.teacher_playouts or None, config.teacher_max_actions or None
        )
        best = np.where(mask, values, -np.inf).argmax(1)
        if config.teacher_max_actions:
            # Decisions with more legal actions are not searched: the heuristic's move is
            # the teacher's (its gain 0, as every action's).
            wide = mask.sum(1) > config.teacher_max_actions
            hint = env.heuristic_actions
            best = np.where(wide, hint, best)
            values = np.where(wide[:, None], np.where(np.arange(mask.shape[1]) == hint[:, None], 1.0, 0.0), values)
            if config.distil_loss == "value":
                values = np.where(wide[:, None], 0.0, values)
        if config.distil_loss == "value":
            # Each legal action's gain over the heuristic's move (0 without a hint).
            base = values[np.arange(len(values)), env.heuristic_actions] if config.hint else 0.0
            # Losses beyond 3 points are all "not this one": clipped, so the regression
            # spends itself near the decisions.
            gains = np.where(mask, np.maximum(values - np.asarray(base)[..., None], -3.0), 0.0)
            return np.asarray(gains, dtype=np.float32), best
        return _value_labels(values, mask, config.label_temperature), best
    visits = env.search_visits(config.teacher_iterations or None)
    return _labels(visits), visits.argmax(1)


def train_distil(config: Config, log: Callable[[str], None]) -> dict[str, Any]:
    """Runs expert iteration (IS-MCTS distilled into the MLP) as ``config`` says; returns the
    run's summary."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    rng = np.random.default_rng(config.seed)
    game = cardhouse.new_game(config.game, **config.options)
    players = game.num_players
    envs = []
    seat_sets = side_seats(game, config.opponent)
    for k, seats in enumerate(seat_sets):
        bots = {s: config.opponent for s in range(players) if s not in seats}
        envs.append(
            cardhouse.VectorEnv(
                config.game,
                config.num_envs,
                config.seed + k,
                num_threads=config.env_threads,
                bots=bots,
                hints=config.hint,
                **config.options,
            )
        )
    obs_len, num_actions = game.observation_shape[0], game.num_distinct_actions
    value_loss = config.distil_loss == "value"
    if value_loss and config.teacher != "rollout":
        raise ValueError("distil_loss='value' needs teacher='rollout' (action values)")
    if config.distil_loss not in ("policy", "value"):
        raise ValueError(f"distil_loss={config.distil_loss!r}: policy or value")
    # The hint bonus starts at 0 and is learned with the rest; regressing the values, it is
    # the fixed margin a predicted gain must pass to leave the heuristic's move.
    bonus = config.margin if value_loss else 0.0
    sharing = rank_sharing(game) if config.rank_sharing else None
    agent = Agent(obs_len, num_actions, config.hidden, bonus if config.hint else None, sharing)
    if value_loss and agent.hint_bonus is not None:
        agent.hint_bonus.requires_grad_(False)
    optimizer = torch.optim.Adam(agent.parameters(), lr=config.lr, eps=1e-5)
    buffer = _Buffer(config.buffer, obs_len, num_actions)
    iterations = config.teacher_iterations or None
    if config.teacher == "rollout" and config.teacher_playouts:
        teacher = f"rollout ({config.teacher_playouts} playouts a decision)"
    elif config.teacher == "rollout":
        teacher = f"rollout:{config.teacher_samples}"
    elif config.teacher == "ismcts":
        teacher = f"ismcts:{iterations}" if iterations else "ismcts"
    else:
        raise ValueError(f"teacher={config.teacher!r}: ismcts or rollout")
    run = Run(config, game, log, f"distilled from {teacher}")
    clock = run.clock
    current = [env.reset() for env in envs]
    steps = updates = 0
    log(f"{config.game} vs {config.opponent}: {teacher} distilled, {len(envs)} x "
        f"{config.num_envs} envs x {config.steps} steps, learner seats {seat_sets}, "
        f"{sum(p.numel() for p in agent.parameters())} parameters")
    while run.running(steps):
        # --- collect: the teacher labels and plays ---
        finished: list[np.ndarray] = []
        fresh_hits, fresh_hints, fresh_rows = 0.0, 0.0, 0
        fresh: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]] = []
        for _ in range(config.steps):
            for k, env in enumerate(envs):
                obs, mask, _ = current[k]
                t0 = time.perf_counter()
                labels, best = _teach(env, config, mask)
                t1 = time.perf_counter()
                hint = env.heuristic_actions if config.hint else np.zeros(len(obs), np.int32)
                buffer.add(obs, mask, hint, labels)
                o, m = torch.from_numpy(obs.copy()), torch.from_numpy(mask.copy())
                h = torch.from_numpy(hint.astype(np.int64))
                fresh.append((o, m, h, torch.from_numpy(best)))
                move = best
                if config.dagger > 0:
                    # DAgger: in a share of the envs the student's move is played (the
                    # teacher still labels every state), so the data follow its own states.
                    with torch.no_grad():
                        student = agent(o, m, h if config.hint else None)[0].argmax(1).numpy()
                    move = np.where(rng.random(len(best)) < config.dagger, student, best)
                t2 = time.perf_counter()
                obs, mask, player, rewards, dones = env.step(move)
                current[k] = (obs, mask, player)
                if dones.any():
                    finished.append(rewards[dones][:, seat_sets[k][0]].copy())
                clock["engine"] += (t1 - t0) + (time.perf_counter() - t2)
                clock["policy"] += t2 - t1
                steps += len(obs)
        # --- how well the student predicts the new labels, before learning them ---
        t0 = time.perf_counter()
        with torch.no_grad():
            for o, m, h, taught in fresh:
                logits, _ = agent(o, m, h if config.hint else None)
                fresh_hits += float(torch.eq(logits.argmax(1), taught).sum())
                fresh_hints += float(torch.eq(h, taught).sum())
                fresh_rows += len(taught)
        # --- update: cross-entropy to the visit distributions, minibatches from the buffer ---
        run.decay_lr(optimizer, steps)
        batches = max(1, int(config.replay * fresh_rows / config.batch_size))
        losses = []
        for _ in range(batches):
            idx = torch.from_numpy(rng.integers(0, buffer.size, config.batch_size))
            if value_loss:
                # The outputs (before the margin) regress the gains of the legal actions.
                q, _ = agent.outputs(
                    buffer.obs[idx], buffer.hint[idx] if config.hint else None
                )
                m = buffer.mask[idx].float()
                loss = (((q - buffer.target[idx]) ** 2) * m).sum() / m.sum()
            else:
                logits, _ = agent(
                    buffer.obs[idx], buffer.mask[idx], buffer.hint[idx] if config.hint else None
                )
                # Cross-entropy to the visit distribution (illegal actions have target 0).
                loss = nn.functional.cross_entropy(logits, buffer.target[idx])
            optimizer.zero_grad()
            torch.autograd.backward(loss)
            nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
        clock["update"] += time.perf_counter() - t0
        updates += 1
        run.log_update(
            agent,
            updates,
            steps,
            finished,
            {
                "value_loss" if value_loss else "cross_entropy": float(np.mean(losses)),
                "student_matches_teacher": fresh_hits / max(fresh_rows, 1),
                "heuristic_matches_teacher": fresh_hints / max(fresh_rows, 1),
            },
        )
        run.maybe_evaluate(agent, steps, updates)
    return run.finish(agent, steps, updates, labels=steps, teacher=teacher)
