"""VectorEnv with bots on seats: every row is a learner's decision, the bots' moves equal the
Python bots' (same seeds), final observations and returns beside the auto-reset, seeding
(same seed, threads, batch layout), self-play, and precise errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import DEAL_CONFIGS

import cardhouse
from cardhouse import bots


def choose(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    noise = rng.random(masks.shape)
    return np.where(masks, noise, -1.0).argmax(axis=1).astype(np.int64)


def other_side(game: cardhouse.Game) -> list[int]:
    n = game.num_players
    sides = 2 if n == 4 else n
    return [s for s in range(n) if s % sides != 0]


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
@pytest.mark.parametrize("bot", ["heuristic", "random"])
def test_bots_equal_single_state_stepping(name: str, options: dict[str, Any], bot: str) -> None:
    num_envs, seed = 4, 21
    game = cardhouse.new_game(name, **options)
    seats = other_side(game)
    env = cardhouse.VectorEnv(name, num_envs, seed, bots={s: bot for s in seats}, **options)
    assert env.learner_seats == [s for s in range(game.num_players) if s not in seats]
    assert env.bots == {s: bot for s in seats}
    chance = [cardhouse.Rng(cardhouse.VectorEnv.env_seed(seed, i)) for i in range(num_envs)]
    seat_bots = [
        {
            s: bots._make_bot(bot, game, cardhouse.VectorEnv.bot_seed(seed, i, s))
            for s in seats
        }
        for i in range(num_envs)
    ]

    def advance(i: int, state: cardhouse.State) -> tuple[cardhouse.State, np.ndarray, list]:
        """Plays chance and bots to the next learner decision, as VectorEnv must."""
        returns = np.zeros(game.num_players, dtype=np.float32)
        finals: list = []
        while True:
            if state.is_terminal():
                returns += np.asarray(state.returns(), dtype=np.float32)
                finals = [state.observation(s) for s in range(game.num_players)]
                state = game.new_initial_state()
            elif state.is_chance_node():
                state.resolve_chance(chance[i])
            elif state.current_player in seat_bots[i]:
                state.apply(seat_bots[i][state.current_player].act(state))
            else:
                return state, returns, finals

    states = [advance(i, game.new_initial_state())[0] for i in range(num_envs)]
    obs, masks, players = env.reset()
    pick = np.random.default_rng(0)
    games = 0
    for _ in range(80):
        for i, s in enumerate(states):
            assert players[i] == s.current_player and players[i] in env.learner_seats
            np.testing.assert_array_equal(masks[i], s.legal_action_mask())
            np.testing.assert_array_equal(obs[i], s.observation(s.current_player))
            assert env.state(i).to_bytes() == s.to_bytes()
        actions = choose(masks, pick)
        obs, masks, players, rewards, dones = env.step(actions)
        for i in range(num_envs):
            states[i].apply(int(actions[i]))
            states[i], returns, finals = advance(i, states[i])
            np.testing.assert_array_equal(rewards[i], returns)
            assert dones[i] == bool(finals)
            if finals:
                games += 1
                np.testing.assert_array_equal(env.final_observations[i], np.array(finals))
    assert games > 0, "auto-reset must be exercised"


def test_ismcts_bot_seat() -> None:
    env = cardhouse.VectorEnv("klaberjass", 2, 0, bots={1: "ismcts:5"}, scope="deal")
    _, masks, players = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert set(players.tolist()) == {0}
        _, masks, players, _, _ = env.step(choose(masks, rng))


def run(num_envs: int, seed: int, threads: int = 1, steps: int = 60) -> list[np.ndarray]:
    env = cardhouse.VectorEnv(
        "jass", num_envs, seed, num_threads=threads, bots={1: "heuristic", 3: "random"},
        scope="deal",
    )
    out = [env.reset()[0].copy()]
    masks = env.legal_action_masks
    for _ in range(steps):
        # Actions that depend only on each env's own row: the layout cannot matter.
        actions = np.where(masks, np.arange(masks.shape[1]) % 7, -1).argmax(axis=1)
        obs, masks, players, rewards, dones = env.step(actions)
        out += [obs.copy(), players.copy(), rewards.copy(), dones.copy()]
        out.append(np.where(dones[:, None, None], env.final_observations, 0.0))
    return out


def test_same_seed_same_trajectories_with_bots() -> None:
    a, b, c = run(6, 1), run(6, 1), run(6, 2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_do_not_change_results_with_bots(threads: int) -> None:
    single, multi = run(9, 4), run(9, 4, threads)
    assert all(np.array_equal(x, y) for x, y in zip(single, multi))


def test_env_i_does_not_depend_on_the_number_of_envs() -> None:
    small, large = run(3, 8), run(10, 8)
    for x, y in zip(small, large):
        assert x.shape[0] == 3 and y.shape[0] == 10
        np.testing.assert_array_equal(x, y[:3])


def test_self_play_reports_every_seat() -> None:
    env = cardhouse.VectorEnv("jass", 16, 0, scope="deal")
    assert env.learner_seats == [0, 1, 2, 3] and env.bots == {}
    seen = set()
    _, masks, players = env.reset()
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(80):
        seen |= set(players.tolist())
        _, masks, players, rewards, dones = env.step(choose(masks, rng))
        for i in np.flatnonzero(dones):
            finished += 1
            # Zero-sum between the partnerships, final observations of every seat.
            assert rewards[i, 0] == rewards[i, 2] == -rewards[i, 1]
            assert env.final_observations[i].shape == (4, *env.observation_shape)
    assert seen == {0, 1, 2, 3} and finished > 0


def test_a_bot_object_takes_a_seat() -> None:
    game = cardhouse.new_game("cribbage", scope="deal")
    env = cardhouse.VectorEnv("cribbage", 2, 0, bots={1: bots.heuristic(game, seed=5)}, scope="deal")
    assert env.bots == {1: "heuristic"}
    assert "bots {1: heuristic}" in repr(env)


@pytest.mark.parametrize(
    ("bots_arg", "message"),
    [
        ({4: "heuristic"}, r"bots: seat 4 does not exist; jass has seats 0 to 3"),
        ({1: "genius"}, r"unknown bot `genius`"),
        ({1: 3}, r"bots: seat 1 has int; give a bot name or a cardhouse.bots.Bot|a bot must be a name"),
        ({s: "random" for s in range(4)}, r"every seat of jass is a bot"),
        ({1: "ismcts:0"}, r"ismcts:N with N iterations"),
        ({1: "policy:nosuch"}, r"policy:nosuch"),
    ],
)
def test_bad_bots_are_named(bots_arg: dict[Any, Any], message: str) -> None:
    with pytest.raises(cardhouse.InvalidOptionError, match=message):
        cardhouse.VectorEnv("jass", 2, 0, bots=bots_arg, scope="deal")


@pytest.mark.parametrize("name", ["jass", "cribbage"])
def test_rollout_values_equal_python_rollouts(name: str) -> None:
    seed, num_envs = 5, 3
    env = cardhouse.VectorEnv(name, num_envs, seed, scope="deal")  # self-play: no bot moved yet
    game = env.game
    _, masks, players = env.reset()
    before = [env.state(i).to_bytes() for i in range(num_envs)]
    values = env.rollout_values("heuristic")
    assert values.shape == (num_envs, env.num_distinct_actions) and values.dtype == np.float32
    assert [env.state(i).to_bytes() for i in range(num_envs)] == before, "envs unchanged"
    np.testing.assert_array_equal(np.isnan(values), ~masks)
    for i in range(num_envs):
        for a in np.flatnonzero(masks[i]):
            # The env's chance generator after its first deal, and fresh bot generators.
            chance = cardhouse.Rng(cardhouse.VectorEnv.env_seed(seed, i))
            game.new_initial_state().resolve_chance(chance)
            seat_bots = [
                bots._make_bot("heuristic", game, cardhouse.VectorEnv.bot_seed(seed, i, s))
                for s in range(game.num_players)
            ]
            state = env.state(i)
            state.apply(int(a))
            while not state.is_terminal():
                if state.is_chance_node():
                    state.resolve_chance(chance)
                else:
                    state.apply(seat_bots[state.current_player].act(state))
            assert values[i, a] == np.float32(state.returns()[int(players[i])])


def test_rollout_values_do_not_change_the_run() -> None:
    def run(with_rollouts: bool) -> list[np.ndarray]:
        env = cardhouse.VectorEnv("cribbage", 4, 2, bots={1: "heuristic"}, scope="deal")
        out = []
        masks = env.reset()[1]
        for _ in range(30):
            if with_rollouts:
                env.rollout_values("random")
            obs, masks, _, rewards, _ = env.step(choose(masks, np.random.default_rng(0)))
            out += [obs.copy(), rewards.copy()]
        return out

    assert all(np.array_equal(x, y) for x, y in zip(run(False), run(True)))
    env = cardhouse.VectorEnv("jass", 2, 0, scope="deal")
    with pytest.raises(cardhouse.InvalidOptionError, match="unknown bot"):
        env.rollout_values("genius")


@pytest.mark.parametrize("name", ["jass", "cribbage"])
def test_search_visits_are_the_ismcts_bots_search(name: str) -> None:
    seed, num_envs, iterations = 3, 4, 25
    env = cardhouse.VectorEnv(name, num_envs, seed, scope="deal")  # self-play: no bot moved yet
    game = env.game
    _, masks, _ = env.reset()
    before = [env.state(i).to_bytes() for i in range(num_envs)]
    visits = env.search_visits(iterations)
    assert visits.shape == (num_envs, env.num_distinct_actions) and visits.dtype == np.float32
    assert [env.state(i).to_bytes() for i in range(num_envs)] == before, "envs unchanged"
    assert not visits[~masks].any(), "visits on legal actions only"
    for i in range(num_envs):
        total = visits[i].sum()
        assert total == 1 if masks[i].sum() == 1 else 1 <= total <= iterations
        # The ismcts bot with the env's search generator plays a most visited action.
        bot = bots.ismcts(
            game, seed=cardhouse.VectorEnv.bot_seed(seed, i, game.num_players + 1),
            iterations=iterations,
        )
        assert visits[i, bot.act(env.state(i))] == visits[i].max()


def test_search_visits_do_not_depend_on_threads() -> None:
    def run(threads: int) -> list[np.ndarray]:
        env = cardhouse.VectorEnv(
            "klaberjass", 6, 1, num_threads=threads, bots={1: "heuristic"}, scope="deal"
        )
        out = []
        for _ in range(6):
            v = env.search_visits(10)
            out.append(v)
            env.step(v.argmax(1))
        return out

    one, two = run(1), run(2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two))
    env = cardhouse.VectorEnv("klaberjass", 1, 1, scope="deal")
    for bad in (0, 1_000_001, -1):
        with pytest.raises(cardhouse.InvalidOptionError, match="iterations"):
            env.search_visits(bad)
    assert env.search_visits().sum() >= 1  # the game's default iterations
