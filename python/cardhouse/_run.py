"""What every algorithm of :mod:`cardhouse.train` shares: the duplicate-deal evaluation, the
CSV logs, the training clock, checkpoints and the learning-curve plot (:class:`Run`)."""

from __future__ import annotations

import csv
import json
import math
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import torch

import cardhouse
from cardhouse import bots as _bots

from ._agent import Agent, export_policy, learner_seats

__all__ = ["Run", "evaluate", "plot"]


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


class Run:
    """One training run's bookkeeping, the same for every algorithm: the output directory, the
    training clock (``clock``: seconds in the engine, in the policy's forward passes and in
    the updates; their sum is what ``config.minutes`` budgets), ``progress.csv`` (one row per
    update), the periodic and final evaluations (``eval.csv``, with the policy file and the
    checkpoint written each time), ``summary.json`` and ``curve.png``."""

    def __init__(
        self, config: Any, game: cardhouse.Game, log: Callable[[str], None], method: str
    ) -> None:
        self.config = config
        self.game = game
        self.log = log
        self.out = Path(config.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.info = f"{method} vs {config.opponent}, options {config.options}, hint {config.hint}"
        self.progress = _Csv(self.out / "progress.csv")
        self.evals = _Csv(self.out / "eval.csv")
        self.clock = {"engine": 0.0, "policy": 0.0, "update": 0.0}
        self.budget = float(config.minutes) * 60.0
        self.eval_seconds = 0.0
        self.eval_rows: list[dict[str, Any]] = []
        self.next_eval = config.eval_every * 60.0 if config.eval_every > 0 else math.inf

    def trained(self) -> float:
        """Seconds of training so far (the evaluations are timed apart)."""
        return self.clock["engine"] + self.clock["policy"] + self.clock["update"]

    def running(self, steps: int) -> bool:
        """Whether the budget (time, and ``max_steps`` if set) is left."""
        c = self.config
        return self.trained() < self.budget and not (c.max_steps and steps >= c.max_steps)

    def lr_fraction(self, steps: int) -> float:
        """The share of the budget left (the learning rate decays linearly to 0 with it)."""
        frac: float = max(0.0, 1.0 - self.trained() / self.budget)
        if self.config.max_steps:
            frac = min(frac, max(0.0, 1.0 - steps / float(self.config.max_steps)))
        return frac

    def decay_lr(self, optimizer: torch.optim.Optimizer, steps: int) -> None:
        """Sets ``optimizer``'s learning rate to ``config.lr`` times :meth:`lr_fraction`."""
        frac = self.lr_fraction(steps)
        for g in optimizer.param_groups:
            g["lr"] = self.config.lr * frac

    def log_update(
        self,
        agent: Agent,
        updates: int,
        steps: int,
        finished: list[np.ndarray],
        losses: dict[str, float],
    ) -> None:
        """One row of ``progress.csv`` (and a line of the log now and then); ``finished``
        holds the returns of side 0 in the games that ended since the last row."""
        done_returns = np.concatenate(finished) if finished else np.zeros(0)
        trained = self.trained()
        row = {
            "update": updates,
            "train_seconds": round(trained, 2),
            "env_steps": steps,
            "games": len(done_returns),
            "train_return": float(done_returns.mean()) if len(done_returns) else math.nan,
            "train_win_rate": float((done_returns > 0).mean()) if len(done_returns) else math.nan,
            **losses,
            "hint_bonus": float(agent.hint_bonus.item()) if agent.hint_bonus is not None else 0.0,
            "steps_per_second": steps / max(trained, 1e-9),
            "engine_seconds": round(self.clock["engine"], 2),
            "policy_seconds": round(self.clock["policy"], 2),
            "update_seconds": round(self.clock["update"], 2),
        }
        self.progress.write(row)
        if updates % 20 == 1:
            shown = ", ".join(f"{k} {v:.3f}" for k, v in losses.items())
            self.log(
                f"update {updates}: {steps} steps in {trained:.0f} s "
                f"({row['steps_per_second']:.0f}/s), training win rate "
                f"{row['train_win_rate']:.3f}, return {row['train_return']:+.1f}, {shown}"
            )

    def maybe_evaluate(self, agent: Agent, steps: int, updates: int) -> None:
        """Evaluates if ``eval_every`` minutes of training have passed since the last time
        (and the budget is not spent: the final evaluation follows then)."""
        if self.trained() >= self.next_eval and self.running(steps):
            self.log(f"evaluation after {self.trained() / 60:.1f} min, {steps} steps:")
            self.evaluate(agent, steps, updates, final=False)
            self.next_eval += self.config.eval_every * 60.0

    def evaluate(self, agent: Agent, steps: int, updates: int, final: bool) -> None:
        """Writes ``policy.chp`` and ``agent.pt``, then plays the policy file in the engine's
        arena in duplicate deals against random, heuristic and IS-MCTS (``eval.csv``)."""
        c = self.config
        start = time.perf_counter()
        data = export_policy(agent, self.game, c.game, self.info + f", {steps} steps")
        (self.out / "policy.chp").write_bytes(data)
        torch.save({"agent": agent.state_dict(), "config": asdict(c)}, self.out / "agent.pt")
        bot = _bots.policy(data, self.game)
        sets = c.final_sets if final else c.eval_sets
        opponents = [("random", sets), ("heuristic", sets)]
        ismcts, ismcts_sets = (
            (c.final_ismcts, c.final_ismcts_sets) if final else (c.eval_ismcts, c.eval_ismcts_sets)
        )
        if ismcts and ismcts_sets > 0:
            opponents.append((ismcts, ismcts_sets))
        for row in evaluate(bot, self.game, opponents, seed=10_000 + updates, threads=c.eval_threads):
            row = {"train_seconds": round(self.trained(), 1), "env_steps": steps, "final": final, **row}
            self.evals.write(row)
            self.eval_rows.append(row)
            self.log(
                f"  eval vs {row['opponent']:>12}: win rate {row['win_rate']:.3f} "
                f"[{row['win_rate_lo']:.3f}, {row['win_rate_hi']:.3f}] over {row['sets']} "
                f"duplicate sets, mean return {row['mean_return']:+.2f}"
            )
        self.eval_seconds += time.perf_counter() - start

    def finish(self, agent: Agent, steps: int, updates: int, **extra: Any) -> dict[str, Any]:
        """The final evaluation, ``summary.json`` (returned) and ``curve.png``."""
        self.log(f"final evaluation after {self.trained() / 60:.1f} min, {steps} steps:")
        self.evaluate(agent, steps, updates, final=True)
        self.progress.close()
        self.evals.close()
        summary = {
            "config": asdict(self.config),
            "env_steps": steps,
            "updates": updates,
            "train_seconds": self.trained(),
            "eval_seconds": self.eval_seconds,
            "steps_per_second": steps / max(self.trained(), 1e-9),
            "seconds": dict(self.clock),
            **extra,
            "final_eval": [r for r in self.eval_rows if r["final"]],
        }
        (self.out / "summary.json").write_text(json.dumps(summary, indent=2))
        try:
            plot(self.out, self.out / "curve.png")
        except ImportError:
            pass
        return summary


def plot(run: str | os.PathLike[str], path: str | os.PathLike[str] | None = None) -> Any:
    """The learning curve of a run directory: the training win rate against the opponent
    (per update, smoothed) and the evaluations' duplicate win rates with their 95% intervals,
    over environment steps (with ``distil``: labelled decisions, and the training games are the
    teacher's). Returns the matplotlib figure (saved to ``path`` if given)."""
    import matplotlib.pyplot as plt

    run = Path(run)
    algo, teacher = "?", "ismcts"
    if (run / "summary.json").is_file():
        saved = json.loads((run / "summary.json").read_text())["config"]
        algo, teacher = saved["algo"], saved.get("teacher", "ismcts")
    games = "the teacher's training games" if algo == "distil" else "training games"
    with open(run / "progress.csv") as f:
        prog = list(csv.DictReader(f))
    with open(run / "eval.csv") as f:
        ev = list(csv.DictReader(f))
    x = np.array([float(r["env_steps"]) for r in prog]) / 1e6
    y = np.array([float(r["train_win_rate"]) for r in prog])
    window = max(1, len(y) // 25)
    smooth = np.convolve(y, np.ones(window) / window, mode="valid")
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(x[window - 1 :], smooth, color="0.6", lw=1, label=f"{games} (not duplicate)")
    for k, opp in enumerate(dict.fromkeys(r["opponent"] for r in ev)):
        rows = [r for r in ev if r["opponent"] == opp]
        ex = np.array([float(r["env_steps"]) for r in rows]) / 1e6
        wr = np.array([float(r["win_rate"]) for r in rows])
        lo = wr - np.array([float(r["win_rate_lo"]) for r in rows])
        hi = np.array([float(r["win_rate_hi"]) for r in rows]) - wr
        ax.errorbar(ex, wr, yerr=[lo, hi], fmt="o-", ms=3, capsize=2, color=f"C{k}", label=f"duplicate vs {opp}")
    ax.axhline(0.5, ls="--", color="0.3", lw=0.8)
    steps = "labelled decisions" if algo == "distil" else "environment steps"
    ax.set(xlabel=f"{steps} (millions)", ylabel="win rate", ylim=(0, 1))
    distil = "rollout distillation" if teacher == "rollout" else "IS-MCTS distillation"
    title = {"dmc": "DMC", "ppo": "masked PPO", "distil": distil}.get(algo, algo)
    ax.set_title(f"{run.name}: {title}", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=60)
    return fig


def minibatches(rng: np.random.Generator, rows: int, minibatches: int, epochs: int) -> Iterator[torch.Tensor]:
    """The row indices of each minibatch: ``epochs`` shuffles of ``rows`` rows, each cut into
    ``minibatches`` equal parts (the remainder left out)."""
    size = rows // minibatches
    for _ in range(epochs):
        order = torch.from_numpy(rng.permutation(rows))
        for k in range(minibatches):
            yield order[k * size : (k + 1) * size]
