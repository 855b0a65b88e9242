//! Exact card-play solvers ("double dummy"): with every card known, the value of each legal
//! action of the seat to move, in the game's own points, to the end of the deal, for Jass,
//! Klaberjass and Avinas.
//!
//! ```
//! use cardhouse::games::jass::JassGame;
//! use cardhouse::solve::Solver;
//! use cardhouse::{Game, SeededRng, State, options};
//!
//! let game = JassGame::from_options(&options([("scope", "deal".into()), ("wys", "auto".into())]))?;
//! let mut state = game.new_initial_state();
//! let mut rng = SeededRng::new(3);
//! state.resolve_chance(&mut rng); // the deal
//! // The mode, then the first five tricks (the first legal action each time).
//! while state.hand(0).len() > 4 {
//!     state.apply(state.legal_actions().iter().next().expect("an action"))?;
//! }
//! let mut solver = Solver::new(); // reuse it: its table is allocated once
//! let solution = solver.solve(&state)?;
//! assert_eq!(solution.actions.len(), state.legal_actions().len());
//! let best = solution.best_action();
//! assert_eq!(solution.value_of(best), Some(solution.value));
//! assert_eq!(solver.value(&state)?, solution.value);
//! # Ok::<(), cardhouse::Error>(())
//! ```
//!
//! # What a value is
//!
//! The value of an action (or of the position) is the **deal's result for the side of the
//! seat to move** when every seat plays perfectly from there on, with every card known: that
//! side's deal score minus the other side's, exactly what [`State::returns`](crate::State::returns) gives that seat
//! at the end of the deal under `scope = deal`. It counts everything the deal scores, what is
//! already taken included (so the values of the actions of one position differ only by what
//! the play from there decides):
//!
//! * **Jass** (`jass_schieber.md` §10): card points, the last-trick bonus and the Match bonus
//!   (a side taking all nine tricks), the Wys and the Stöck, multiplied by the mode's
//!   multiplier. Stöck not yet scored is certain (the holder of trump K and O will play both),
//!   so it counts as scored. In the first trick, the Wys still to be declared are decided by
//!   perfect play too: each seat not yet committed declares the set (of those it may build,
//!   §8.2, what it declared so far included) that is best for its side, knowing everybody's
//!   cards; with `wys = auto` the engine's automatic set is used. Wys are settled by the
//!   declarations alone and do not depend on the cards played, so this part is solved
//!   apart from the card play and added (exactly: the mover at each step is the same in
//!   both).
//! * **Klaberjass** (`klaberjass.md` §11): the points each player adds by the maker rule
//!   (`Tm > To`, tie, *bête*, or `hang`), from the totals `T` (sequences, Bella, cards, last
//!   trick; Bella not yet scored is certain). The rule is not additive, but the deal result
//!   is a **non-decreasing** function of a player's total `T` (the sum `Tm + To` of the deal
//!   is fixed once play starts), and minimax commutes with a non-decreasing function: the
//!   search finds the exact card-point difference to the end and the rule is applied to it
//!   (for each action). This is exact, not an approximation.
//! * **Avinas** (`avinas.md` §11): the rams (sevens game) or pips (bidding game) of the deal,
//!   `+n` for the side they are given against the other side, `−n` for the side they are
//!   given against, before any cancellation (rams and pips are both penalties, so this is the
//!   side's result; card points count only through the thresholds of §11). The result is a
//!   non-decreasing function of the declaring side's card points and tricks, so for each
//!   possible result the search solves an additive game on the least card points so far that
//!   reach it, and an action's result is a binary search over the results (see the game's
//!   `solve` module). The declarer's early stop (§7.4) is a move of the search, and so is the
//!   end of play at the first trick the defenders win after a knock. Before the first lead,
//!   the knock and the double (§6.3–6.4) and the bidding game's opening lead (which fixes
//!   trump, §7.3) are solved by trying each action.
//!
//! Rulings: the value is the deal's, whatever the `scope`: with `scope = match` the match
//! score and target are not part of it (Jass's `end_check = immediate`, which can end a match
//! in the middle of a deal, is ignored: the deal is valued as if played out). Equivalent
//! actions (cards the solver merges, an Avinas card led face up or face down) get equal
//! values.
//!
//! # Which states
//!
//! Any state of trick play, also in the middle of a trick: Jass in its play phase (Wys
//! declarations of the first trick included), Klaberjass in its play phase, Avinas in play,
//! at the declarer's continue-or-stop choice, and at the knock and double decisions. Any
//! other state (a chance node, the bidding, a finished game) is an [`Error::WrongNode`]
//! saying what is needed; Cribbage has no trick play and does not implement [`Solvable`]
//! (its [`crate::State::solvable`] is the error of [`unsupported_game`]).
//!
//! # Where
//!
//! Typed states solve directly (`solver.solve(&jass_state)`); code generic over games goes
//! through [`crate::State::solvable`] or [`crate::AnyState::solvable`]
//! (`solver.solve(state.solvable()?)`). Python: `state.solve()` (`{action id: value}`);
//! gRPC: `Engine.Solve`. The `pimc` bot ([`crate::bots::pimc`]) solves states resampled for
//! its seat, each within a node budget ([`Solver::solve_within`]).
//!
//! # How
//!
//! Alpha-beta over tricks with null windows (MTD(f)-style: a test at a guess, then doubling
//! steps, then bisection) on integer values, a transposition table keyed on the whole
//! position at trick starts (every hand, the leader and the game's context; the full key is
//! stored, so a hit is never a collision; see `table.rs`), enhanced transposition cutoffs
//! at the last card of a trick, equivalent cards merged, move ordering, and bounds from the
//! points left (and, with trumps, the points of the top trumps one side holds). Each root
//! action is solved exactly in turn, reusing the table. See `search.rs`.
//!
//! # Cost
//!
//! Klaberjass and Avinas deals solve in about a millisecond from the first lead (median; a
//! few Avinas deals whose result is decided by a close call take hundreds). A Jass deal from
//! the first lead takes seconds: nine tricks of four cards with exact point values (every
//! point can change the result, and every action is valued) make proofs large; from the
//! fourth trick it takes about ten milliseconds. Figures: `examples/solve_times.rs`.

mod position;
mod search;
mod table;

pub(crate) use position::{Deck, Position, sure_points};
pub(crate) use search::{Rules, Search, TrickEnd};

use crate::{Action, Error};

/// Entries of the table of [`Solver::new`] (48 bytes each: 12 MiB).
pub const DEFAULT_TABLE_ENTRIES: usize = 1 << 18;

/// Entries of the table of the one-off [`solve`].
const ONE_OFF_TABLE_ENTRIES: usize = 1 << 16;

/// The value of every legal action at a state, and of the state itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The seat to move; every value is for its side.
    pub seat: usize,
    /// The value of the position: the best action's value.
    pub value: i32,
    /// Every legal action (ascending ids, as [`State::legal_actions`](crate::State::legal_actions) lists them) with its value.
    pub actions: Vec<(Action, i32)>,
}

impl Solution {
    /// The value of `action`, if it is legal here.
    #[must_use]
    pub fn value_of(&self, action: Action) -> Option<i32> {
        self.actions
            .iter()
            .find(|&&(a, _)| a == action)
            .map(|&(_, v)| v)
    }

    /// The legal action with the highest value (the lowest id among equals).
    ///
    /// # Panics
    /// Never for a solution returned by the solver (a state to solve has a legal action).
    #[must_use]
    pub fn best_action(&self) -> Action {
        let mut best = self.actions[0];
        for &(a, v) in &self.actions[1..] {
            if v > best.1 {
                best = (a, v);
            }
        }
        best.0
    }

    /// Builds a solution from the per-action values, the position's value being the best.
    pub(crate) fn from_actions(seat: usize, actions: Vec<(Action, i32)>) -> Solution {
        let value = actions.iter().map(|&(_, v)| v).max().unwrap_or(0);
        Solution {
            seat,
            value,
            actions,
        }
    }
}

/// The states the solver can solve: Jass, Klaberjass and Avinas (sealed). Code generic over
/// games reaches it through [`crate::State::solvable`] (or [`crate::AnyState::solvable`]),
/// which for a game without trick play (Cribbage) is the error of [`unsupported_game`].
pub trait Solvable: sealed::Solve {}

impl<S: sealed::Solve + ?Sized> Solvable for S {}

pub(crate) mod sealed {
    use super::{Solution, Solver};
    use crate::Error;

    /// What each solvable game implements (in its own `solve` module).
    pub trait Solve {
        /// The value of every legal action (`actions`) or of the position only.
        fn solve_with(&self, solver: &mut Solver, actions: bool) -> Result<Solution, Error>;
    }
}

/// A reusable solver: its transposition table is allocated once, and stays valid across
/// solves of positions of the same game, options and trump (as the worlds a PIMC bot samples
/// for one decision); it empties itself, in O(1), when they change.
#[derive(Clone, Debug)]
pub struct Solver {
    table: table::Table,
    config: Option<Config>,
    nodes: u64,
    /// The node count past which searches stop ([`Solver::solve_within`]; `u64::MAX`: none).
    node_limit: u64,
}

/// The rules' fixed parameters of one solve (game, trump or mode, options, declarer, ...)
/// as each game writes them; the table is valid for one configuration at a time.
pub(crate) type Config = [u32; 4];

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl Solver {
    /// A solver with a table of [`DEFAULT_TABLE_ENTRIES`] entries.
    #[must_use]
    pub fn new() -> Solver {
        Solver::with_table_entries(DEFAULT_TABLE_ENTRIES)
    }

    /// A solver with a table of at least `entries` entries (a power of two, at least 2;
    /// 48 bytes each). Smaller tables make large positions slower, never wrong.
    #[must_use]
    pub fn with_table_entries(entries: usize) -> Solver {
        Solver {
            table: table::Table::new(entries),
            config: None,
            nodes: 0,
            node_limit: u64::MAX,
        }
    }

    /// The number of entries of the table.
    #[must_use]
    pub fn table_entries(&self) -> usize {
        self.table.capacity()
    }

    /// Empties the table (O(1)). Never needed for correctness.
    pub fn clear(&mut self) {
        self.table.clear();
        self.config = None;
    }

    /// Nodes searched by this solver so far (a measure of work).
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The value of every legal action of the seat to move at `state`, and of the position.
    ///
    /// # Errors
    /// [`Error::WrongNode`] if `state` is not a state of trick play the solver handles (see
    /// the module docs): a chance node, the bidding, a finished game.
    pub fn solve<S: Solvable + ?Sized>(&mut self, state: &S) -> Result<Solution, Error> {
        self.table.next_age();
        state.solve_with(self, true)
    }

    /// As [`Solver::solve`], giving up (`Ok(None)`) once the solve has searched more than
    /// `max_nodes` nodes: a bound on the work of one solve that does not depend on the
    /// machine, for callers with a time budget (the `pimc` bot). A solve given up leaves the
    /// table empty; a solve completed is exact, as ever.
    ///
    /// # Errors
    /// As [`Solver::solve`].
    pub fn solve_within<S: Solvable + ?Sized>(
        &mut self,
        state: &S,
        max_nodes: u64,
    ) -> Result<Option<Solution>, Error> {
        let start = self.nodes;
        self.node_limit = start.saturating_add(max_nodes);
        let solution = self.solve(state);
        self.node_limit = u64::MAX;
        if self.nodes - start > max_nodes {
            self.clear();
            return Ok(None);
        }
        solution.map(Some)
    }

    /// The value of the position for the side of the seat to move (cheaper than
    /// [`Solver::solve`]: the actions are not each solved exactly).
    ///
    /// # Errors
    /// As [`Solver::solve`].
    pub fn value<S: Solvable + ?Sized>(&mut self, state: &S) -> Result<i32, Error> {
        self.table.next_age();
        Ok(state.solve_with(self, false)?.value)
    }

    /// A search with `rules` in configuration `config` (the table is emptied if the
    /// configuration changed since the last search).
    pub(crate) fn search<'a, R: Rules>(
        &'a mut self,
        rules: &'a R,
        config: Config,
    ) -> Search<'a, R> {
        if self.config != Some(config) {
            self.table.clear();
            self.config = Some(config);
        }
        let budget = self.node_limit.saturating_sub(self.nodes);
        Search::new(rules, &mut self.table, &mut self.nodes, budget)
    }
}

/// Solves `state` with a fresh solver (a small table; use a [`Solver`] to solve many states).
///
/// # Errors
/// As [`Solver::solve`].
pub fn solve<S: Solvable + ?Sized>(state: &S) -> Result<Solution, Error> {
    Solver::with_table_entries(ONE_OFF_TABLE_ENTRIES).solve(state)
}

/// The error for a game without trick play to solve (Cribbage), for callers that pick the
/// game at run time.
#[must_use]
pub fn unsupported_game(game: &str) -> Error {
    Error::WrongNode(format!(
        "{game} cannot be solved: the solver handles the trick play of jass, klaberjass and avinas"
    ))
}

/// The error for a state outside the phases `game` can be solved in.
pub(crate) fn not_solvable(game: &str, why: &str, allowed: &str) -> Error {
    Error::WrongNode(format!(
        "cannot solve this {game} state: {why}; the solver needs {allowed}"
    ))
}
