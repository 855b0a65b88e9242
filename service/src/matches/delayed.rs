//! A delayed spectator's Watch stream ([`Feed`]): the prefix of the match it has been shown
//! ([`shown`]), and the actions of the match after it, waiting to be shown. Each action the
//! match's changes bring waits; it is shown once the match is `delay` actions past it, its
//! deal has ended, or the match has ended, one event per action, in order, never skipping:
//! the same prefixes, one action apart, as `GetView` shows at each moment.

use std::collections::VecDeque;

use cardhouse::{Action, Player};

use crate::domain::MatchStatus;
use crate::error::ApiError;
use crate::matches::model::{Live, shown};

/// What a delayed spectator's stream has shown, and what waits.
#[derive(Debug)]
pub(super) struct Feed {
    delay: u32,
    /// The match as shown so far: its state is the prefix of `k` actions.
    shown: Live,
    /// The match's actions after the shown prefix, oldest first (at most `delay`, but for
    /// a moment while a change is being shown).
    waiting: VecDeque<Action>,
    /// How many actions of the history may be shown now.
    target: u64,
}

impl Feed {
    /// The feed of a viewer `delay` actions behind `live`, the match when its stream starts:
    /// its snapshot is of [`Feed::shown`].
    pub(super) fn new(live: &Live, delay: u32) -> Feed {
        let shown = shown(live, delay);
        let k = shown.state.move_number();
        let waiting = live.state.history().get(k..).unwrap_or_default().to_vec();
        Feed {
            delay,
            target: k as u64,
            shown,
            waiting: waiting.into(),
        }
    }

    /// The match as shown so far.
    pub(super) fn shown(&self) -> &Live {
        &self.shown
    }

    /// History length of the match as the feed knows it.
    fn known(&self) -> u64 {
        (self.shown.state.move_number() + self.waiting.len()) as u64
    }

    /// Checks that a change made at `before` continues the match as the feed knows it.
    ///
    /// # Errors
    /// [`ApiError::Conflict`] if it does not (the match was replaced in a shared store):
    /// the stream cannot go on without skipping.
    pub(super) fn follows(&self, before: &Live) -> Result<(), ApiError> {
        if before.state.move_number() as u64 == self.known() {
            Ok(())
        } else {
            Err(ApiError::Conflict)
        }
    }

    /// `action` was applied, leaving the match at `after`: it waits, and whatever is now
    /// `delay` behind, in a deal that has ended, or in a match that has ended, may be shown.
    pub(super) fn push(&mut self, action: Action, after: &Live) {
        self.waiting.push_back(action);
        let n = after.state.move_number() as u64;
        self.target = if after.status != MatchStatus::Active || after.state.deal_outcome().is_some()
        {
            n
        } else {
            self.target.max(n.saturating_sub(u64::from(self.delay)))
        };
    }

    /// The match ended early (resignation, abort, its length limit): every action may be
    /// shown; [`Feed::finish`] then shows the end itself.
    pub(super) fn end(&mut self) {
        self.target = self.known();
    }

    /// Shows the next waiting action if it may be shown: who took it and its text (every
    /// card named); [`Feed::shown`] is then the match after it.
    pub(super) fn next(&mut self) -> Option<(Player, String)> {
        if self.shown.state.move_number() as u64 >= self.target {
            return None;
        }
        let action = self.waiting.pop_front()?;
        let state = &mut self.shown.state;
        let actor = state.current_player();
        let text = state.action_to_string(action);
        // The live match's history: legal by construction.
        state.apply_unchecked(action);
        if state.is_terminal() {
            self.shown.status = MatchStatus::Finished;
        }
        Some((actor, text))
    }

    /// After every action was shown ([`Feed::end`]), the end of the match as `after` has
    /// it: shown whole.
    pub(super) fn finish(&mut self, after: &Live) {
        self.shown.status = after.status;
        self.shown.resigned_seat = after.resigned_seat;
        self.shown.ended_at_ms = after.ended_at_ms;
    }
}

/// The leak test of the code path the server uses: two matches whose histories agree up to
/// a point and then differ (two dealt cards swapped between hands) give a delayed viewer
/// the same bytes, in `GetView` and in every Watch event, for as long as the prefix it is
/// shown ends before that point, and different ones once it passes it.
#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use cardhouse::{AnyGame, SeededRng, Viewer};
    use prost::Message;

    use super::Feed;
    use crate::convert::json_to_struct;
    use crate::matches::model::{Live, Meta, step};
    use crate::matches::views::{Role, event, match_view};

    fn meta(game: &AnyGame) -> Meta {
        Meta::for_tests(game, 1)
    }

    /// The match after the first `n` actions of `history`, as the service holds it.
    fn live(game: &AnyGame, history: &[u32]) -> Live {
        let mut live = Live::initial(game);
        for &a in history {
            step(&mut live, a);
        }
        live
    }

    /// `prefix` played on at random (seeded) until `len` actions or the end.
    fn played_on(game: &AnyGame, prefix: &[u32], seed: u64, len: usize) -> Vec<u32> {
        let mut rng = SeededRng::new(seed);
        let mut state = game.replay(prefix).expect("a legal prefix");
        while state.move_number() < len && !state.is_terminal() {
            if state.is_chance_node() {
                state.apply_random_chance(&mut rng).expect("chance");
            } else {
                let a = state
                    .legal_actions()
                    .choose(&mut rng)
                    .expect("a legal action");
                state.apply(a).expect("legal");
            }
        }
        state.history()
    }

    /// Two matches of `game` that agree up to index `d`, a chance outcome of the second
    /// deal (a card dealt), and differ there (another card dealt) and after it (played on
    /// at random): `(a, b, d)`, of the same length.
    fn diverging(game: &AnyGame, seed: u64) -> (Vec<u32>, Vec<u32>, usize) {
        let a = played_on(game, &[], seed, 220);
        let mut state = game.new_initial_state();
        let (mut deal_ended, mut dealt) = (false, 0);
        for (d, &x) in a.iter().enumerate() {
            deal_ended |= state.deal_outcome().is_some();
            if deal_ended && state.is_chance_node() {
                dealt += 1;
                let outcomes = state.chance_outcomes().expect("outcomes");
                // A few cards into the deal, so that its start is shown before it.
                if let Some(&(y, _)) = outcomes.iter().find(|&&(y, _)| y != x)
                    && dealt > 3
                {
                    let mut prefix = a[..d].to_vec();
                    prefix.push(y);
                    let b = played_on(game, &prefix, seed + 1, 220);
                    let len = a.len().min(b.len());
                    return (a[..len].to_vec(), b[..len].to_vec(), d);
                }
            }
            state.apply_unchecked(x);
        }
        panic!("{}: no second deal in {} actions", game.name(), a.len());
    }

    /// For each `n`, the prefix of `history[..n]` a viewer `delay` behind is to be shown:
    /// `max(n - delay, the last deal end)`, or `n` once the match has ended (worked out
    /// here from the rules of the API, not by the code under test).
    fn prefixes(game: &AnyGame, history: &[u32], delay: u32) -> Vec<usize> {
        let mut state = game.new_initial_state();
        let mut deal_end = 0;
        let mut out = Vec::with_capacity(history.len() + 1);
        for n in 0..=history.len() {
            if n > 0 {
                state.apply_unchecked(history[n - 1]);
            }
            if state.deal_outcome().is_some() {
                deal_end = n;
            }
            out.push(if state.is_terminal() {
                n
            } else {
                n.saturating_sub(delay as usize).max(deal_end)
            });
        }
        out
    }

    /// A delayed viewer's stream opened `from` actions into `history`, then fed each later
    /// action (`light`: the light detail): every message's bytes, and how many had been
    /// sent once the match was `n` actions long (for `n` from `from`).
    fn stream(
        game: &AnyGame,
        meta: &Meta,
        history: &[u32],
        from: usize,
        delay: u32,
        light: bool,
    ) -> (Vec<Vec<u8>>, Vec<usize>) {
        let mut live = live(game, &history[..from]);
        let mut feed = Feed::new(&live, delay);
        let role = Role::Delayed(delay);
        let snapshot = match_view(meta, &live, role).expect("a view");
        let mut last = snapshot.move_number;
        let mut out = vec![snapshot.encode_to_vec()];
        let mut sent = vec![1];
        for &a in &history[from..] {
            step(&mut live, a);
            feed.push(a, &live);
            while let Some((actor, text)) = feed.next() {
                let (e, ended) =
                    event(meta, role, Some(actor), text, feed.shown(), light).expect("an event");
                assert_eq!(ended, feed.shown().state.is_terminal());
                let Some(crate::pb::watch_response::Kind::Event(ev)) = &e.kind else {
                    panic!("an event");
                };
                let mn = ev.view.as_ref().expect("a view").move_number;
                assert_eq!(mn, last + 1, "one action an event");
                last = mn;
                out.push(e.encode_to_vec());
            }
            sent.push(out.len());
        }
        // The stream has shown what GetView shows now.
        let now = match_view(meta, &live, role).expect("a view");
        assert_eq!(last, now.move_number);
        (out, sent)
    }

    #[test]
    fn a_delayed_viewer_learns_nothing_past_the_prefix_it_is_shown() {
        let games: [(&str, &[(&str, &str)]); 6] = [
            ("jass", &[]),
            ("klaberjass", &[]),
            ("cribbage", &[]),
            ("cribbage", &[("players", "3")]),
            ("cribbage", &[("players", "4")]),
            ("avinas", &[]),
        ];
        for (name, options) in games {
            let options: cardhouse::Options = options
                .iter()
                .map(|(k, v)| ((*k).to_owned(), cardhouse::OptionValue::Str((*v).into())))
                .collect();
            let game = cardhouse::new_game(name, &options).expect("a game");
            let meta = meta(&game);
            let (a, b, d) = diverging(&game, 3);
            let what = format!("{name} {options:?} (differ from {d} of {})", a.len());
            let mut differed = HashMap::new();
            let (mut same, mut events) = (0, 0);
            for delay in [1u32, 40, 10_000] {
                let role = Role::Delayed(delay);
                let (ka, kb) = (prefixes(&game, &a, delay), prefixes(&game, &b, delay));
                // Up to here both are shown no more than their common prefix (after `d` the
                // matches differ in public actions too, so a deal of one may end first: that
                // is shown whole, by design).
                let common = (0..=a.len())
                    .take_while(|&n| ka[n] <= d && kb[n] <= d)
                    .last()
                    .unwrap_or(0);
                let (mut la, mut lb) = (live(&game, &[]), live(&game, &[]));
                let mut views = Vec::with_capacity(a.len() + 1);
                for n in 0..=a.len() {
                    if n > 0 {
                        step(&mut la, a[n - 1]);
                        step(&mut lb, b[n - 1]);
                    }
                    let (va, vb) = (
                        match_view(&meta, &la, role).expect("a view"),
                        match_view(&meta, &lb, role).expect("a view"),
                    );
                    if n <= common {
                        assert!(
                            va.encode_to_vec() == vb.encode_to_vec(),
                            "{what}: n {n}, delay {delay}: GetView leaks"
                        );
                        same += 1;
                    } else if va != vb {
                        *differed.entry(delay).or_insert(0) += 1;
                    }
                    views.push(va);
                }
                // Each view is of the prefix it is to be shown.
                for (n, va) in views.into_iter().enumerate() {
                    let k = ka[n];
                    assert_eq!(va.move_number, k as u64, "{what}: n {n}, delay {delay}");
                    let shown = game.replay(&a[..k]).expect("a prefix");
                    assert_eq!(
                        va.view,
                        Some(json_to_struct(
                            shown.view(Viewer::Omniscient).expect("view")
                        )),
                        "{what}: the omniscient view of the prefix"
                    );
                    assert_eq!(va.delay, Some(delay));
                    assert!(va.legal_actions.is_empty());
                }
                for (from, light) in [(0, false), (d - 3, false), (d / 2, true)] {
                    let ((sa, at_a), (sb, at_b)) = (
                        stream(&game, &meta, &a, from, delay, light),
                        stream(&game, &meta, &b, from, delay, light),
                    );
                    let (na, nb) = (at_a[common - from], at_b[common - from]);
                    assert!(
                        na == nb && sa[..na] == sb[..nb],
                        "{what}: delay {delay}, from {from}: Watch leaks"
                    );
                    assert!(sa != sb, "{what}: the streams show the other card");
                    events += na;
                }
            }
            eprintln!("{what}: {same} views and {events} events the same; {differed:?}");
            // Past the swap, the views do differ (the test would see a leak).
            assert!(differed.get(&1).is_some_and(|&c| c > 0), "{what}");
        }
    }
}
