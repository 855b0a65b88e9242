//! The `ismcts` bot: single-observer information-set Monte Carlo tree search (Cowling,
//! Powley and Whitehouse, "Information Set Monte Carlo Tree Search", 2012).
//!
//! Each iteration draws a determinization, a full state consistent with what the searching
//! seat knows ([`State::resample`]), and descends one shared tree whose edges are actions:
//! at each node the seat to move in that determinization picks, among the actions legal
//! there, the edge with the best UCB1 score, counting an edge's *availability* (how often it
//! was legal when its node was visited) instead of the parent's visits. The first action not
//! yet in the tree is expanded, then the determinization is played out with uniformly random
//! moves (chance from the same generator) to the end, and the returns are credited to every
//! edge on the path from the viewpoint of the seat that chose it. The tree stops at chance
//! nodes (a new deal): what follows is played out, not searched.
//!
//! Rewards are the game's returns scaled by the largest magnitude seen so far, so the same
//! exploration constant serves ±1 match outcomes and point differences alike. The move is the
//! root edge visited most.
//!
//! The search never sees the real hidden cards: the real state is only resampled. If the
//! game's determinizer cannot find a consistent state (a rejection sampler under tight
//! public facts), that iteration is skipped; if none of the first eight succeeds, the
//! game's heuristic decides the move.

use crate::{Action, Error, Game, Player, Rng, State};

/// ISMCTS parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct IsmctsConfig {
    /// Iterations (determinizations) per move; 0 = the game's default
    /// ([`crate::Game::default_ismcts_iterations`]).
    pub iterations: u32,
    /// UCB1 exploration constant.
    pub exploration: f64,
    /// Play-outs by the game's heuristic (every seat) instead of uniformly random moves.
    pub heuristic_playouts: bool,
}

impl Default for IsmctsConfig {
    /// The game's default iterations (under 20 ms a move on one core of the development
    /// machine; see the README's bot table), deterministic for a seed.
    fn default() -> Self {
        IsmctsConfig {
            iterations: 0,
            exploration: 0.7,
            heuristic_playouts: true,
        }
    }
}

/// Failed determinizations, with none successful, after which the heuristic decides.
const FAILURES_BEFORE_FALLBACK: u32 = 8;

/// One edge of the tree: an action taken at its node.
#[derive(Clone, Debug)]
struct Edge {
    action: Action,
    /// The seat that takes it.
    seat: usize,
    visits: u32,
    available: u32,
    /// Sum of the (unscaled) returns of `seat` over the visits.
    total: f64,
    /// The node it leads to (0 = not created yet; node 0 is the root).
    child: u32,
}

#[derive(Clone, Debug, Default)]
struct Node {
    edges: Vec<Edge>,
}

/// What a search found for one action of the searching seat at the root ([`search_root`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootEdge {
    /// The action.
    pub action: Action,
    /// Iterations that took it (a move made without searching counts one).
    pub visits: u32,
    /// The sum of the searching seat's returns (unscaled) over those iterations (the mean
    /// is `total_return / visits`); 0 without a search.
    pub total_return: f64,
}

/// The action ISMCTS chooses for `seat` (to act in `root`): the root action visited most
/// (ties to the higher total return) of [`search_root`].
///
/// # Errors
/// [`Error::ResampleFailed`] if no determinization could be drawn.
pub fn search<S: State, R: Rng + ?Sized>(
    root: &S,
    seat: usize,
    config: &IsmctsConfig,
    rng: &mut R,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Action, Error> {
    let edges = search_root(root, seat, config, rng, stop)?;
    edges
        .iter()
        .max_by(|a, b| {
            a.visits
                .cmp(&b.visits)
                .then(a.total_return.total_cmp(&b.total_return))
        })
        .map(|e| e.action)
        .ok_or(Error::GameOver)
}

/// The root statistics of an ISMCTS search for `seat` (to act in `root`): one entry per
/// root action the search tried, in the order it tried them, with its visits and total
/// return; what a learner can imitate (the visit distribution) or regress. Without a search
/// (a single legal action, or the heuristic's fallback when no determinization could be
/// drawn) the one action played is reported with one visit and total return 0. The
/// generator is drawn from exactly as [`search`] does.
///
/// # Errors
/// [`Error::ResampleFailed`] if no determinization could be drawn;
/// [`Error::GameOver`] if `seat` has no legal action.
pub fn search_root<S: State, R: Rng + ?Sized>(
    root: &S,
    seat: usize,
    config: &IsmctsConfig,
    rng: &mut R,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Vec<RootEdge>, Error> {
    let unsearched = |action: Action| {
        vec![RootEdge {
            action,
            visits: 1,
            total_return: 0.0,
        }]
    };
    let legal = root.legal_actions();
    if legal.len() <= 1 {
        return legal.iter().next().map(unsearched).ok_or(Error::GameOver);
    }
    let mut nodes = vec![Node::default()];
    let mut scale = 1.0f64;
    let mut path: Vec<(u32, usize)> = Vec::with_capacity(64);
    let (mut searched, mut failures) = (0u32, 0u32);
    let iterations = if config.iterations == 0 {
        root.game().default_ismcts_iterations()
    } else {
        config.iterations
    };
    for i in 0..iterations.max(1) {
        if i > 0 && stop() {
            break;
        }
        let Ok(mut d) = root.resample(seat, rng) else {
            // Rejection-sampling determinizers can fail when the public facts are tight;
            // if none succeeds at all, the heuristic decides.
            failures += 1;
            if searched == 0 && failures >= FAILURES_BEFORE_FALLBACK {
                return root.heuristic_action(seat, rng).map(unsearched);
            }
            continue;
        };
        searched += 1;
        path.clear();
        let mut node = 0u32;
        // Selection and expansion.
        while let Player::Seat(to_act) = d.current_player() {
            let legal = d.legal_actions();
            let edges = &mut nodes[node as usize].edges;
            let mut untried = legal;
            for e in edges.iter_mut() {
                if legal.contains(e.action) {
                    e.available += 1;
                    untried.remove(e.action);
                }
            }
            if let Some(a) = untried.choose(rng) {
                edges.push(Edge {
                    action: a,
                    seat: to_act,
                    visits: 0,
                    available: 1,
                    total: 0.0,
                    child: 0,
                });
                path.push((node, edges.len() - 1));
                d.apply_unchecked(a);
                break;
            }
            let c = config.exploration;
            let best = edges
                .iter()
                .enumerate()
                .filter(|(_, e)| legal.contains(e.action))
                .map(|(k, e)| {
                    let mean = e.total / f64::from(e.visits.max(1)) / scale;
                    let explore =
                        c * (f64::from(e.available).ln() / f64::from(e.visits.max(1))).sqrt();
                    (k, mean + explore)
                })
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(k, _)| k);
            let Some(k) = best else { break };
            path.push((node, k));
            let action = edges[k].action;
            let existing = edges[k].child;
            let child = if existing == 0 {
                nodes.push(Node::default());
                let id = (nodes.len() - 1) as u32;
                nodes[node as usize].edges[k].child = id;
                id
            } else {
                existing
            };
            d.apply_unchecked(action);
            node = child;
        }
        // Play-out to the end of the deal in progress (or of the game): a move is judged by
        // its deal, not by a whole match played out.
        let mut outcome = None;
        while !d.is_terminal() {
            if let Some(o) = d.deal_outcome() {
                outcome = Some(o);
                break;
            }
            if d.is_chance_node() {
                d.resolve_chance(rng);
                continue;
            }
            let Player::Seat(to_act) = d.current_player() else {
                break;
            };
            let a = if config.heuristic_playouts {
                d.heuristic_action(to_act, rng).ok()
            } else {
                d.legal_actions().choose(rng)
            };
            match a {
                Some(a) => d.apply_unchecked(a),
                None => break,
            }
        }
        let returns = outcome.unwrap_or_else(|| d.returns());
        for r in returns.iter() {
            scale = scale.max(r.abs());
        }
        for &(n, k) in &path {
            let e = &mut nodes[n as usize].edges[k];
            e.visits += 1;
            e.total += returns.get(e.seat).copied().unwrap_or(0.0);
        }
    }
    let edges: Vec<RootEdge> = nodes[0]
        .edges
        .iter()
        .filter(|e| legal.contains(e.action))
        .map(|e| RootEdge {
            action: e.action,
            visits: e.visits,
            total_return: e.total,
        })
        .collect();
    if edges.is_empty() {
        // Every determinization failed (fewer than the fallback's count): the first legal
        // action, as always.
        return legal.iter().next().map(unsearched).ok_or(Error::GameOver);
    }
    Ok(edges)
}
