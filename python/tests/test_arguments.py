"""Every numeric parameter of the Python API, swept with extreme values: an argument is
either accepted or refused with a ValueError (TypeError for a value of the wrong type,
IndexError for an index, MemoryError when memory runs out), never with a PanicException and
never by aborting the interpreter."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cardhouse
from cardhouse import bots

#: Ints at and beyond every boundary, floats that are not numbers or do not fit, and
#: values of the wrong type.
EXTREMES: list[Any] = [
    0,
    1,
    -1,
    2**31,
    10**12,
    2**62,
    2**63,
    2**64,
    -(2**63) - 1,
    -(2**64),
    2**200,
    float("nan"),
    float("inf"),
    float("-inf"),
    1e300,
    -1e300,
    5e-324,
    1.5,
    "3",
    None,
    True,
    [1],
    np.int64(-1),
    np.uint64(2**64 - 1),
    np.float32("nan"),
    np.float64(1e20),
]

#: What an argument may be refused with.
REFUSALS = (ValueError, TypeError, IndexError, MemoryError)


def check(label: str, fn: Callable[[Any], object], values: list[Any] = EXTREMES) -> None:
    """Calls ``fn(v)`` for every value; fails on anything but success or a refusal."""
    for v in values:
        try:
            fn(v)
        except REFUSALS:
            pass
        except BaseException as e:  # PanicException derives from BaseException
            pytest.fail(f"{label}({v!r}) raised {type(e).__module__}.{type(e).__name__}: {e}")


def _dealt(game: cardhouse.Game) -> cardhouse.State:
    state = game.new_initial_state()
    state.resolve_chance(seed=1)
    return state


GAME = cardhouse.new_game("klaberjass", scope="deal")
STATE = _dealt(GAME)
CHANCE = GAME.new_initial_state()
OBS_LEN = int(np.prod(GAME.observation_shape))


def test_game_options_of_every_game() -> None:
    for name in cardhouse.list_games():
        for spec in cardhouse.option_specs(name):
            check(
                f"new_game({name!r}, {spec['name']}=)",
                lambda v, n=name, k=spec["name"]: cardhouse.new_game(n, **{k: v}),
            )
            check(
                f"Game({name!r}, {{{spec['name']!r}: }})",
                lambda v, n=name, k=spec["name"]: cardhouse.Game(n, {k: v}),
            )


def test_state_and_game_parameters() -> None:
    check("Game.replay", lambda v: GAME.replay([v]))
    check("Game.replay(list)", lambda v: GAME.replay(v))
    check("Rng", lambda v: cardhouse.Rng(v))
    check("Rng.below", lambda v: cardhouse.Rng(1).below(v))
    check("State.apply_random_chance", lambda v: CHANCE.clone().apply_random_chance(v))
    check("State.resolve_chance", lambda v: CHANCE.clone().resolve_chance(v))
    for method in ("apply", "apply_action"):
        check(f"State.{method}", lambda v, m=method: getattr(STATE.clone(), m)(v))
    for method in ("child", "action_to_string"):
        check(f"State.{method}", lambda v, m=method: getattr(STATE, m)(v))
    for method in ("observation", "observation_tensor", "observation_string", "view"):
        check(f"State.{method}", lambda v, m=method: getattr(STATE, m)(v))
    check(
        "State.write_observation(seat)",
        lambda v: STATE.write_observation(v, np.zeros(OBS_LEN, np.float32)),
    )
    check("State.resample(seat)", lambda v: STATE.resample(v, 1))
    check("State.resample(seed)", lambda v: STATE.resample(0, v))


def test_observation_buffers_of_every_shape_and_dtype() -> None:
    buffers: list[Any] = [
        np.zeros(OBS_LEN, np.float64),
        np.zeros(OBS_LEN, np.int32),
        np.zeros(OBS_LEN, np.float16),
        np.zeros(OBS_LEN - 1, np.float32),
        np.zeros(OBS_LEN + 1, np.float32),
        np.zeros(0, np.float32),
        np.zeros((2, OBS_LEN), np.float32)[:, 0],
        np.zeros(2 * OBS_LEN, np.float32)[::2],
        np.zeros((), np.float32),
        [0.0] * OBS_LEN,
        None,
        b"\x00" * (4 * OBS_LEN),
    ]
    frozen = np.zeros(OBS_LEN, np.float32)
    frozen.setflags(write=False)
    buffers.append(frozen)
    resized = np.zeros(OBS_LEN, np.float32)
    resized.resize((3,), refcheck=False)
    buffers.append(resized)
    check("State.write_observation(out)", lambda out: STATE.write_observation(0, out), buffers)


def test_vector_env_parameters() -> None:
    check("VectorEnv(num_envs)", lambda v: cardhouse.VectorEnv("klaberjass", v, 0))
    check("VectorEnv(seed)", lambda v: cardhouse.VectorEnv("klaberjass", 2, v))
    check(
        "VectorEnv(num_threads)",
        lambda v: cardhouse.VectorEnv("klaberjass", 2, 0, num_threads=v),
    )
    check(
        "VectorEnv(target_score)",
        lambda v: cardhouse.VectorEnv("klaberjass", 2, 0, target_score=v),
    )
    check("VectorEnv.env_seed(seed)", lambda v: cardhouse.VectorEnv.env_seed(v, 0))
    check("VectorEnv.env_seed(index)", lambda v: cardhouse.VectorEnv.env_seed(0, v))
    env = cardhouse.VectorEnv("klaberjass", 4, 0, scope="deal")
    check("VectorEnv.reset(seed)", lambda v: env.reset(seed=v))
    check("VectorEnv.state(index)", lambda v: env.state(v))
    check("VectorEnv.step(action)", lambda v: env.step([v] * env.num_envs))
    check("VectorEnv.step(actions)", lambda v: env.step(v))


def test_vector_env_step_arrays_of_every_shape_and_dtype() -> None:
    env = cardhouse.VectorEnv("klaberjass", 4, 0, scope="deal")
    _, masks, _ = env.reset(seed=1)
    legal = np.array([np.flatnonzero(m)[0] for m in masks])
    arrays: list[Any] = [
        legal.astype(np.float64),
        legal.astype(np.float64) + 0.5,
        legal.astype(np.int8),
        legal.astype(np.uint64),
        legal.astype(bool),
        legal.astype(object),
        legal.astype(str),
        np.full(4, np.nan),
        np.full(4, 2**64 - 1, np.uint64),
        np.full(4, -1, np.int64),
        legal[:3],
        np.concatenate([legal, legal]),
        legal.reshape(2, 2),
        np.zeros((), np.int64),
        np.stack([legal, legal], axis=1)[:, 0],
    ]
    check("VectorEnv.step(array)", lambda a: env.step(a), arrays)


def test_vector_env_output_arrays_resized_or_frozen_by_the_caller() -> None:
    for spoil in ("resize", "freeze"):
        env = cardhouse.VectorEnv("klaberjass", 4, 0, scope="deal")
        obs, masks, players = env.reset(seed=1)
        legal = [int(np.flatnonzero(m)[0]) for m in masks]
        if spoil == "resize":
            obs.resize((3,), refcheck=False)
        else:
            masks.setflags(write=False)
        with pytest.raises(cardhouse.BufferSizeError):
            env.step(legal)
        with pytest.raises(cardhouse.BufferSizeError):
            env.reset(seed=1)


def test_bots_and_simulation_parameters() -> None:
    for make in (bots.random, bots.heuristic, bots.ismcts):
        check(f"bots.{make.__name__}(seed)", lambda v, f=make: f(GAME, seed=v))
    check("bots.ismcts(iterations)", lambda v: bots.ismcts(GAME, iterations=v))
    check(
        "bots.ismcts(time_budget)",
        lambda v: bots.ismcts(GAME, iterations=1, time_budget=v).act(STATE),
    )
    bot = bots.heuristic(GAME)
    check("Bot.act(seat)", lambda v: bot.act(STATE, v))
    from cardhouse._core import _simulate

    lineup = ["random", "random"]
    check("_simulate(seed)", lambda v: _simulate(GAME, lineup, v, 0, 1))
    check("_simulate(start)", lambda v: _simulate(GAME, lineup, 0, v, 1))
    check("_simulate(stop)", lambda v: _simulate(GAME, lineup, 0, 0, v))


def test_wrappers_parameters() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import cardhouse.gymnasium as cg

    check("CardhouseEnv(seat)", lambda v: cg.CardhouseEnv("klaberjass", seat=v, scope="deal"))
    check(
        "CardhouseEnv(illegal_reward)",
        lambda v: cg.CardhouseEnv("klaberjass", illegal_reward=v, scope="deal"),
    )
    env = cg.CardhouseEnv("klaberjass", scope="deal")
    check("CardhouseEnv.reset(seed)", lambda v: env.reset(seed=v))
    env.reset(seed=1)
    check("CardhouseEnv.step(action)", lambda v: env.step(v))
    assert gymnasium is not None
    pytest.importorskip("pettingzoo")
    import cardhouse.pettingzoo as cp

    aec = cp.env("klaberjass", scope="deal")
    check("AEC env.reset(seed)", lambda v: aec.reset(seed=v))
    aec.reset(seed=1)
    check("AEC env.step(action)", lambda v: aec.step(v))


def test_huge_sizes_are_value_errors_with_their_name() -> None:
    for n in (10**12, 2**62, 2**64):
        with pytest.raises(ValueError, match="num_envs"):
            cardhouse.VectorEnv("klaberjass", n, 0)
    with pytest.raises(ValueError, match="num_envs"):
        cardhouse.VectorEnv("klaberjass", -1, 0)
    with pytest.raises(ValueError, match="num_threads"):
        cardhouse.VectorEnv("klaberjass", 2, 0, num_threads=2**62)
    with pytest.raises(ValueError, match="time_budget"):
        bots.ismcts(GAME, time_budget=1e20)
    with pytest.raises(ValueError, match="time_budget"):
        bots.ismcts(GAME, time_budget=float("nan"))
    with pytest.raises(ValueError, match="iterations"):
        bots.ismcts(GAME, iterations=2**62)
    from cardhouse._core import _simulate

    with pytest.raises(ValueError, match="matches"):
        _simulate(GAME, ["random", "random"], 0, 0, 2**62)


def test_allocation_failure_is_a_memory_error() -> None:
    # In a child whose address space is capped, so that nothing here allocates much.
    code = textwrap.dedent(
        """
        import resource
        import cardhouse
        resource.setrlimit(resource.RLIMIT_AS, (2_000_000_000, 2_000_000_000))
        try:
            cardhouse.VectorEnv("jass", 2**24, 0)
        except MemoryError as e:
            print("MemoryError", e)
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("MemoryError"), run.stdout + run.stderr
