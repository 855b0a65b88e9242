"""VectorEnv: batched stepping equals single-state stepping, auto-reset, seeds, errors."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from helpers import DEAL_CONFIGS

import cardhouse


def choose(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks``."""
    noise = rng.random(masks.shape)
    return np.where(masks, noise, -1.0).argmax(axis=1).astype(np.int64)


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS + [("jass", {"target_score": 300})])
def test_equals_single_state_stepping(name: str, options: dict[str, Any]) -> None:
    num_envs, seed = 5, 17
    env = cardhouse.VectorEnv(name, num_envs, seed, **options)
    game = env.game
    rngs = [cardhouse.Rng(cardhouse.VectorEnv.env_seed(seed, i)) for i in range(num_envs)]
    states = []
    for r in rngs:
        s = game.new_initial_state()
        s.resolve_chance(r)
        states.append(s)

    def check(obs: np.ndarray, masks: np.ndarray, players: np.ndarray) -> None:
        for i, s in enumerate(states):
            assert players[i] == s.current_player
            np.testing.assert_array_equal(masks[i], s.legal_action_mask())
            np.testing.assert_array_equal(obs[i], s.observation(s.current_player))
            assert env.state(i).to_bytes() == s.to_bytes()

    obs, masks, players = env.reset()
    check(obs, masks, players)
    pick = np.random.default_rng(0)
    episodes_done = 0
    for _ in range(400):
        actions = choose(masks, pick)
        obs, masks, players, rewards, dones = env.step(actions)
        for i, s in enumerate(states):
            s.apply(int(actions[i]))
            if s.is_chance_node():
                s.resolve_chance(rngs[i])
            np.testing.assert_array_equal(rewards[i], np.asarray(s.rewards(), dtype=np.float32))
            assert dones[i] == s.is_terminal()
            if s.is_terminal():
                episodes_done += 1
                fresh = game.new_initial_state()
                fresh.resolve_chance(rngs[i])
                states[i] = fresh
        check(obs, masks, players)
    assert episodes_done > 0, "auto-reset must be exercised"


def test_shapes_and_dtypes() -> None:
    env = cardhouse.VectorEnv("jass", 8, 0, scope="deal")
    obs, masks, players = env.reset()
    n_obs = env.game.observation_shape
    assert env.observation_shape == n_obs
    assert obs.shape == (8, *n_obs) and obs.dtype == np.float32
    assert masks.shape == (8, env.num_distinct_actions) and masks.dtype == np.bool_
    assert players.shape == (8,) and players.dtype == np.int32
    obs, masks, players, rewards, dones = env.step(choose(masks, np.random.default_rng(1)))
    assert rewards.shape == (8, env.num_players) and rewards.dtype == np.float32
    assert dones.shape == (8,) and dones.dtype == np.bool_
    assert env.num_envs == 8 and env.num_players == 4
    assert repr(env) == "<cardhouse.VectorEnv jass × 8>"
    assert env.observations is obs or np.shares_memory(env.observations, obs)


def test_seed_reproduces_the_run() -> None:
    def run(seed: int) -> list[np.ndarray]:
        env = cardhouse.VectorEnv("jass", 4, seed, scope="deal")
        out = [env.reset()[0].copy()]
        rng = np.random.default_rng(3)
        masks = env.legal_action_masks
        for _ in range(100):
            obs, masks, _, rewards, _ = env.step(choose(masks, rng))
            out += [obs.copy(), rewards.copy()]
        return out

    a, b, c = run(1), run(1), run(2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


@pytest.mark.parametrize("num_envs", [1, 7, 64])
def test_threads_do_not_change_results(num_envs: int) -> None:
    def run(threads: int) -> list[np.ndarray]:
        env = cardhouse.VectorEnv("jass", num_envs, 3, num_threads=threads, scope="deal")
        assert env.num_threads == min(threads, num_envs)
        out = [env.reset()[0].copy()]
        rng = np.random.default_rng(3)
        masks = env.legal_action_masks
        for _ in range(60):
            obs, masks, players, rewards, dones = env.step(choose(masks, rng))
            out += [obs.copy(), masks.copy(), players.copy(), rewards.copy(), dones.copy()]
        return out

    single = run(1)
    for threads in (2, 3):
        assert all(np.array_equal(x, y) for x, y in zip(single, run(threads)))


def test_threaded_illegal_action_changes_nothing() -> None:
    env = cardhouse.VectorEnv("jass", 8, 0, num_threads=2, scope="deal")
    _, masks, _ = env.reset()
    before = [env.state(i).to_bytes() for i in range(8)]
    actions = choose(masks, np.random.default_rng(0))
    actions[6] = int(np.flatnonzero(~masks[6])[0])
    with pytest.raises(cardhouse.IllegalActionError, match=r"^env 6: "):
        env.step(actions)
    assert [env.state(i).to_bytes() for i in range(8)] == before


def test_reset_with_seed_restarts_the_streams() -> None:
    env = cardhouse.VectorEnv("jass", 3, 5, scope="deal")
    first = env.reset(seed=5)[0].copy()
    env.step(choose(env.legal_action_masks, np.random.default_rng(0)))
    assert not np.array_equal(env.reset()[0], first), "reset() continues the streams"
    np.testing.assert_array_equal(env.reset(seed=5)[0], first)


def test_illegal_action_names_the_env_and_changes_nothing() -> None:
    env = cardhouse.VectorEnv("jass", 3, 0, scope="deal")
    _, masks, _ = env.reset()
    before = [env.state(i).to_bytes() for i in range(3)]
    obs_before = env.observations.copy()
    actions = choose(masks, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(cardhouse.IllegalActionError, match=r"^env 1: "):
        env.step(actions)
    assert [env.state(i).to_bytes() for i in range(3)] == before
    np.testing.assert_array_equal(env.observations, obs_before)
    actions[1] = -5
    with pytest.raises(cardhouse.IllegalActionError, match=r"env 1: action -5 does not exist"):
        env.step(actions)


def test_actions_as_list_and_other_dtypes() -> None:
    env = cardhouse.VectorEnv("jass", 2, 0, scope="deal")
    _, masks, _ = env.reset()
    actions = choose(masks, np.random.default_rng(0))
    env.step([int(a) for a in actions])
    _, masks, _ = env.reset()
    env.step(choose(masks, np.random.default_rng(0)).astype(np.int32))
    _, masks, _ = env.reset()
    strided = np.zeros((2, 2), dtype=np.int64)
    strided[:, 0] = choose(masks, np.random.default_rng(0))
    env.step(strided[:, 0])
    with pytest.raises(ValueError, match="expected 2 actions"):
        env.step([0, 0, 0])
    with pytest.raises(ValueError, match="1-d"):
        env.step(np.zeros((2, 2), dtype=np.int64))


def test_bad_construction() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        cardhouse.VectorEnv("jass", 0, 0)
    with pytest.raises(ValueError, match="num_threads"):
        cardhouse.VectorEnv("jass", 1, 0, num_threads=0)
    with pytest.raises(cardhouse.UnknownGameError):
        cardhouse.VectorEnv("nope", 1, 0)
    with pytest.raises(cardhouse.InvalidOptionError):
        cardhouse.VectorEnv("jass", 1, 0, scope="never")
    env = cardhouse.VectorEnv("jass", 1, 0)
    with pytest.raises(IndexError):
        env.state(1)


def test_threads_step_concurrently() -> None:
    """Stepping releases the GIL: two threads with their own envs both make progress."""
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            env = cardhouse.VectorEnv("jass", 16, seed, scope="deal")
            rng = np.random.default_rng(seed)
            masks = env.legal_action_masks
            for _ in range(200):
                masks = env.step(choose(masks, rng))[1]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
