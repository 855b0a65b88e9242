//! Klaberjass (Klabberjass, Clobiosh): 2 players, 32 cards, a trump-making bid on the turn-up,
//! sequences, Bella, 9 tricks per deal, game to 500.
//!
//! **Rules source:** `shared/rules/klaberjass.md` (after seed `000`, a 1995 Japanese text, and
//! the sources of its §16). Section numbers below refer to that file.
//!
//! **Engine decisions and rulings** (each also tagged in the rules file or stated here):
//! * Seats `0` and `1`; the dealer is the *younger* player, the other the *elder* (§2).
//!   The first dealer is one fair chance event (`first_dealer = random`, outcome `0` or `1` =
//!   the seat that deals), or fixed by the option (§4).
//! * The deal is explicit chance outcomes, one card each (outcome id = card id): 3 to elder,
//!   3 to dealer, 3 to elder, 3 to dealer, then the turn-up (§5.1–2). After the bidding, 3 to
//!   elder, 3 to dealer, then the bottom card turned up (§5.4–5). The other 12 stock cards
//!   are never drawn: they appear nowhere, not even in the history.
//! * Bidding (§6): `take` / `pass` on the turn-up's suit, then `name <suit>` / `pass`; four
//!   passes annul the deal (no score; the dealer changes as after any deal).
//! * Dix exchange windows (§7) are held after the bottom card and after the announcements
//!   whenever trump was fixed in round 1 and the turn-up is not the trump 7. In each window
//!   both players act, elder first: the holder of the trump 7 may `exchange`; everybody may
//!   `wait` (window 1) / `keep` (window 2). The exchange is public.
//! * Announcements (§8.4): each player, elder first, declares any subset of his maximal runs
//!   (private `declare run …` items, in ascending item order, see [`sequences`]) and then
//!   `announce`s (public). The protocol of §8.4 steps 1–4 is then computed by the engine from
//!   the two committed sets and made public as an [`Announcement`]; the winner's declared
//!   sequences are shown (their cards become public). When the younger player declared
//!   nothing the reply is `good` (§8.4 step 2), also when both declared nothing (no score).
//!   Declared sequences keep their value after a window-2 exchange of their trump 7.
//! * Bella (§9) is credited automatically when its holder plays the second of trump K and Q;
//!   "holding both" is judged when play starts (after both exchange windows).
//! * Game end (§12): after each deal's scoring; an exact tie at or above the target plays
//!   another deal (`game_tie_rule = play_another_deal`) or ends drawn (`draw`).
//! * `maker_tie_rule = hang`: the disputed `Tm + To` points are set aside and go to the player
//!   who adds more in the next completed (not annulled) deal; they do not count for that
//!   deal's `dealer_rotation = winner_deals` comparison (which compares the §11 additions).
//! * `first_dealer` accepts the strings `random`, `0`, `1` and the integers `0`, `1`.
//! * `accept` and `I accept` parse as `take` (§6). `resolve_chance` draws a whole dealing
//!   stage at once (each card uniform among the undealt ones); the history still lists one
//!   outcome per card.
//! * `resample` keeps finished deals of a match as they were (their cards no longer
//!   influence play) and re-deals the current one (see the `resample` module).
//!
//! **Actions** (fixed ids, 66 in all):
//!
//! | ids | action | text |
//! |---|---|---|
//! | 0..32 | play a card: `suit lane * 8 + rank` (lanes ♣ ♦ ♥ ♠; ranks 7..A) | `play JH` |
//! | 32 | pass (either bidding round) | `pass` |
//! | 33 | take the turn-up's suit as trump | `take` |
//! | 34..38 | name trumps: clubs, diamonds, hearts, spades | `name hearts` |
//! | 38 | exchange the trump 7 for the turn-up | `exchange 7H for KH` |
//! | 39 | wait (exchange window 1) | `wait` |
//! | 40 | keep (exchange window 2) | `keep` |
//! | 41 | commit the declared sequences | `announce 50`, `announce: equal, K: equal` |
//! | 42..66 | declare a run (private): `42 + suit lane * 6 + t`, t = 0 for a top 9 … 5 for a top A | `declare run 9S-KS` |
//!
//! Chance outcomes are card ids `0..32` (`deal JH to 1`, `turn up KH`, `turn bottom 7C`); at
//! the cut, `0` or `1` (`seat 0 deals first`).
//!
//! **Scores in views:** `scores` are the cumulative scores. With `scope = deal`, at the end of
//! the one deal they hold the points that deal added (§11), as after the first deal of a
//! match; 0 each after an annulled deal or a `hang` tie (then `held_over` shows the points
//! set aside) (§12).
//!
//! **Returns** (§12): 0 until terminal. `scope = match`: winner +1, loser −1 (0 each for a
//! draw). `scope = deal`: terminal after one deal; each player gets the points he added in
//! the deal minus the points his opponent added (0 each after an annulled deal or a `hang`
//! tie).
//!
//! **Observation**: see [`layout`].

mod announce;
mod bidding;
mod deal;
mod heuristic;
mod ids;
mod observation;
mod options;
mod play;
mod resample;
pub mod scoring;
pub mod sequences;
mod solve;
mod steps;
mod text;
mod view;

use std::sync::Arc;

use serde::Serialize;

pub use observation::layout;
pub use sequences::{Announcement, Declaration, Reply, Run};
pub use view::{ActionView, BidView, ExchangeView, KlaberjassView, PlayView, RunView, TrickView};

pub(crate) use deal::Target;
pub use ids::{action_card, card_action};
pub(crate) use ids::{pack_cards, unpack_cards};
pub use options::{DealerRotation, EqualSequenceRule, GameTieRule, KlaberjassGame, MakerTieRule};
pub use play::card_value;
pub use scoring::{DealResult, Outcome};

use crate::{
    Action, ActionSet, Card, CardSet, Error, Player, Rng, Scope, SeatValues, State, Suit, Viewer,
};

/// Number of player action ids.
pub const NUM_ACTIONS: usize = DECLARE_BASE as usize + sequences::NUM_ITEMS as usize;
/// Pass (both bidding rounds).
pub const PASS: Action = 32;
/// Take the turn-up's suit.
pub const TAKE: Action = 33;
/// First `name <suit>` id (clubs; then diamonds, hearts, spades).
pub const NAME_BASE: Action = 34;
/// Exchange the trump 7 for the turn-up.
pub const EXCHANGE: Action = 38;
/// Decline in exchange window 1.
pub const WAIT: Action = 39;
/// Decline in exchange window 2.
pub const KEEP: Action = 40;
/// Commit the declared sequences.
pub const ANNOUNCE: Action = 41;
/// First `declare run` id.
pub const DECLARE_BASE: Action = 42;

/// Where a deal stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The cut for the first dealer (chance).
    Cut,
    /// The first 12 cards and the turn-up are dealt (chance).
    Deal,
    /// Bidding round 1: take or pass the turn-up's suit.
    BidTurnUp,
    /// Bidding round 2: name another suit or pass.
    BidOtherSuit,
    /// The 3 + 3 completion and the bottom card (chance).
    SecondDeal,
    /// Dix exchange window 1.
    Exchange1,
    /// Sequence declarations and announcements.
    Announce,
    /// Dix exchange window 2.
    Exchange2,
    /// Trick play.
    Play,
    /// The game is over.
    Over,
}

impl Phase {
    /// All phases in order.
    pub const ALL: [Phase; 10] = [
        Phase::Cut,
        Phase::Deal,
        Phase::BidTurnUp,
        Phase::BidOtherSuit,
        Phase::SecondDeal,
        Phase::Exchange1,
        Phase::Announce,
        Phase::Exchange2,
        Phase::Play,
        Phase::Over,
    ];
}

/// Capacity of the per-deal action log: 20 cards dealt, 4 bids, 4 window actions, 2 × 3
/// declarations + 2 announcements, 18 cards played, the cut.
const LOG_CAP: usize = 64;

/// A Klaberjass state. Small and `Clone`; the hot path does not allocate. Finished deals of a
/// match are kept in a shared, immutable log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KlaberjassState {
    game: KlaberjassGame,
    phase: Phase,
    deal_no: u16,
    dealer: u8,
    to_act: u8,
    /// Cards drawn from the pack in this deal (hands, turn-up, bottom).
    dealt: u8,
    undealt: CardSet,
    /// The hands as card-action-id words (bit `a` = card action `a`), the one copy kept:
    /// legal cards are computed in this form, and [`KlaberjassState::hand`] unpacks them.
    packed: [u64; 2],
    /// The cards each seat was dealt.
    dealt_hands: [CardSet; 2],
    /// The face-up card beside the stock: the turn-up, or the trump 7 after an exchange.
    turn_up: Option<Card>,
    /// The turn-up as dealt.
    first_turn_up: Option<Card>,
    bottom: Option<Card>,
    /// Bids in order (action ids), at most 4.
    bids: [u8; 4],
    num_bids: u8,
    trump: Option<Suit>,
    maker: u8,
    /// The seat that exchanged the trump 7, and in which window (1 or 2).
    exchanged: Option<(u8, u8)>,
    /// Declared items so far per seat (bit mask), and the committed declarations.
    items: [u32; 2],
    declarations: [Declaration; 2],
    announcement: Announcement,
    shown: CardSet,
    seq_points: [u32; 2],
    bella_open: [bool; 2],
    bella: [bool; 2],
    /// The cards of each trick as card action ids, the lead first.
    tricks: [[u8; 2]; 9],
    /// Once a trick is led, the reply's legal cards as card-action-id masks: those of the
    /// first mask held, else of the second, else any card (§10).
    reply: [u64; 2],
    leaders: [u8; 9],
    winners: [u8; 9],
    trick_no: u8,
    trick_len: u8,
    card_points: [u32; 2],
    tricks_won: [u8; 2],
    // Match.
    scores: [u32; 2],
    held_over: u32,
    winner: Option<u8>,
    drawn: bool,
    last_deal: Option<DealResult>,
    log: [u8; LOG_CAP],
    log_len: u8,
    past: Option<Arc<Vec<u8>>>,
}

impl KlaberjassState {
    /// The phase of the current deal.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The dealer (younger player) of the current deal.
    #[must_use]
    pub fn dealer(&self) -> usize {
        usize::from(self.dealer)
    }

    /// The elder (non-dealer) of the current deal: bids, announces and leads first.
    #[must_use]
    pub fn elder(&self) -> usize {
        usize::from(1 - self.dealer)
    }

    /// The cards `seat` holds now.
    #[must_use]
    pub fn hand(&self, seat: usize) -> CardSet {
        unpack_cards(self.packed[seat & 1])
    }

    /// The cards `seat` was dealt in this deal.
    #[must_use]
    pub fn dealt_hand(&self, seat: usize) -> CardSet {
        self.dealt_hands[seat & 1]
    }

    /// The face-up card beside the stock (the turn-up, or the trump 7 after an exchange).
    #[must_use]
    pub fn turn_up(&self) -> Option<Card> {
        self.turn_up
    }

    /// The bottom card of the stock, once turned.
    #[must_use]
    pub fn bottom(&self) -> Option<Card> {
        self.bottom
    }

    /// The trump suit, once chosen.
    #[must_use]
    pub fn trump(&self) -> Option<Suit> {
        self.trump
    }

    /// The maker, once trump is chosen.
    #[must_use]
    pub fn maker(&self) -> Option<usize> {
        self.trump.map(|_| usize::from(self.maker))
    }

    /// Who exchanged the trump 7, and in which window (1 or 2).
    #[must_use]
    pub fn exchanged(&self) -> Option<(usize, u8)> {
        self.exchanged.map(|(s, w)| (usize::from(s), w))
    }

    /// The public announcement record of §8.4.
    #[must_use]
    pub fn announcement(&self) -> Announcement {
        self.announcement
    }

    /// The declaration `seat` committed in this deal (private to that seat unless it won).
    #[must_use]
    pub fn declaration(&self, seat: usize) -> Declaration {
        self.declarations[seat & 1]
    }

    /// Cards of the sequences shown by the sequence winner.
    #[must_use]
    pub fn shown(&self) -> CardSet {
        self.shown
    }

    /// Sequence points scored per seat in this deal.
    #[must_use]
    pub fn sequence_points(&self) -> [u32; 2] {
        self.seq_points
    }

    /// Whether each seat scored Bella in this deal.
    #[must_use]
    pub fn bella(&self) -> [bool; 2] {
        self.bella
    }

    /// Card points taken per seat in this deal.
    #[must_use]
    pub fn card_points(&self) -> [u32; 2] {
        self.card_points
    }

    /// Tricks won per seat in this deal.
    #[must_use]
    pub fn tricks_won(&self) -> [u8; 2] {
        self.tricks_won
    }

    /// Cards `seat` has played in this deal: those it was dealt (with the turn-up for the
    /// trump 7 if it exchanged) that it no longer holds.
    #[must_use]
    pub fn played_by(&self, seat: usize) -> CardSet {
        let mut had = self.dealt_hands[seat & 1];
        if let (Some((p, _)), Some(seven), Some(up)) =
            (self.exchanged, self.trump_seven(), self.first_turn_up)
        {
            if usize::from(p) == seat & 1 {
                had.remove(seven);
                had.insert(up);
            }
        }
        had - self.hand(seat)
    }

    /// Cumulative scores (with `scope = deal`, at the end: the points the deal added).
    #[must_use]
    pub fn scores(&self) -> [u32; 2] {
        self.scores
    }

    /// Points set aside by `maker_tie_rule = hang`, not yet awarded.
    #[must_use]
    pub fn held_over(&self) -> u32 {
        self.held_over
    }

    /// The result of the last finished deal.
    #[must_use]
    pub fn last_deal(&self) -> Option<DealResult> {
        self.last_deal
    }

    /// The winner once the match is over (`None` while playing, for a draw, and in `scope = deal`).
    #[must_use]
    pub fn winner(&self) -> Option<usize> {
        self.winner.map(usize::from)
    }

    /// True if the match ended drawn (`game_tie_rule = draw`).
    #[must_use]
    pub fn is_draw(&self) -> bool {
        self.drawn
    }

    /// Card `k` (0 the lead, 1 the reply) of trick `i`.
    fn trick_card(&self, i: usize, k: usize) -> Card {
        ids::CARD_OF_ACTION[usize::from(self.tricks[i][k]) & 31]
    }

    /// The cards of the current trick so far, the lead first.
    fn trick(&self) -> impl Iterator<Item = Card> + '_ {
        let t = usize::from(self.trick_no.min(8));
        (0..usize::from(self.trick_len)).map(move |k| self.trick_card(t, k))
    }

    fn push_log(&mut self, a: Action) {
        let i = usize::from(self.log_len);
        debug_assert!(i < LOG_CAP);
        if i < LOG_CAP {
            self.log[i] = a as u8;
            self.log_len += 1;
        }
    }

    /// Why `action` is not legal now (assumes it is not).
    fn illegal_reason(&self, action: Action) -> String {
        match self.phase {
            Phase::Cut => {
                "the first dealer is being cut for: the outcomes are 0 and 1 (the seat that deals)"
                    .to_owned()
            }
            Phase::Deal | Phase::SecondDeal => format!(
                "a card is being dealt; the outcomes are the ids of the {} undealt cards",
                self.undealt.len()
            ),
            Phase::Over => "the game is over".to_owned(),
            Phase::BidTurnUp | Phase::BidOtherSuit => self.bid_reason(action),
            Phase::Exchange1 | Phase::Exchange2 => self.window_reason(action),
            Phase::Announce => announce::announce_reason(action).to_owned(),
            Phase::Play => self.play_reason(action),
        }
    }
}

impl State for KlaberjassState {
    type Game = KlaberjassGame;
    type View = KlaberjassView;

    fn game(&self) -> &KlaberjassGame {
        &self.game
    }

    fn current_player(&self) -> Player {
        // Trick play is most steps: a predictable branch before the jump table.
        if self.phase == Phase::Play {
            return Player::Seat(usize::from(self.to_act));
        }
        match self.phase {
            Phase::Cut | Phase::Deal | Phase::SecondDeal => Player::Chance,
            Phase::Over => Player::Terminal,
            _ => Player::Seat(usize::from(self.to_act)),
        }
    }

    #[inline(always)]
    fn is_terminal(&self) -> bool {
        self.phase == Phase::Over
    }

    #[inline(always)]
    fn is_chance_node(&self) -> bool {
        matches!(self.phase, Phase::Cut | Phase::Deal | Phase::SecondDeal)
    }

    /// Trick play is inlined into the caller's loop, so the set stays in registers; the other
    /// phases are out of line.
    #[inline(always)]
    fn legal_actions(&self) -> ActionSet {
        if self.phase == Phase::Play {
            let mut set = ActionSet::EMPTY;
            set.insert_bits(0, self.legal_cards());
            return set;
        }
        const { assert!(NUM_ACTIONS <= 128) };
        let (w0, w1) = self.other_legal_words();
        ActionSet::from_words([w0, w1, 0, 0])
    }

    fn apply_random_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        match self.phase {
            Phase::Cut => {
                let a = rng.below(2) as Action;
                self.apply_unchecked(a);
                Ok(())
            }
            Phase::Deal | Phase::SecondDeal => {
                let k = rng.below(self.undealt.len() as u64) as usize;
                if let Some(card) = self.undealt.nth(k) {
                    self.draw(card);
                }
                Ok(())
            }
            _ => Err(Error::WrongNode(
                "no chance event is pending: a seat is to act or the game is over".into(),
            )),
        }
    }

    fn resolve_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        while self.is_chance_node() {
            match (self.phase, self.dealt) {
                (Phase::Cut, _) => self.apply_unchecked(rng.below(2) as Action),
                (Phase::Deal, 0) => self.deal_batch::<13, _>(rng),
                (Phase::SecondDeal, 13) => self.deal_batch::<7, _>(rng),
                _ => {
                    let k = rng.below(self.undealt.len() as u64) as usize;
                    if let Some(card) = self.undealt.nth(k) {
                        self.draw(card);
                    }
                }
            }
        }
    }

    fn check_action(&self, action: Action) -> Result<(), Error> {
        if self.phase == Phase::Over {
            return Err(Error::GameOver);
        }
        let chance = self.is_chance_node();
        let limit = if chance { 32 } else { NUM_ACTIONS as Action };
        if action >= limit {
            return Err(Error::UnknownAction {
                action: i64::from(action),
                reason: if chance {
                    "chance outcomes are card ids 0..32 (0 or 1 at the cut)".to_owned()
                } else {
                    format!("Klaberjass action ids are 0..{NUM_ACTIONS}")
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

    /// Trick play is inlined into the caller's loop; the other phases are out of line.
    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        debug_assert!(
            self.check_action(action).is_ok(),
            "{:?}",
            self.check_action(action)
        );
        if self.phase == Phase::Play {
            self.push_log(action);
            if action < 32 {
                self.play_card(action);
            }
            return;
        }
        self.apply_other(action);
    }

    fn action_to_string_for(&self, viewer: Viewer, action: Action) -> Option<String> {
        text::action_text(self, viewer, action)
    }

    fn action_visible_to(&self, viewer: Viewer, action: Action) -> bool {
        // Only a declaration item is private: to everybody but its author and the omniscient.
        match (self.phase, viewer) {
            (Phase::Announce, Viewer::Seat(p)) if action >= DECLARE_BASE => {
                p == usize::from(self.to_act)
            }
            (Phase::Announce, Viewer::Spectator) => action < DECLARE_BASE,
            (Phase::Over, _) => false,
            _ => true,
        }
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

    fn view(&self, viewer: Viewer) -> Result<KlaberjassView, Error> {
        view::view(self, viewer)
    }

    fn returns(&self) -> SeatValues {
        let mut r = SeatValues::zeros(2);
        if self.phase != Phase::Over {
            return r;
        }
        for seat in 0..2 {
            r[seat] = match self.game.scope {
                Scope::Match => match self.winner {
                    Some(w) if usize::from(w) == seat => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                },
                Scope::Deal => {
                    let a = self.last_deal.map_or([0, 0], |d| d.added);
                    f64::from(a[seat]) - f64::from(a[1 - seat])
                }
            };
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
        // Declaration items are private; every other logged id is public. Only the
        // announcement phase logs ids at or above DECLARE_BASE.
        let private = |log: &[u8]| {
            log.iter()
                .filter(|&&a| Action::from(a) >= DECLARE_BASE)
                .count()
        };
        let past = self.past.as_deref().map_or(0, |p| p.len() - private(p));
        past + usize::from(self.log_len) - private(&self.log[..usize::from(self.log_len)])
    }

    fn resample<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Self, Error> {
        resample::resample(self, seat, rng)
    }

    fn deal_outcome(&self) -> Option<SeatValues> {
        if self.phase != Phase::Deal || self.dealt != 0 {
            return None;
        }
        let a = self.last_deal?.added;
        let mut r = SeatValues::zeros(2);
        for seat in 0..2 {
            r[seat] = f64::from(a[seat]) - f64::from(a[1 - seat]);
        }
        Some(r)
    }

    fn heuristic_action<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Action, Error> {
        crate::game::expect_turn(self, seat)?;
        Ok(heuristic::action(self, seat, rng))
    }

    fn solvable(&self) -> Result<&dyn crate::solve::Solvable, Error> {
        Ok(self)
    }
}
