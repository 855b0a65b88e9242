"""cardhouse.train: the GAE scan on hand-made rollouts, the exported policy equals the
PyTorch network in the engine, a short training run (masked PPO from the observation
alone, no hint; bounded: 150,000 steps, about 15 s on two free cores, at most 5 minutes of
training on a loaded machine) learns to beat the random bot in duplicate deals, and so does a
short distillation of IS-MCTS (6,000 labelled decisions, a few seconds). Needs torch."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import cardhouse
from cardhouse import bots

torch = pytest.importorskip("torch")
train = pytest.importorskip("cardhouse.train")


def test_advantages_follow_each_seats_own_decisions() -> None:
    # One env, two seats of opposite sides alternating; the game ends after row 3, seat 1
    # having moved last. Returns: seat 0 +1, seat 1 -1. lambda 1: advantage = return - value.
    values = np.array([[0.1], [0.2], [0.3], [0.4]], dtype=np.float32)
    players = np.array([[0], [1], [0], [1]])
    rewards = np.zeros((4, 1, 2), dtype=np.float32)
    rewards[3, 0] = [1.0, -1.0]
    dones = np.array([[False], [False], [False], [True]])
    adv = train._advantages(
        values, players, rewards, dones, np.zeros(1, np.float32), np.zeros(1, np.int64), 2, 1.0
    )
    np.testing.assert_allclose(adv[:, 0], [1 - 0.1, -1 - 0.2, 1 - 0.3, -1 - 0.4], atol=1e-6)
    # Unfinished at the cut: the seat to act (0) bootstraps from last_value for its side;
    # seat 1 (the other side) gets no advantage at its last row.
    dones[:] = False
    adv = train._advantages(
        values, players, np.zeros_like(rewards), dones, np.array([0.9], np.float32),
        np.array([0]), 2, 1.0,
    )
    np.testing.assert_allclose(adv[:, 0], [0.9 - 0.1, 0.4 - 0.2, 0.9 - 0.3, 0.0], atol=1e-6)


@pytest.mark.parametrize("hint, sharing", [(False, False), (True, False), (True, True)])
def test_the_engine_evaluates_the_exported_network(hint: bool, sharing: bool) -> None:
    # With sharing (weights shared across suits), the shared parts fold into plain layers.
    game = cardhouse.new_game("cribbage", scope="deal")
    shared = train.rank_sharing(game) if sharing else None
    agent = train.Agent(
        game.observation_shape[0], game.num_distinct_actions, 16, 2.0 if hint else None, shared
    )
    with torch.no_grad():
        for p in agent.parameters():
            p.normal_(0, 0.2)
    bot = bots.policy(train.export_policy(agent, game, "t", "test"), game)
    info = bot.policy_info
    assert info is not None and info["game"] == "cribbage" and info["info"] == "test"
    assert (info["hint_bonus"] is not None) == hint
    env = cardhouse.VectorEnv("cribbage", 32, 1, bots={1: "heuristic"}, hints=hint, scope="deal")
    obs, masks, _ = env.reset()
    for _ in range(5):
        h = env.heuristic_actions.astype(np.int64)
        with torch.no_grad():
            logits, _ = agent(torch.from_numpy(obs), torch.from_numpy(masks), torch.from_numpy(h) if hint else None)
        for i in range(len(obs)):
            got = bot.policy_logits(obs[i].tolist(), int(h[i]) if hint else None)
            np.testing.assert_allclose(got[masks[i]], logits[i].numpy()[masks[i]], rtol=1e-4, atol=1e-4)
        obs, masks, _, _, _ = env.step(logits.argmax(1).numpy())


def test_a_short_run_beats_random(tmp_path: Path) -> None:
    config = train.Config(
        game="klaberjass",
        algo="ppo",
        opponent="random",
        hint=False,
        lr=1e-3,
        minutes=5,
        max_steps=150_000,
        num_envs=128,
        steps=32,
        eval_every=0,
        final_sets=400,
        final_ismcts_sets=0,
        eval_threads=2,
        out=str(tmp_path / "run"),
    )
    summary = train.train(config, log=lambda _: None)
    final = {row["opponent"]: row for row in summary["final_eval"]}
    assert final["random"]["win_rate_lo"] > 0.5, final
    for name in ("progress.csv", "eval.csv", "policy.chp", "agent.pt", "summary.json"):
        assert (tmp_path / "run" / name).is_file(), name
    with open(tmp_path / "run" / "progress.csv") as f:
        assert len(list(csv.DictReader(f))) == summary["updates"]
    # The saved policy is a bot everywhere: in Python and in the arena.
    policy = bots.policy(tmp_path / "run" / "policy.chp")
    state = cardhouse.new_game("klaberjass", scope="deal").new_initial_state()
    state.resolve_chance(cardhouse.Rng(3))
    assert policy.act(state) in state.legal_actions()
    agent, loaded = train.load_agent(tmp_path / "run" / "agent.pt")
    assert loaded == config
    assert isinstance(agent, train.Agent)


def test_distillation_seats_the_learner_on_every_side() -> None:
    from cardhouse._distil import side_seats

    assert side_seats(cardhouse.new_game("jass", scope="deal"), "heuristic") == [[0, 2], [1, 3]]
    assert side_seats(cardhouse.new_game("cribbage", scope="deal"), "random") == [[0], [1]]
    assert side_seats(cardhouse.new_game("avinas", scope="deal"), "self") == [[0, 1, 2, 3]]


def test_a_short_distillation_beats_random(tmp_path: Path) -> None:
    # IS-MCTS (20 iterations) labels about 6,000 Klaberjass decisions against the heuristic:
    # a few seconds. The student, with the heuristic's move as an input, beats random.
    config = train.Config(
        game="klaberjass",
        algo="distil",
        opponent="heuristic",
        teacher_iterations=20,
        lr=1e-3,
        minutes=5,
        max_steps=6_000,
        num_envs=64,
        steps=4,
        env_threads=2,
        eval_every=0,
        final_sets=300,
        final_ismcts_sets=0,
        out=str(tmp_path / "run"),
    )
    summary = train.train(config, log=lambda _: None)
    assert summary["labels"] == summary["env_steps"] >= 6_000
    final = {row["opponent"]: row for row in summary["final_eval"]}
    assert final["random"]["win_rate_lo"] > 0.5, final
    with open(tmp_path / "run" / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == summary["updates"]
    assert 0.0 <= float(rows[-1]["student_matches_teacher"]) <= 1.0
    policy = bots.policy(tmp_path / "run" / "policy.chp")
    assert "distilled from ismcts:20" in (policy.policy_info or {})["info"]
    agent, loaded = train.load_agent(tmp_path / "run" / "agent.pt")
    assert loaded == config and agent.hint_bonus is not None


def test_ppo_and_dmc_collect_from_every_side(tmp_path: Path) -> None:
    # One-deal Jass: seat 0 deals every game, so only a learner on side 1 would ever choose
    # trumps were it seated on one side; PPO and DMC seat it on both (half the envs each).
    from cardhouse._rl import SideEnvs

    game = cardhouse.new_game("jass", scope="deal")
    env = SideEnvs(train.Config(game="jass", num_envs=8), game)
    assert env.num_envs == 8 and env.learner.tolist() == [0] * 4 + [1] * 4
    assert env.learner_seats == [[0, 2], [1, 3]]
    obs, mask, player = env.reset()
    for _ in range(40):
        # Every row is a decision of the learner's side of its env.
        assert (player % 2 == env.learner % 2).all(), player
        obs, mask, player, _, _ = env.step(env.heuristic_actions)
    assert obs.shape == (8, game.observation_shape[0]) and mask.shape[0] == 8
    assert env.rollout_values("heuristic").shape == (8, game.num_distinct_actions)
    # A short DMC run goes through the loop with both sides.
    config = train.Config(
        game="cribbage", algo="dmc", max_steps=512, num_envs=32, steps=8, eval_every=0,
        final_sets=20, final_ismcts_sets=0, out=str(tmp_path / "run"),
    )
    summary = train.train(config, log=lambda _: None)
    assert summary["env_steps"] >= 512


def test_rollout_search_values_the_legal_actions() -> None:
    env = cardhouse.VectorEnv("cribbage", 6, 2, bots={1: "heuristic"}, scope="deal")
    obs, mask, _ = env.reset()
    for _ in range(8):
        values = env.rollout_search(8)
        assert values.shape == mask.shape and (values[~mask] == 0).all()
        # A forced move is not searched (0); otherwise a discard or a play has values.
        forced = mask.sum(1) == 1
        assert (values[forced] == 0).all()
        for playouts in (None, 40):
            again = cardhouse.VectorEnv("cribbage", 6, 2, bots={1: "heuristic"}, scope="deal")
            assert again.rollout_search(8, playouts).shape == values.shape
        obs, mask, _, _, _ = env.step(np.where(mask, values, -np.inf).argmax(1))
    with pytest.raises(cardhouse.InvalidOptionError):
        env.rollout_search(0)


@pytest.mark.parametrize("loss", ["policy", "value"])
def test_a_short_distillation_of_rollouts_runs(tmp_path: Path, loss: str) -> None:
    config = train.Config(
        game="cribbage", algo="distil", teacher="rollout", teacher_playouts=60, dagger=0.5,
        distil_loss=loss,
        max_steps=600, num_envs=32, steps=2, eval_every=0, final_sets=20,
        final_ismcts_sets=0, out=str(tmp_path / "run"),
    )
    summary = train.train(config, log=lambda _: None)
    assert summary["labels"] >= 600
    policy = bots.policy(tmp_path / "run" / "policy.chp")
    info = policy.policy_info or {}
    assert "distilled from rollout (60 playouts a decision)" in info["info"]
    if loss == "value":
        # The margin is fixed: the hint bonus is not learned.
        assert info["hint_bonus"] == pytest.approx(config.margin)
