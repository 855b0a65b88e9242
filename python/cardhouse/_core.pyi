# Type stubs of the native module (python/src/*.rs). Checked against the built extension by
# `python -m mypy.stubtest cardhouse._core` (scripts/test-all.sh); keep parameter names exact.

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "BufferSizeError",
    "CHANCE",
    "CardhouseError",
    "DecodeError",
    "Game",
    "IllegalActionError",
    "InvalidCardError",
    "InvalidOptionError",
    "InvalidSeatError",
    "ResampleFailedError",
    "Rng",
    "RulesVersionError",
    "State",
    "TERMINAL",
    "UnknownGameError",
    "VectorEnv",
    "__version__",
    "list_games",
    "new_game",
    "option_specs",
    "state_from_bytes",
    "state_from_json",
]

__version__: str
CHANCE: int
TERMINAL: int

class CardhouseError(Exception):
    """Base class of every error raised by cardhouse."""
class InvalidOptionError(CardhouseError, ValueError):
    """An unknown option key or a value the option does not allow; the message names the key and the allowed keys or values."""
class UnknownGameError(InvalidOptionError):
    """A game name that is not registered; the message lists the available games."""
class IllegalActionError(CardhouseError, ValueError):
    """An action that cannot be applied now: illegal by the rules, outside the action space, unparsable text, the game is over, or the wrong kind of node (e.g. chance outcomes asked at a player node). The state is unchanged."""
class InvalidSeatError(CardhouseError, ValueError):
    """A seat outside 0 to num_players - 1."""
class BufferSizeError(CardhouseError, ValueError):
    """An output array of the wrong length, dtype or layout."""
class InvalidCardError(CardhouseError, ValueError):
    """A card or card list that does not parse."""
class DecodeError(CardhouseError, ValueError):
    """Serialized state bytes or JSON that are malformed, inconsistent, or of another game or options."""
class RulesVersionError(DecodeError):
    """A serialized state written under a rules version this engine does not implement."""
class ResampleFailedError(CardhouseError):
    """No full state consistent with the seat's knowledge was found."""

_OptionValue = bool | int | str

# The Cribbage hand scorer, exposed as cardhouse.cribbage.HandScore / score_hand.
@final
class _CribbageHandScore:
    """The points of a Cribbage hand or crib with the starter, item by item (every field is in
    points): ``fifteens`` (2 per set of cards summing to 15), ``pairs`` (2 per pair),
    ``runs`` (run length times the number of runs), ``flush`` (4 or 5 in a hand, 5 or 0 in
    the crib), ``nobs`` (1 for the Jack of the starter's suit) and their ``total``.
    """
    @property
    def fifteens(self) -> int:
        """2 points per distinct set of cards whose values sum to 15."""
    @property
    def pairs(self) -> int:
        """2 points per pair of cards of equal rank (pair royal 6, double pair royal 12)."""
    @property
    def runs(self) -> int:
        """The longest run length times the number of distinct runs of that length."""
    @property
    def flush(self) -> int:
        """4 or 5 in a hand; 5 or 0 in the crib (all five cards of one suit)."""
    @property
    def nobs(self) -> int:
        """1 for the Jack of the starter's suit in the hand or crib."""
    @property
    def total(self) -> int:
        """The sum of the items."""
    def as_dict(self) -> dict[str, int]:
        """The score as a dict of the six fields."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def _score_cribbage_hand(hand: list[str], starter: str, crib: bool = False) -> _CribbageHandScore:
    """Scores a Cribbage hand (or, with ``crib=True``, the crib) of four cards with the starter.

    Cards are strings such as ``"5H"``, ``"10C"``, ``"JD"``, ``"AS"``. Returns a
    :class:`HandScore`.

    Raises:
        InvalidCardError: a card that does not parse, a card given twice (hand and starter
            included) or a hand of other than four cards; the message names the card.
    """
@final
class _Bot:
    """A bot: decides for one seat from what that seat knows only (never from hidden cards),
    deterministically for its seed and the sequence of calls.

    ``bot.act(state)`` (or ``bot(state)``, the form Gymnasium opponents take) returns the
    action id it chooses for the seat to act; the state is not changed.
    """

    @property
    def name(self) -> str:
        """The bot's name: ``random``, ``heuristic``, ``ismcts``, ``ismcts:N``, ``rollout:N``,
        ``pimc:N`` or ``policy:NAME``.
        """
    @property
    def policy_info(self) -> dict[str, Any] | None:
        """For a policy bot, ``{"name", "game", "info", "parameters", "hint_bonus"}`` (what its
        file says; ``hint_bonus`` is None unless it takes the heuristic's action as input);
        None for the other bots.
        """
    def policy_logits(
        self, observation: Sequence[float], hint: int | None = None
    ) -> npt.NDArray[np.float32] | None:
        """For a policy bot, the logits of its network for ``observation`` (one per action id,
        float32), as the engine computes them, with ``hint`` the heuristic's action for a
        policy that takes it; None for the other bots.

        Raises:
            BufferSizeError: the observation does not have the game's length.
            InvalidOptionError: the policy takes a hint and none was given.
        """
    def act(self, state: State, seat: int | None = None) -> int:
        """The action id this bot chooses for ``seat`` (default: the seat to act) at ``state``.

        Raises:
            IllegalActionError: the seat is not to act (or the game is over).
            InvalidOptionError: the state is of another game than the bot was made for.
        """
    def __call__(self, state: State, rng: object | None = None) -> int: ...

def _make_bot(
    kind: str,
    game: Game | None = None,
    seed: int = 0,
    iterations: int | None = None,
    time_budget: float | None = None,
) -> _Bot:
    """Makes a bot (use ``cardhouse.bots.random`` / ``heuristic`` / ``ismcts``)."""
def _load_policy(data: bytes, game: Game | None = None) -> _Bot:
    """A policy bot from the bytes of a policy file (use ``cardhouse.bots.policy``)."""
# The arena behind cardhouse.ray.simulate: per match, one seat's return for each side.
def _simulate(
    game: Game,
    bots: Sequence[str | _Bot],
    seed: int,
    start: int,
    stop: int,
    duplicate: bool = False,
) -> npt.NDArray[np.float64]:
    """Plays matches ``start`` to ``stop - 1`` (or duplicate sets with ``duplicate``) of
    ``game`` with ``bots[s]`` on seat ``s``; returns a float64 array of shape
    ``(stop - start, sides)``: per match, one seat's return for each side (the seats of a side
    share their returns). Runs in Rust with the GIL released. A bot is a name or a
    ``cardhouse.bots.Bot`` (a policy loaded from a file, for instance).

    Raises:
        InvalidOptionError: an unknown bot name, not one bot per seat, ``stop < start``, or
            more than 100,000,000 matches.
        MemoryError: not enough memory for the results.
    """
def _wilson(wins: float, n: float) -> tuple[float, float]:
    """The 95% Wilson score interval ``(low, high)`` of ``wins`` successes (a draw counts a
    half) in ``n`` trials, clamped to ``[0, 1]`` (the engine's, as ``cardhouse simulate``
    reports it).

    Raises:
        InvalidOptionError: ``n`` is not positive, or ``wins`` is not in ``[0, n]``.
    """
_SeedLike = int | Rng | np.random.Generator | random.Random

def list_games() -> list[str]:
    """The names of all registered games, e.g. ``["jass"]``."""
def new_game(name: str, **options: _OptionValue) -> Game:
    """Creates a game by registry name with validated options, e.g.
    ``cardhouse.new_game("jass", scope="deal", target_score=1000)``.

    Option values may be bool, int or str; missing options take their defaults.

    Raises:
        UnknownGameError: the name is not registered (the message lists the games).
        InvalidOptionError: an unknown option key or a bad value (the message names the key
            and what is allowed).
    """
def option_specs(name: str) -> list[dict[str, Any]]:
    """The options of a registered game: a list of dicts with ``name``, ``kind`` (``"bool"``,
    ``"int"`` or ``"choice"``), ``default`` (as a value of that kind), ``allowed`` (text),
    ``choices`` (for choices), ``min`` / ``max`` (for ints) and ``doc``.

    Raises:
        UnknownGameError: the name is not registered.
    """
def state_from_bytes(data: bytes) -> State:
    """Decodes ``State.to_bytes()`` output of any registered game (the game and its options are
    in the data). ``Game.state_from_bytes`` also checks that they match.

    Raises:
        DecodeError: malformed bytes.
        RulesVersionError: written under rules this engine does not implement.
    """
def state_from_json(text: str) -> State:
    """Decodes ``State.to_json()`` output of any registered game.

    Raises:
        DecodeError: malformed JSON.
        RulesVersionError: written under rules this engine does not implement.
    """

@final
class Rng:
    """The engine's reference random generator (xoshiro256++ seeded through SplitMix64).

    Pass it wherever a seed is accepted (``apply_random_chance``, ``resolve_chance``,
    ``resample``): unlike an int seed, which starts a fresh stream on every call, an ``Rng``
    continues its stream, so ``Rng(seed)`` reproduces a whole sequence of calls. Its output
    for a seed is fixed forever (golden files depend on it).

    Args:
        seed: an int from 0 to 2**64-1.
    """
    def __new__(cls, seed: int) -> Rng: ...
    def next_u64(self) -> int:
        """The next uniformly random 64-bit word (advances the stream)."""
    def below(self, n: int) -> int:
        """A uniform integer from 0 to ``n - 1`` (advances the stream).

        Raises:
            ValueError: if ``n`` is 0.
        """
    def clone(self) -> Rng:
        """An independent copy that continues from the same point of the stream."""

@final
class Game:
    """A game with validated options: fixed sizes and the factory of initial states.

    Create one with ``cardhouse.new_game(name, **options)`` (or ``Game(name, options)``).
    Options are the snake_case names of the game's rules file; missing options take their
    defaults, and ``options`` lists every option with its effective value.

    Args:
        name: a registered game name (see ``cardhouse.list_games()``).
        options: option name to value (bool, int or str); None for all defaults.

    Raises:
        UnknownGameError: the name is not registered.
        InvalidOptionError: an unknown option key or a value the option does not allow.
    """
    def __new__(cls, name: str, options: dict[str, _OptionValue] | None = None) -> Game: ...
    @property
    def name(self) -> str:
        """The registry name, e.g. ``"jass"``."""
    @property
    def options(self) -> dict[str, _OptionValue]:
        """Every option with its effective value (defaults included), as a new dict."""
    @property
    def rules_version(self) -> int:
        """The rules version that serialized states of this game carry."""
    @property
    def num_players(self) -> int:
        """Number of seats."""
    @property
    def num_distinct_actions(self) -> int:
        """Size of the player action space: action ids are 0 to ``num_distinct_actions - 1``."""
    @property
    def max_chance_outcomes(self) -> int:
        """Size of the chance outcome space: outcome ids are 0 to ``max_chance_outcomes - 1``."""
    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``State.observation(seat)`` (a tuple; one dimension for every game so far)."""
    def observation_layout(self) -> list[dict[str, Any]]:
        """The named slices of the observation, in order: a list of dicts with ``name``,
        ``offset``, ``shape`` (a tuple), ``meaning``, ``low`` and ``high`` (the bounds of
        every value in the slice). ``obs[offset:offset + prod(shape)].reshape(shape)`` is the
        slice.
        """
    def min_utility(self) -> float:
        """The smallest return a seat can get under these options (OpenSpiel's
        ``min_utility``): -1 for a match, minus a bound on one deal's score for
        ``scope="deal"``. Every return is at least this.
        """
    def max_utility(self) -> float:
        """The largest return a seat can get under these options (OpenSpiel's ``max_utility``)."""
    def max_game_length(self) -> int | None:
        """The most player actions (chance outcomes not counted) a game under these options
        takes, or None when there is no bound (a match goes on while the scores tie).
        """
    def get_type(self) -> dict[str, Any]:
        """Static facts about the game, as OpenSpiel's ``GameType``: a dict with
        ``short_name``, ``long_name``, ``dynamics`` (``"sequential"``), ``chance_mode``
        (``"explicit_stochastic"``), ``information`` (``"imperfect_information"``),
        ``utility`` (``"zero_sum"``), ``reward_model`` (``"terminal"``) and ``num_players``.
        """
    def new_initial_state(self) -> State:
        """The state before the first deal: a chance node. Resolve the deal with
        ``State.resolve_chance(seed)`` or one card at a time with ``apply_random_chance``.
        """
    def state_from_bytes(self, data: bytes) -> State:
        """Decodes ``State.to_bytes()`` output of a state of this game with these options.

        Raises:
            DecodeError: malformed bytes, or a state of another game or other options.
            RulesVersionError: written under rules this engine does not implement.
        """
    def state_from_json(self, text: str) -> State:
        """Decodes ``State.to_json()`` output of a state of this game with these options.

        Raises:
            DecodeError: malformed JSON, or a state of another game or other options.
            RulesVersionError: written under rules this engine does not implement.
        """
    def replay(self, history: list[int]) -> State:
        """Replays a history (player actions and chance outcomes, as from ``State.history()``)
        from the initial state with checked ``apply``.

        Raises:
            DecodeError: naming the first entry that does not apply (or is no action id).
        """
    def __reduce__(self) -> tuple[Any, ...]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class State:
    """A position in a game: who acts, the legal actions, observations and views per seat,
    returns, history; ``apply`` moves it on (checked: a bad action raises and leaves the
    state unchanged).

    Get one from ``Game.new_initial_state()`` (a chance node: resolve the deal with
    ``resolve_chance(seed)``), from ``clone()``, or by decoding ``to_bytes()`` / ``to_json()``
    output. States pickle (through ``to_bytes``) and copy.

    Player ids follow OpenSpiel: ``current_player`` is a seat (0 to ``num_players - 1``),
    ``cardhouse.CHANCE`` (-1) at a chance node or ``cardhouse.TERMINAL`` (-4) at the end.
    Two states are ``==`` when they are the same position of the same game with the same
    history; states are mutable, so they are not hashable.
    """
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]
    @property
    def game(self) -> Game:
        """The game (configuration) of this state."""
    @property
    def current_player(self) -> int:
        """Who acts now: a seat (0 to ``num_players - 1``), ``cardhouse.CHANCE`` (-1) at a chance
        node, or ``cardhouse.TERMINAL`` (-4) when the game is over.
        """
    def is_chance_node(self) -> bool:
        """True at a chance node (a deal, cut or starter is pending)."""
    def is_terminal(self) -> bool:
        """True when the game is over."""
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes at this chance node as ``(outcome id, probability)`` pairs.

        Raises:
            IllegalActionError: this is not a chance node.
        """
    def apply_random_chance(self, seed: _SeedLike) -> None:
        """Applies one chance outcome drawn at random.

        Args:
            seed: an int seed (a fresh generator is seeded with it, so the same seed gives the
                same outcome), a ``cardhouse.Rng`` (its stream continues), a
                ``numpy.random.Generator`` or a ``random.Random`` (one 64-bit seed is drawn).

        Raises:
            IllegalActionError: this is not a chance node.
        """
    def resolve_chance(self, seed: _SeedLike) -> None:
        """Resolves every pending chance event (the whole deal) until a seat acts or the game
        ends. Accepts the same ``seed`` as ``apply_random_chance``. Games may shuffle once
        instead of drawing card by card, so the result need not equal repeated
        ``apply_random_chance`` calls with the same generator.

        Raises:
            IllegalActionError: this is not a chance node (as ``apply_random_chance``); the
                state is unchanged.
        """
    def play_until(
        self,
        players: Sequence[_Bot | Callable[[State, Any], int] | None],
        rng: _SeedLike,
    ) -> int:
        """Plays chance and the other seats until a seat that decides itself is to act, or the
        game ends: the engine's play-until-a-decision loop (the one the arena, the server and
        ``VectorEnv`` run). Returns the number of actions applied (chance outcomes included).

        Args:
            players: one per seat: ``None`` for a seat that decides itself (the loop stops when
                it is to act), a ``cardhouse.bots.Bot`` (it draws from its own generator), or a
                callable ``(state, rng) -> action id`` (given a copy of the state and ``rng``;
                a Gymnasium opponent policy).
            rng: the chance events' randomness, as ``resolve_chance`` takes it: a
                ``cardhouse.Rng`` runs on, a ``numpy.random.Generator`` or ``random.Random``
                gives one seed per chance step, an int seeds one generator for this call.

        Raises:
            InvalidOptionError: not one player per seat, or a player of another kind.
            IllegalActionError: a callable returned an illegal action (the state is left
                after the last legal one); what a callable raises propagates.
        """
    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to act (or the chance outcomes at a chance node), as an
        ascending list of ids; empty when the game is over.
        """
    def legal_action_mask(self) -> npt.NDArray[np.bool_]:
        """A boolean mask of length ``Game.num_distinct_actions`` (``max_chance_outcomes`` at a
        chance node) with True at the legal actions; a new NumPy array.
        """
    def apply(self, action: int) -> None:
        """Applies a player action (or a chance outcome at a chance node) after checking it.

        Raises:
            IllegalActionError: the action is illegal now (the message says which rule
                forbids it), does not exist, or the game is over. The state is unchanged.
        """
    def action_to_string(self, action: int) -> str:
        """The text form of ``action`` at this state, e.g. ``"play UR"`` or ``"trump roses"``
        (at a chance node: the outcome as the omniscient viewer sees it).

        Raises:
            IllegalActionError: the id is outside the action space (the chance outcome space
                at a chance node).
        """
    def string_to_action(self, text: str) -> int:
        """The action id of a text form (the inverse of ``action_to_string``).

        Raises:
            IllegalActionError: the text names no action (the message says what is expected).
        """
    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """What ``seat`` knows, as a new float32 NumPy array of shape
        ``Game.observation_shape``; the layout is documented per game. It never depends on
        cards that ``seat`` may not see.

        Raises:
            InvalidSeatError: the seat does not exist.
        """
    def write_observation(self, seat: int, out: npt.NDArray[np.float32]) -> None:
        """Writes ``observation(seat)`` into ``out``, a caller's C-contiguous float32 array with
        ``observation_len`` elements (any shape, e.g. a row of a batch), without allocating.

        Raises:
            InvalidSeatError: the seat does not exist.
            BufferSizeError: ``out`` has the wrong number of elements or is not contiguous.
            TypeError: ``out`` is not a float32 NumPy array.
        """
    def observation_tensor(self, player: int) -> npt.NDArray[np.float32]:
        """OpenSpiel's name for ``observation(player)``.

        Raises:
            InvalidSeatError: the seat does not exist.
        """
    def observation_string(self, seat: int) -> str:
        """What ``seat`` knows, as text: its own hand, the public cards and announcements, the
        scores, and its legal actions on its turn. Safe to show to that seat (it never
        depends on cards the seat may not see). ``str(state)`` is the omniscient text instead.

        Raises:
            InvalidSeatError: the seat does not exist.
        """
    def apply_action(self, action: int) -> None:
        """OpenSpiel's name for ``apply(action)``: applies a player action or chance outcome,
        checked.

        Raises:
            IllegalActionError: as ``apply``; the state is unchanged.
        """
    def child(self, action: int) -> State:
        """A new state: this one with ``action`` applied (this state is unchanged).

        Raises:
            IllegalActionError: as ``apply``.
        """
    def view(self, seat: int | None = None, *, omniscient: bool = False) -> dict[str, Any]:
        """The structured record of what a viewer may see, as a dict (the same knowledge as
        ``observation``, for UIs and logs).

        Args:
            seat: the seat whose view to build; None for the spectator (public) view.
            omniscient: True for the full record with every hand (for referees and records
                after the game); ``seat`` must then be None.

        Raises:
            InvalidSeatError: the seat does not exist, or both a seat and omniscient are given.
        """
    def returns(self) -> list[float]:
        """Per-seat returns (a list of floats), zero-sum between the sides; all 0 until the game
        is over. Each game documents them for ``scope="match"`` and ``scope="deal"``.
        """
    def rewards(self) -> list[float]:
        """Per-seat reward of the last transition: the returns at a terminal state, 0 elsewhere."""
    def history(self) -> list[int]:
        """Every action and chance outcome applied since the initial state, in order.
        ``Game.replay(history)`` reproduces this state exactly.
        """
    def move_number(self) -> int:
        """Number of actions and chance outcomes applied so far (``len(history())``). It counts
        private actions too; do not show it to players.
        """
    def resample(self, seat: int, seed: _SeedLike) -> State:
        """A full state consistent with everything ``seat`` knows (its hand, public cards,
        voids, announcements), for determinized search: ``seat``'s observation and view are
        unchanged, the cards it cannot see are redrawn. Runs without the GIL.

        Args:
            seat: the seat whose knowledge is kept.
            seed: as for ``apply_random_chance``.

        Raises:
            InvalidSeatError: the seat does not exist.
            ResampleFailedError: no consistent state was found.
        """
    def solve(self) -> dict[int, float]:
        """The exact card-play solver (``cardhouse::solve`` in Rust): with every card known, the
        value of each legal action of the seat to move, under perfect play by every seat to
        the end of the deal, as that seat's side's deal result (its ``scope = "deal"`` return:
        the deal's score for its side minus the other side's). Omniscient: it reads every
        hand, so a bot must solve states drawn by ``resample``, not the real one. Runs
        without the GIL, on a table kept per thread.

        Returns:
            ``{action id: value}`` for every legal action.

        Raises:
            IllegalActionError: the game has no trick play to solve (Cribbage), or the state
                is not one of play (a chance node, the bidding, the game is over); the message
                says which.
        """
    def clone(self) -> State:
        """An independent copy."""
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: Any, /) -> State: ...
    def to_bytes(self) -> bytes:
        """Compact versioned bytes (game, options, rules version, history); decode with
        ``Game.state_from_bytes`` or ``cardhouse.state_from_bytes``.
        """
    def to_json(self) -> str:
        """Versioned JSON (game, options, rules version, history); decode with
        ``Game.state_from_json`` or ``cardhouse.state_from_json``.
        """
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class VectorEnv:
    """Many games of one kind stepped together, entirely in Rust with the GIL released.

    Every call fills NumPy arrays that this object owns (no views of engine memory) and
    returns them; the next call overwrites them in place, so copy what you keep
    (``obs.copy()``):

    * ``observations``: float32 ``(num_envs, *observation_shape)``, the observation of the
      seat to act in each env;
    * ``legal_action_masks``: bool ``(num_envs, num_distinct_actions)``;
    * ``current_players``: int32 ``(num_envs,)``, the seat to act (always a learner seat);
    * ``rewards``: float32 ``(num_envs, num_players)``, every seat's reward of the step;
    * ``dones``: bool ``(num_envs,)``, True where the step ended a game;
    * ``final_observations``: float32 ``(num_envs, num_players, *observation_shape)``: where
      ``dones`` is True, every seat's observation of the finished game's terminal state
      (other rows hold stale values);
    * ``heuristic_actions``: int32 ``(num_envs,)``, with ``hints=True``, the action the game's
      heuristic bot would choose for the seat to act (-1 otherwise), drawn with a generator
      of its own per env (seed ``VectorEnv.bot_seed(seed, i, num_players)``).

    **Learners and bots.** ``bots`` gives seats to the engine's bots (``{1: "heuristic",
    3: "heuristic"}``; names as ``cardhouse.bots``: ``random``, ``heuristic``, ``ismcts``,
    ``ismcts:N``, ``policy:NAME``, or a ``cardhouse.bots.Bot``). Their moves are played inside
    the call (GIL released), so every row returned is a decision of a learner seat: the
    seats without a bot. Without ``bots`` every seat is a learner (self-play) and
    ``current_players`` tells whose decision each row is. A bot decides from its seat's
    knowledge only, as everywhere in cardhouse.

    **Auto-reset.** When a step ends the game of an env (on the learner's move or on a bot's
    move after it), that env reports the game's returns in ``rewards`` (rewards are 0 until a
    game ends: the step's ``rewards`` are the finished game's returns), ``done=True`` and
    every seat's terminal observation in ``final_observations``; it is then reset: a new game
    is created and dealt, the bots play until a learner is to act, and the observation, mask
    and current player written for the env are those of the *new* game. (Were a game to end
    before any learner decided, its returns would be added to the same row.)

    **Randomness.** Chance events (deals) are resolved inside with one generator per env:
    env ``i`` uses ``cardhouse.Rng(VectorEnv.env_seed(seed, i))`` for all its games, one
    after another, and the bot on seat ``s`` of env ``i`` draws from its own generator,
    seeded ``VectorEnv.bot_seed(seed, i, s)`` (as ``cardhouse.bots.heuristic(seed=...)``
    would be). So ``seed`` reproduces the whole run, env ``i``'s games do not depend on
    ``num_envs`` or ``num_threads``, and ``reset(seed=s)`` reseeds every env as the
    constructor does; ``reset()`` continues the streams.

    The constructor deals the first games, so ``step`` may be called at once. The first
    ``reset()`` without a seed (before any step) returns those deals rather than dealing
    again, so ``VectorEnv(name, n, s).reset()`` equals ``reset(seed=s)``.

    Args:
        name: a registered game name.
        num_envs: number of games, 1 to 2**24.
        seed: an int from 0 to 2**64-1.
        num_threads: split every call over this many threads (scoped to the call: no pool
            outlives it, so forking is safe). 1 (the default) steps in the calling thread;
            more pays off from a few hundred envs per thread. Results do not depend on it.
            At most 1024.
        bots: ``{seat: bot}`` for the seats the engine plays; at least one seat must be left
            to the learner. None (the default): every seat learns.
        hints: also compute ``heuristic_actions`` (one heuristic decision per row).
        **options: game options, as for ``cardhouse.new_game``.

    Raises:
        UnknownGameError, InvalidOptionError: as ``cardhouse.new_game``, or a bad ``bots``
            entry (unknown name, no such seat, every seat a bot, a policy of another game).
        ValueError: ``num_envs``, ``seed`` or ``num_threads`` out of range.
        MemoryError: not enough memory for ``num_envs`` games and their arrays.
    """
    def __new__(
        cls,
        name: str,
        num_envs: int,
        seed: int,
        *,
        num_threads: int = 1,
        bots: Mapping[int, str | _Bot] | None = None,
        hints: bool = False,
        **options: _OptionValue,
    ) -> VectorEnv: ...
    @staticmethod
    def env_seed(seed: int, index: int) -> int:
        """staticmethod(function) -> method

        Convert a function to be a static method.

        A static method does not receive an implicit first argument.
        To declare a static method, use this idiom:

             class C:
                 @staticmethod
                 def f(arg1, arg2, argN):
                     ...

        It can be called either on the class (e.g. C.f()) or on an instance
        (e.g. C().f()). Both the class and the instance are ignored, and
        neither is passed implicitly as the first argument to the method.

        Static methods in Python are similar to those found in Java or C++.
        For a more advanced concept, see the classmethod builtin.
        """
    @staticmethod
    def bot_seed(seed: int, index: int, seat: int) -> int:
        """staticmethod(function) -> method

        Convert a function to be a static method.

        A static method does not receive an implicit first argument.
        To declare a static method, use this idiom:

             class C:
                 @staticmethod
                 def f(arg1, arg2, argN):
                     ...

        It can be called either on the class (e.g. C.f()) or on an instance
        (e.g. C().f()). Both the class and the instance are ignored, and
        neither is passed implicitly as the first argument to the method.

        Static methods in Python are similar to those found in Java or C++.
        For a more advanced concept, see the classmethod builtin.
        """
    def reset(
        self, seed: int | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int32]]:
        """Starts a new game in every env (deals resolved) and returns
        ``(observations, legal_action_masks, current_players)``. Rewards and dones are zeroed.

        Args:
            seed: if given, reseeds every env's generator as the constructor does; otherwise
                the generators continue (except that the first ``reset()`` after
                construction, before any step, keeps the constructor's deals).
        """
    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.int32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
    ]:
        """Applies one action per env (for the seat to act there), resolves chance events,
        auto-resets finished games, and returns
        ``(observations, legal_action_masks, current_players, rewards, dones)``.

        Args:
            actions: ``num_envs`` action ids (a NumPy integer array or a sequence of ints).

        Raises:
            IllegalActionError: an action is illegal in its env; the message names the env
                index and the rule. No env is changed.
            ValueError: ``actions`` has the wrong length or shape.
            TypeError: ``actions`` are not integers (floats are never truncated).
            BufferSizeError: an output array was resized or made read-only by the caller.
        """
    def rollout_values(self, bot: str | _Bot | None = None) -> npt.NDArray[np.float32]:
        """Rollout values, for training targets: for every env and every legal action of the seat
        to act there, that seat's return when the action is taken and the game is then
        played to its end by ``bot`` (default ``"heuristic"``) on every seat (chance from a copy of the env's generator,
        the same draws for every action of an env). Returns a new float32 array
        ``(num_envs, num_distinct_actions)``, NaN for illegal actions. The envs do not change.

        The rollouts start from the true state (hidden cards included): they are the
        environment simulating outcomes, as any return is; a policy trained on them still
        decides from its observation. Use ``scope="deal"`` games (a rollout plays to the end
        of the game).

        Raises:
            InvalidOptionError: an unknown bot, or a policy of another game.
        """
    def search_visits(self, iterations: int | None = None) -> npt.NDArray[np.float32]:
        """The visit counts of an IS-MCTS search (the ``ismcts`` bot's) for the seat to act in
        every env, for training targets (expert iteration: a network learns to imitate the
        search): a new float32 array ``(num_envs, num_distinct_actions)``, each row the root
        visits of the legal actions the search tried (0 elsewhere; a forced move counts one
        visit). The bot plays the row's most visited action. Searches run in Rust with the
        GIL released, split over ``num_threads``.

        Each search decides from the seat's knowledge only (over states resampled for it,
        never the real hidden cards). Env ``i`` searches with a generator of its own, seeded
        ``VectorEnv.bot_seed(seed, i, num_players + 1)`` and continued from call to call, so
        the counts do not depend on ``num_threads``. The envs' games do not change.

        Args:
            iterations: determinizations per search, 1 to 1,000,000 (default: the game's, as
                the ``ismcts`` bot).

        Raises:
            InvalidOptionError: ``iterations`` out of range.
        """
    def rollout_search(
        self, samples: int = 100, playouts: int | None = None, max_actions: int | None = None
    ) -> npt.NDArray[np.float32]:
        """The action values of the ``rollout`` bot's search for the seat to act in every env,
        for training targets: a new float32 array ``(num_envs, num_distinct_actions)``, each
        legal action's mean return (in the game's return units) for the seat over ``samples``
        determinizations, played out with the heuristic on every seat after the action (and,
        when the seat acts again at once, after its best next action: a Cribbage discard is
        judged as a pair), every action on the same determinizations and playout draws. 0 for
        the other actions, and for a forced move. The bot plays the legal action of highest
        value. Searches run in Rust with the GIL released, split over ``num_threads``.

        Each search decides from the seat's knowledge only (over states resampled for it,
        never the real hidden cards), with the generator :meth:`search_visits` uses.

        Args:
            samples: determinizations per search, 1 to 100,000.
            playouts: instead, playouts per search (1 to 10,000,000), shared out among the
                seat's plans (a Cribbage discard has 30 two-card plans, a play at most 5):
                ``playouts // plans`` determinizations, at least one.
            max_actions: search only decisions with at most this many legal actions (the
                others' rows stay 0; default: all).

        Raises:
            InvalidOptionError: ``samples`` or ``playouts`` out of range.
        """
    def state(self, index: int) -> State:
        """A copy of env ``index``'s current state (for inspection; changing it does not change
        the env).

        Raises:
            IndexError: no such env.
        """
    @property
    def game(self) -> Game:
        """The game being played."""
    @property
    def num_threads(self) -> int:
        """Number of threads each call is split over."""
    @property
    def num_envs(self) -> int:
        """Number of envs."""
    @property
    def num_players(self) -> int:
        """Number of seats per game."""
    @property
    def num_distinct_actions(self) -> int:
        """Size of the action space (columns of ``legal_action_masks``)."""
    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of one env's observation."""
    @property
    def observations(self) -> npt.NDArray[np.float32]:
        """The observations array (overwritten by every call)."""
    @property
    def legal_action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal action masks array (overwritten by every call)."""
    @property
    def current_players(self) -> npt.NDArray[np.int32]:
        """The current players array (overwritten by every call)."""
    @property
    def rewards(self) -> npt.NDArray[np.float32]:
        """The rewards array (overwritten by every call)."""
    @property
    def final_observations(self) -> npt.NDArray[np.float32]:
        """The final observations array ``(num_envs, num_players, *observation_shape)``: where
        ``dones`` is True, every seat's observation of the finished game (overwritten by
        every call that ends a game).
        """
    @property
    def heuristic_actions(self) -> npt.NDArray[np.int32]:
        """With ``hints=True``, int32 ``(num_envs,)``: the action the game's heuristic bot would
        choose for the seat to act (a feature for the learner; it decides from that seat's
        knowledge only); -1 without hints (overwritten by every call).
        """
    @property
    def hints(self) -> bool:
        """Whether ``heuristic_actions`` are computed."""
    @property
    def learner_seats(self) -> list[int]:
        """The seats the learner plays (those without a bot), ascending."""
    @property
    def bots(self) -> dict[int, str]:
        """``{seat: bot name}`` for the seats the engine's bots play."""
    @property
    def dones(self) -> npt.NDArray[np.bool_]:
        """The done flags array (overwritten by every call)."""
