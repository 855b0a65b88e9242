"""Training on :class:`cardhouse.VectorEnv` in a few small files (in the spirit of CleanRL's
``ppo.py``): PyTorch on CPU, a two-layer MLP, IS-MCTS distilled into it (expert iteration),
Deep Monte-Carlo on branched rollouts (the default) or masked PPO, against an engine bot or in
self-play, with a time budget, CSV logs, checkpoints and periodic evaluation in duplicate
deals. This file holds the configuration and the command line; the network is in
``_agent.py``, the bookkeeping every algorithm shares (evaluation, logs, clock) in ``_run.py``,
PPO and DMC in ``_rl.py``, the distillation in ``_distil.py``.

::

    pip install "./python[train]"          # torch (CPU is enough) and matplotlib
    python -m cardhouse.train --game jass --opponent heuristic --minutes 30 --out runs/jass

What happens:

* ``VectorEnv(game, num_envs, bots={...})`` plays the opponent's seats (the engine's
  ``heuristic``, ``random``, ``ismcts:N`` or a ``policy:NAME``) inside Rust, so every row it
  returns is a decision of ours. Against a bot the learner takes every side, as a duplicate
  set seats it: one env per side (seats 0 and 2, then 1 and 3 in Jass and Avinas; seat 0,
  then seat 1 in two-handed games), for every algorithm (in one-deal Jass seat 0 always
  deals, so a learner seated on side 0 alone would never choose trumps). With ``--opponent
  self`` every seat is ours (self-play: one network plays all seats, each from its own
  seat's observation).
* ``--algo dmc`` (the default): Deep Monte-Carlo (as DouZero) on branched rollouts. At every
  decision collected, ``VectorEnv.rollout_values`` plays each legal action out to the end of
  the deal with the heuristic on every seat (from the true state, common random numbers),
  and the network regresses those returns for every legal action at once. With ``--hint``
  (the default) the network also sees the heuristic's move and regresses each action's
  *gain* over it; it plays the heuristic's move unless it predicts a gain above
  ``--margin``: a learned one-step improvement of the heuristic, deciding from the seat's
  observation only (the rollouts are the environment's simulation, like any return).
  Collection is epsilon-greedy.
* ``--algo distil``: expert iteration. At every decision collected,
  :meth:`cardhouse.VectorEnv.search_visits` runs the engine's IS-MCTS for the seat to act
  (``--teacher-iterations`` determinizations; Rust, GIL released, ``--env-threads`` threads);
  the teacher plays its most visited move and the network learns its visit distribution by
  cross-entropy, from the seat's observation (and the heuristic's move with ``--hint``), on
  minibatches drawn from a replay buffer (``--buffer`` rows, each collection followed by
  ``--replay`` times its rows of training). With ``--teacher rollout`` the teacher is the
  engine's ``rollout`` bot instead (flat Monte Carlo of the heuristic from every action over
  common determinizations, :meth:`cardhouse.VectorEnv.rollout_search`); with
  ``--distil-loss value`` the network regresses its action values as gains over the
  heuristic's move, as DMC does; ``--dagger`` lets the student play a share of the moves.
  See ``_distil.py``.
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
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import torch

import cardhouse

from ._agent import Agent, export_policy, learner_seats, rank_sharing, sides
from ._distil import train_distil
from ._rl import _advantages, train_rl  # noqa: F401 (_advantages: for the tests)
from ._run import evaluate, plot

__all__ = [
    "Agent",
    "Config",
    "evaluate",
    "export_policy",
    "learner_seats",
    "load_agent",
    "main",
    "plot",
    "rank_sharing",
    "sides",
    "train",
]


@dataclass
class Config:
    """Everything a run depends on (the command line's flags, same names)."""

    game: str = "jass"
    algo: str = "dmc"
    """``ppo`` (masked PPO), ``dmc`` (Deep Monte-Carlo on branched rollouts: the network
    regresses, for every legal action, the return of playing it and then the rollout bot to
    the end, :meth:`cardhouse.VectorEnv.rollout_values`, and plays the argmax; with ``hint``
    it regresses each action's gain over the heuristic's move instead) or ``distil`` (the
    network imitates IS-MCTS's visit distributions, :meth:`cardhouse.VectorEnv.search_visits`)."""
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
    rank_sharing: bool = False
    """Share the network's weights across suits (Cribbage only, :func:`rank_sharing`): the
    rank counts of the card slices as extra inputs, each card's output and hint embedding
    with a part common to its rank; folded into plain layers at export."""
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
    teacher: str = "ismcts"
    """With ``distil``: ``ismcts`` (the network learns the search's visit distribution) or
    ``rollout`` (flat Monte Carlo of the heuristic from every action on common
    determinizations, :meth:`cardhouse.VectorEnv.rollout_search`; the network learns a
    softmax of the action values at ``label_temperature``)."""
    teacher_samples: int = 100
    """With ``distil`` and ``teacher=rollout``: determinizations per decision."""
    teacher_max_actions: int = 0
    """With ``distil`` and ``teacher=rollout``: search only decisions with at most this many
    legal actions (0: all); the others are the heuristic's, labelled as such (Cribbage: 4
    searches the play and leaves the discards, 6 and 5 cards, to the heuristic)."""
    teacher_playouts: int = 0
    """With ``distil`` and ``teacher=rollout``: instead of ``teacher_samples``, playouts per
    decision shared out among the seat's plans (0: ``teacher_samples``)."""
    label_temperature: float = 0.25
    """With ``distil`` and ``teacher=rollout``: the softmax temperature of the labels, in
    return units (Cribbage: points of a deal); 0 puts all on the best action."""
    distil_loss: str = "policy"
    """With ``distil``: ``policy`` (cross-entropy to the teacher's distribution) or, with
    ``teacher=rollout``, ``value`` (regress each action's gain over the heuristic's move;
    play it unless a gain above ``margin`` is predicted)."""
    dagger: float = 0.0
    """With ``distil``: the share of moves the student plays while the teacher labels (DAgger);
    the teacher's move otherwise."""
    teacher_iterations: int = 0
    """With ``distil``: the teacher's IS-MCTS iterations per decision (0: the game's default,
    as the ``ismcts`` bot)."""
    buffer: int = 500_000
    """With ``distil``: the replay buffer's capacity in labelled decisions."""
    replay: float = 4.0
    """With ``distil``: rows trained on per row collected (minibatches drawn from the buffer)."""
    batch_size: int = 256
    """With ``distil``: rows per minibatch."""
    out: str = "runs/train"


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
        rank_sharing(game) if config.rank_sharing else None,
    )
    agent.load_state_dict(saved["agent"])
    return agent, config


def train(config: Config, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Runs ``config.algo`` as ``config`` says; returns the run's summary (also written to
    ``summary.json`` in ``config.out``)."""
    if config.algo == "distil":
        return train_distil(config, log)
    if config.algo in ("ppo", "dmc"):
        return train_rl(config, log)
    raise ValueError(f"algo={config.algo!r}: distil, dmc or ppo")


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
