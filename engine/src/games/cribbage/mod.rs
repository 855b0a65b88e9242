//! Cribbage (six-card; 2, 3 or 4 players): pegging during the play, the show of the hands
//! and the crib with the starter, first to the target (121) wins the instant it is reached.
//!
//! **Rules source:** `shared/rules/cribbage.md` (after seed `001`, a Japanese blog text, and
//! the mainstream sources of its §13). Section numbers below refer to that file.
//!
//! **Engine decisions** (each also in the rules file or stated here):
//! * Seats `0..N` clockwise; "next" is seat `+1 mod N`. With 4 players seats {0, 2} and
//!   {1, 3} are partners and score together. A *side* is a seat (2, 3 players) or a team
//!   (4 players: side = seat mod 2). Scores, deal points and the winner are per side.
//! * First dealer (§4): option `first_dealer = random` draws it as one chance event whose
//!   outcomes `0..N` are the seats, each equally likely; a seat number fixes it. The deal
//!   then passes clockwise (2 players: alternates).
//! * The deal (§5) is explicit chance outcomes, one card each, from the dealer's left; with
//!   3 players one more card goes face down to the crib (the *blind crib card*). The
//!   starter is one more chance outcome: a uniformly random card of the stock.
//! * Discards (§5.2) are one card per action, in dealing order (dealer's left first, the
//!   dealer last), each player finishing his discards before the next starts. Other seats
//!   and spectators learn only `discard a card` by that seat.
//! * The play (§6.1) follows the rules file's pseudo-code: a player with a playable card
//!   must lay one; one without says `go` (then his only legal action) once per series and
//!   is skipped until it ends; a player with no cards is skipped. After a series ended by
//!   a go the next one is led by the first player who said go in it (option
//!   `new_series_leader = first_go_caller`, default) or by the player after the last
//!   card's player (`after_last_player`); after a 31, always by the player after the one
//!   who laid it. Empty hands are skipped.
//! * All the points one laid card earns (15 or 31, a pair kind, a run, the go / last-card
//!   point when it ends the last series) are credited together, then the target is checked;
//!   each show item (a hand, the crib) likewise (§8). His heels are credited when the
//!   starter is turned, before the play. The show needs no decisions, so it is done by the
//!   engine at once after the last card: no action, no phase.
//! * Hands at the show: every hand card was laid face up in the play, so the show reveals
//!   nothing new about hands; the crib (discards and the blind card) becomes public at the
//!   crib show. A game that ends before the crib show never reveals the crib.
//! * Skunks (§8): judged per losing side at the moment the game ends; with
//!   `skunk_enabled = false` every loss is worth 1 (double skunk included). With
//!   `double_skunk_enabled`, a loser below `double_skunk_threshold` is worth
//!   `double_skunk_game_value`, else below `skunk_threshold` `skunk_game_value`.
//! * Muggins is not modelled (§12): the engine scores every combination itself.
//! * `first_dealer` takes `random` or a seat number below `players` (as text or integer); a
//!   seat beyond the number of players is an error naming the allowed seats.
//! * `scope = deal` plays the first deal only; the target does not apply (§8), so heels,
//!   pegging and the whole show are always counted.
//! * Views keep the previous deal's show (`last_deal`: hands, crib, starter, item-by-item
//!   scores, pegging and deal points per side), since the show happens without a decision
//!   point of its own.
//! * A game that ends inside the pegging keeps, in its terminal view and observation, the
//!   table of that instant: the count, the current series and the go calls (§8).
//! * Scores in views: `scores` are per side and credited as they arise. With `scope = deal`
//!   they hold, at the end of the one deal, that deal's points (heels, pegging, show), as
//!   after the first deal of a match (§8).
//! * The seed and the rules file agree wherever the seed speaks (its 2-player deal, discard
//!   and starter text is truncated; those steps follow the rules file's \[filled\] rows).
//!
//! **Actions** (fixed ids, 53 in all). Cards are numbered `suit lane * 13 + rank index`,
//! lanes ♣ ♦ ♥ ♠ and ranks 2, 3, …, 10, J, Q, K, A (see [`card_action`]):
//!
//! | ids | action | text (seat's own / omniscient) | text for the others |
//! |---|---|---|---|
//! | 0..52 | discard a card to the crib | `discard 5H` | `discard a card` |
//! | 0..52 | lay a card in the play | `play 5H` | `play 5H` |
//! | 52 | say go | `go` | `go` |
//!
//! Chance outcomes: the first-dealer draw `0..N` (`first dealer 1`); a card dealt, by card
//! id (`deal 5H to 1`, `deal 5H to the crib`; others see `deal a card to 1`); the starter,
//! by card id (`starter 5H`, public).
//!
//! **Returns** (§8): 0 until terminal.
//! * `scope = match`: each losing seat gets −v, v = 1, or `skunk_game_value` /
//!   `double_skunk_game_value` if its side is skunked / double-skunked; each seat of the
//!   winning side gets the sum of the losing sides' v (2 and 4 players: +v; 3 players:
//!   v₁ + v₂).
//! * `scope = deal`: terminal after the crib of the first deal is counted (the target does
//!   not apply). With 2 and 4 players a seat gets its side's points of the deal minus the
//!   other side's; with 3 players its points minus the mean of the three players' points
//!   (computed as `(3p − total) / 3` for seats 0 and 1 and as minus their sum for seat 2,
//!   so that the returns add up to exactly 0).
//!
//! **Observation**: see [`layout`] (all seats relative to the observer).

mod deal;
mod heuristic;
mod ids;
mod observation;
mod options;
pub mod play;
mod resample;
pub mod scoring;
mod text;
mod view;

use std::sync::Arc;

pub(crate) use ids::pack_cards;
pub use ids::{action_card, card_action};
pub use observation::layout;
pub use options::{CribbageGame, SeriesLeader};
pub use scoring::{
    HandScore, card_value, score_hand, score_hand_checked, score_hand_reference, score_hand_text,
    score_set,
};
pub use view::{ActionView, CribbageView, LastDealView, PegView, ShowItemView};

use crate::{
    Action, ActionSet, Card, CardSet, Error, Player, Rng, Scope, SeatValues, State, Viewer,
};

/// Number of player action ids: 52 cards and `go`.
pub const NUM_ACTIONS: usize = 53;
/// The `go` action id.
pub const GO: Action = 52;

/// Where a game stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The first dealer is drawn (chance; only with `first_dealer = random`).
    FirstDealer,
    /// Cards are being dealt (chance).
    Deal,
    /// Players discard to the crib, one card per action.
    Discard,
    /// The starter is cut (chance).
    Starter,
    /// The play (pegging).
    Play,
    /// The game is over.
    Over,
}

/// Capacity of the per-deal action log: the first-dealer draw, at most 20 cards dealt, 4
/// discards, the starter and at most 36 play actions (16 cards and at most 20 go calls: a
/// go needs a count of 22 or more, so at most 5 series of 3+ cards contain one).
const LOG_CAP: usize = 64;
/// Capacity of the play record (cards and go calls of one deal).
const PEG_CAP: usize = 40;
const NONE: u8 = 0xFF;

/// The show of a finished deal, kept for views.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LastDeal {
    /// Its dealer.
    pub dealer: u8,
    /// The starter.
    pub starter: Card,
    /// The hands shown (4 cards each).
    pub hands: [CardSet; 4],
    /// The crib.
    pub crib: CardSet,
    /// Show scores in show order (hands from the dealer's left, then the crib).
    pub show: [HandScore; 5],
    /// Points each side scored in that deal (heels, pegging, show).
    pub points: [u32; 3],
    /// Pegging points of each side in that deal.
    pub pegging: [u32; 3],
}

/// A Cribbage state: small and `Clone`; legal actions, apply and observations do not
/// allocate. Finished deals of a game are kept in a shared, immutable log. Two states are
/// equal when every field is (the same game, history and position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CribbageState {
    game: CribbageGame,
    phase: Phase,
    deal_no: u16,
    dealer: u8,
    to_act: u8,
    /// Cards dealt so far in this deal (blind crib card included).
    dealt: u8,
    /// Cards held now.
    hands: [CardSet; 4],
    /// Cards dealt to each seat in this deal.
    dealt_hands: [CardSet; 4],
    /// Each seat's discards to the crib.
    discards: [CardSet; 4],
    /// The crib: the discards and the blind card.
    crib: CardSet,
    starter: Option<Card>,
    // The play.
    count: u8,
    series: [u8; 16],
    series_len: u8,
    said_go: u8,
    first_go: u8,
    last: u8,
    /// Play record: `seat << 6 | action` (a card id or [`GO`]).
    pegs: [u8; PEG_CAP],
    pegs_len: u8,
    /// Index in `pegs` where the current series starts.
    series_start: u8,
    // The show of this deal: scores in show order, and how many items were counted.
    show: [HandScore; 5],
    shown: u8,
    // Scores per side.
    scores: [u32; 3],
    deal_points: [u32; 3],
    peg_points: [u32; 3],
    heels: bool,
    winner: Option<u8>,
    last_deal: Option<LastDeal>,
    log: [u8; LOG_CAP],
    log_len: u8,
    past: Option<Arc<Vec<u8>>>,
}

impl CribbageState {
    fn new(game: CribbageGame) -> CribbageState {
        CribbageState {
            game,
            phase: if game.first_dealer.is_some() {
                Phase::Deal
            } else {
                Phase::FirstDealer
            },
            deal_no: 0,
            dealer: game.first_dealer.unwrap_or(0),
            to_act: 0,
            dealt: 0,
            hands: [CardSet::EMPTY; 4],
            dealt_hands: [CardSet::EMPTY; 4],
            discards: [CardSet::EMPTY; 4],
            crib: CardSet::EMPTY,
            starter: None,
            count: 0,
            series: [0; 16],
            series_len: 0,
            said_go: 0,
            first_go: NONE,
            last: 0,
            pegs: [0; PEG_CAP],
            pegs_len: 0,
            series_start: 0,
            show: [HandScore::default(); 5],
            shown: 0,
            scores: [0; 3],
            deal_points: [0; 3],
            peg_points: [0; 3],
            heels: false,
            winner: None,
            last_deal: None,
            log: [0; LOG_CAP],
            log_len: 0,
            past: None,
        }
    }

    /// The phase.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The number of the current deal, from 1.
    #[must_use]
    pub fn deal_number(&self) -> usize {
        usize::from(self.deal_no) + 1
    }

    /// The current dealer (meaningless before the first-dealer draw).
    #[must_use]
    pub fn dealer(&self) -> usize {
        usize::from(self.dealer)
    }

    /// The cards `seat` holds now.
    #[must_use]
    pub fn hand(&self, seat: usize) -> CardSet {
        self.hands[seat & 3]
    }

    /// The cards dealt to `seat` in this deal.
    #[must_use]
    pub fn dealt_hand(&self, seat: usize) -> CardSet {
        self.dealt_hands[seat & 3]
    }

    /// The cards `seat` discarded to the crib in this deal.
    #[must_use]
    pub fn discards(&self, seat: usize) -> CardSet {
        self.discards[seat & 3]
    }

    /// The crib so far (discards and the 3-player blind card).
    #[must_use]
    pub fn crib(&self) -> CardSet {
        self.crib
    }

    /// The starter, once cut.
    #[must_use]
    pub fn starter(&self) -> Option<Card> {
        self.starter
    }

    /// The count of the current series.
    #[must_use]
    pub fn count(&self) -> u8 {
        self.count
    }

    /// Scores per side (2 players: seats; 3 players: seats; 4 players: teams {0,2}, {1,3}).
    #[must_use]
    pub fn scores(&self) -> &[u32] {
        &self.scores[..self.game.num_sides()]
    }

    /// Points per side in the current (or last) deal: heels, pegging and show.
    #[must_use]
    pub fn deal_points(&self) -> &[u32] {
        &self.deal_points[..self.game.num_sides()]
    }

    /// Pegging points per side in the current deal (heels not included).
    #[must_use]
    pub fn peg_points(&self) -> &[u32] {
        &self.peg_points[..self.game.num_sides()]
    }

    /// Show scores of this deal in show order (hands from the dealer's left, then the crib);
    /// only the first [`CribbageState::shown`] are counted.
    #[must_use]
    pub fn show_scores(&self) -> &[HandScore] {
        &self.show[..usize::from(self.shown)]
    }

    /// Number of show items counted in this deal (hands, then the crib).
    #[must_use]
    pub fn shown(&self) -> usize {
        usize::from(self.shown)
    }

    /// The winning side, once the game is over in `scope = match`.
    #[must_use]
    pub fn winner(&self) -> Option<usize> {
        self.winner.map(usize::from)
    }

    /// The last finished deal's show, in `scope = match`.
    #[must_use]
    pub fn last_deal(&self) -> Option<LastDeal> {
        self.last_deal
    }

    /// Play record of this deal: `(seat, Some(card))` for a card laid, `(seat, None)` for go.
    pub fn plays(&self) -> impl Iterator<Item = (usize, Option<Card>)> + '_ {
        self.pegs[..usize::from(self.pegs_len)]
            .iter()
            .map(|&p| (usize::from(p >> 6), action_card(Action::from(p & 63))))
    }

    /// Cards laid by `seat` in this deal.
    #[must_use]
    pub fn laid(&self, seat: usize) -> CardSet {
        self.dealt_hands[seat & 3] - self.discards[seat & 3] - self.hands[seat & 3]
    }

    #[inline]
    fn n(&self) -> u8 {
        self.game.players
    }

    #[inline]
    fn next(&self, seat: u8) -> u8 {
        if seat + 1 >= self.game.players {
            0
        } else {
            seat + 1
        }
    }

    fn push_log(&mut self, a: Action) {
        let i = usize::from(self.log_len);
        debug_assert!(i < LOG_CAP);
        if i < LOG_CAP {
            self.log[i] = a as u8;
            self.log_len += 1;
        }
    }

    /// Credits points to a side; in `scope = match` the game ends the instant a side
    /// reaches the target. Returns true if the game is over.
    #[inline]
    fn credit(&mut self, side: usize, points: u8) -> bool {
        let p = u32::from(points);
        self.scores[side] += p;
        self.deal_points[side] += p;
        if self.game.scope == Scope::Match && self.scores[side] >= self.game.target_score {
            self.winner = Some(side as u8);
            self.phase = Phase::Over;
            return true;
        }
        false
    }

    fn illegal_reason(&self, action: Action) -> String {
        let n = self.n();
        match self.phase {
            Phase::FirstDealer => format!(
                "the first dealer is being drawn; the outcomes are the seats 0 to {}",
                n - 1
            ),
            Phase::Deal => match action_card(action) {
                Some(c) => format!("{c} was already dealt"),
                None => "deal outcomes are card ids 0..52".to_owned(),
            },
            Phase::Starter => match action_card(action) {
                Some(c) => format!("{c} is not in the stock; the starter is cut from the stock"),
                None => "the starter outcomes are card ids 0..52".to_owned(),
            },
            Phase::Over => "the game is over".to_owned(),
            Phase::Discard => self.discard_reason(action),
            Phase::Play => self.play_reason(action),
        }
    }
}

impl State for CribbageState {
    type Game = CribbageGame;
    type View = CribbageView;

    fn game(&self) -> &CribbageGame {
        &self.game
    }

    #[inline]
    fn current_player(&self) -> Player {
        match self.phase {
            Phase::FirstDealer | Phase::Deal | Phase::Starter => Player::Chance,
            Phase::Over => Player::Terminal,
            Phase::Discard | Phase::Play => Player::Seat(usize::from(self.to_act)),
        }
    }

    #[inline]
    fn legal_actions(&self) -> ActionSet {
        let mut set = ActionSet::EMPTY;
        match self.phase {
            Phase::FirstDealer => set.insert_bits(0, (1u64 << self.n()) - 1),
            Phase::Deal | Phase::Starter => set.insert_bits(0, pack_cards(self.stock())),
            Phase::Discard => {
                set.insert_bits(0, pack_cards(self.hands[usize::from(self.to_act)]));
            }
            Phase::Play => {
                let legal = self.legal_play();
                if legal == 0 {
                    set.insert(GO);
                } else {
                    set.insert_bits(0, legal);
                }
            }
            Phase::Over => {}
        }
        set
    }

    fn apply_random_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        let outcomes = match self.phase {
            Phase::FirstDealer | Phase::Deal | Phase::Starter => self.legal_actions(),
            _ => {
                return Err(Error::WrongNode(
                    "no chance event is pending: a seat is to act or the game is over".into(),
                ));
            }
        };
        if let Some(a) = outcomes.choose(rng) {
            self.apply_unchecked(a);
        }
        Ok(())
    }

    fn resolve_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        loop {
            match self.phase {
                Phase::Deal => self.deal_rest(rng),
                Phase::Starter => {
                    let stock = self.stock();
                    if let Some(card) = stock.nth(rng.below(stock.len() as u64) as usize) {
                        self.cut_starter(card);
                    }
                }
                Phase::FirstDealer => {
                    let d = rng.below(u64::from(self.n()));
                    self.apply_unchecked(d as Action);
                }
                _ => return,
            }
        }
    }

    fn check_action(&self, action: Action) -> Result<(), Error> {
        if self.phase == Phase::Over {
            return Err(Error::GameOver);
        }
        let chance = self.is_chance_node();
        let limit = if chance { 52 } else { NUM_ACTIONS as Action };
        if action >= limit {
            return Err(Error::UnknownAction {
                action: i64::from(action),
                reason: if chance {
                    "chance outcomes of cribbage are ids 0..52".to_owned()
                } else {
                    format!("cribbage action ids are 0..{NUM_ACTIONS} (cards 0..52, go = 52)")
                },
            });
        }
        if self.legal_actions().contains(action) {
            return Ok(());
        }
        Err(Error::IllegalAction {
            action,
            name: self.action_to_string(action),
            reason: self.illegal_reason(action),
        })
    }

    #[inline]
    fn apply_unchecked(&mut self, action: Action) {
        debug_assert!(
            self.check_action(action).is_ok(),
            "{:?}",
            self.check_action(action)
        );
        match self.phase {
            Phase::FirstDealer => {
                self.push_log(action);
                self.dealer = action as u8;
                self.phase = Phase::Deal;
            }
            Phase::Deal => {
                if let Some(card) = action_card(action) {
                    self.deal_card(card);
                }
            }
            Phase::Discard => {
                if let Some(card) = action_card(action) {
                    self.push_log(action);
                    self.discard(card);
                }
            }
            Phase::Starter => {
                if let Some(card) = action_card(action) {
                    self.cut_starter(card);
                }
            }
            Phase::Play => {
                self.push_log(action);
                match action_card(action) {
                    Some(card) => self.lay(action, card),
                    None => self.say_go(),
                }
            }
            Phase::Over => {}
        }
    }

    fn action_to_string_for(&self, viewer: Viewer, action: Action) -> Option<String> {
        text::action_text(self, viewer, action)
    }

    fn action_visible_to(&self, _viewer: Viewer, _action: Action) -> bool {
        // Every action is an event for everybody (a discard shows only that a card went).
        self.phase != Phase::Over
    }

    fn string_to_action(&self, text: &str) -> Result<Action, Error> {
        text::parse_action(self, text)
    }

    fn write_observation(&self, seat: usize, out: &mut [f32]) -> Result<(), Error> {
        observation::write(self, seat, out)
    }

    fn observation_string(&self, seat: usize) -> Result<String, Error> {
        text::observation_string(self, seat)
    }

    fn view(&self, viewer: Viewer) -> Result<CribbageView, Error> {
        view::view(self, viewer)
    }

    fn returns(&self) -> SeatValues {
        let n = usize::from(self.n());
        let mut r = SeatValues::zeros(n);
        if self.phase != Phase::Over {
            return r;
        }
        match self.game.scope {
            Scope::Match => {
                let Some(w) = self.winner else { return r };
                let w = usize::from(w);
                let sides = self.game.num_sides();
                let value = |side: usize| f64::from(self.game.game_value(self.scores[side]));
                let won: f64 = (0..sides).filter(|&s| s != w).map(value).sum();
                for seat in 0..n {
                    let side = self.game.side(seat);
                    r[seat] = if side == w { won } else { -value(side) };
                }
            }
            Scope::Deal => r = self.deal_returns(self.deal_points),
        }
        r
    }

    fn history(&self) -> Vec<Action> {
        let past = self.past.as_deref().map_or(&[][..], |p| &p[..]);
        past.iter()
            .chain(&self.log[..usize::from(self.log_len)])
            .map(|&a| Action::from(a))
            .collect()
    }

    fn move_number(&self) -> usize {
        self.past.as_ref().map_or(0, |p| p.len()) + usize::from(self.log_len)
    }

    fn public_move_number(&self) -> usize {
        // Every action is a public event (discards without their card).
        self.move_number()
    }

    fn resample<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Self, Error> {
        resample::resample(self, seat, rng)
    }

    fn deal_outcome(&self) -> Option<SeatValues> {
        if self.phase != Phase::Deal || self.dealt != 0 {
            return None;
        }
        Some(self.deal_returns(self.last_deal?.points))
    }

    fn heuristic_action<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Action, Error> {
        crate::game::expect_turn(self, seat)?;
        Ok(heuristic::action(self, seat, rng))
    }
}
