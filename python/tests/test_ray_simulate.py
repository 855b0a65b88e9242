"""cardhouse.ray.simulate: matches spread over Ray tasks give exactly the local result (and
the figures of ``cardhouse simulate``) for a fixed seed, whatever the number of tasks.

Ray is not optional here: scripts/test-all.sh installs it, and these tests must run in CI.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import ray

import cardhouse
import cardhouse.ray as cray


@pytest.fixture(scope="module", autouse=True)
def ray_two_cpus() -> Iterator[None]:
    if ray.is_initialized():  # left running by another test module
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


JASS = ["heuristic", "random", "heuristic", "random"]


@pytest.mark.parametrize(
    ("game", "bots", "options"),
    [
        ("jass", JASS, {"scope": "deal"}),
        ("klaberjass", ["heuristic", "random"], {"scope": "deal"}),
        ("cribbage", ["random", "heuristic", "random"], {"players": 3, "scope": "deal"}),
        ("avinas", ["heuristic", "random", "random", "heuristic"], {"scope": "deal"}),
    ],
)
@pytest.mark.parametrize("duplicate", [False, True], ids=["matches", "duplicate"])
def test_distributed_equals_local(
    game: str, bots: list[str], options: dict[str, Any], duplicate: bool
) -> None:
    local = cray.simulate(game, bots, 41, seed=2026, duplicate=duplicate, local=True, **options)
    assert local.tasks == 0 and local.returns.shape == (41, len(local.sides))
    for tasks in (1, 2, 3, 41, 100):
        remote = cray.simulate(game, bots, 41, seed=2026, duplicate=duplicate, tasks=tasks, **options)
        assert remote.tasks == min(tasks, 41)
        assert remote == local
        np.testing.assert_array_equal(remote.returns, local.returns)
    # Another seed, other matches.
    other = cray.simulate(game, bots, 41, seed=2027, duplicate=duplicate, local=True, **options)
    assert not np.array_equal(other.returns, local.returns)


def test_default_tasks_use_the_cluster_cpus() -> None:
    result = cray.simulate("jass", JASS, 10, seed=1, scope="deal")
    assert result.tasks == 2


def test_same_figures_as_the_command_line() -> None:
    # `cardhouse simulate jass -o scope=deal --bots heuristic,random,heuristic,random
    #  --matches 50 --seed 7 --json`
    result = cray.simulate("jass", JASS, 50, seed=7, tasks=3, scope="deal")
    ours, theirs = result.sides
    assert (ours.side, ours.seats, ours.bots) == (0, (0, 2), ("heuristic", "heuristic"))
    assert ours.win_rate == 0.76 and theirs.win_rate == 0.24
    assert ours.win_rate_ci == (0.6258705062480763, 0.8570274759812779)
    assert ours.mean_return == 140.36 and theirs.mean_return == -140.36
    assert ours.mean_return_ci == (86.01660165797506, 194.70339834202497)
    assert result.matches_played == 50


def test_duplicate_counts_every_match_and_is_zero_sum() -> None:
    result = cray.simulate(
        "klaberjass", ["heuristic", "random"], 5, seed=3, duplicate=True, tasks=2, scope="deal"
    )
    assert result.matches_played == 10
    np.testing.assert_allclose(result.returns.sum(axis=1), 0.0)


def test_game_object_and_options() -> None:
    game = cardhouse.new_game("jass", scope="deal", wys="auto")
    a = cray.simulate(game, JASS, 6, seed=5, tasks=2)
    b = cray.simulate("jass", JASS, 6, seed=5, local=True, scope="deal", wys="auto")
    assert a == b and a.options["wys"] == "auto"


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("poker", ["random"] * 2, 5), {}, cardhouse.UnknownGameError, "poker"),
        (("jass", JASS, 5), {"colour": 2}, cardhouse.InvalidOptionError, "colour"),
        ((3, JASS, 5), {}, cardhouse.InvalidOptionError, "give a game name"),
        (("jass", ["random"] * 3, 5), {}, cardhouse.InvalidOptionError, "3 bots given: jass has 4 seats"),
        (("jass", ["random", "genius", "random", "random"], 5), {}, cardhouse.InvalidOptionError, "genius"),
        (("jass", "random", 5), {}, cardhouse.InvalidOptionError, "list of bot names"),
        (("jass", JASS, 0), {}, cardhouse.InvalidOptionError, "matches=0"),
        (("jass", JASS, 5, -1), {}, cardhouse.InvalidOptionError, "seed=-1"),
        (("jass", JASS, 5, 2**64), {}, cardhouse.InvalidOptionError, "seed="),
        (("jass", JASS, 5), {"tasks": 0}, cardhouse.InvalidOptionError, "tasks=0"),
        (
            (cardhouse.new_game("jass"), JASS, 5),
            {"scope": "deal"},
            cardhouse.InvalidOptionError,
            "options \\['scope'\\] given with a Game",
        ),
    ],
)
def test_bad_input(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        cray.simulate(*args, **kwargs)


def test_the_ray_package_is_imported() -> None:
    # cardhouse/ray.py shadows nothing: it uses the Ray package itself.
    assert cray.ray is ray and cardhouse.ray is cray
