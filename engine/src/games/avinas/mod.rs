//! Avinas ("Rams"): the Lithuanian four-player partnership game. 32 cards, the four Queens
//! and four Jacks always trumps, a deal that exposes cards and decides between a *sevens
//! game* (scored in rams) and a *bidding game* (scored in pips), to 12 pips.
//!
//! **Rules source:** `shared/rules/avinas.md` (after seed `002`, pagat.com "Avinas" and
//! D. Parlett). Section numbers below refer to that file.
//!
//! **Engine decisions and rulings** (the rules file's own \[decision\]s are followed as
//! written; these are the engine's forms of them):
//! * Seats `0..4` clockwise, partners {0, 2} and {1, 3}; team `t` is the seats `t` and `t + 2`.
//!   The first dealer is one chance event (outcomes `0..4`, uniform) unless option
//!   `first_dealer` names a seat; then the deal passes to seat `+1` after every deal,
//!   all-pass deals included (§4).
//! * The deal is 32 explicit chance outcomes, one card each, in the order of §5: two rounds
//!   of packets of four, from the dealer's left, the dealer last. The last card of each packet
//!   (the 4th and 8th card of a seat) is exposed by §5.2: always for the dealer's opponents,
//!   for the dealer's side only if it is a Seven; a face-down one is seen by its owner and the
//!   dealer. Everybody therefore knows that a dealer-side face-down card is not a Seven.
//! * Sevens game (§6): the declarer decides `knock` or `pass` first, then (if he passed) his
//!   partner; after a knock the defender to the declarer's left, then the other defender,
//!   decides `double` or `pass`. The declarer leads trick 1.
//! * Bidding game (§7): one round from the dealer's left; `bid n` (n = the trump count of some
//!   suit, above every earlier bid) or `pass`. All four pass: no score, the next dealer deals
//!   (with `scope = deal` the state is terminal with returns 0). The opening lead is one
//!   action: a plain-rank card of a suit whose count equals the bid (`play 10H`: trump ♥), or
//!   a Queen or Jack together with the named suit (`play QS trump hearts`).
//! * Early stop (§7.4): after each of tricks 1–7, before the next lead, the declarer chooses
//!   `continue` or `stop` (bidding game with `early_stop_allowed`; sevens game without a knock
//!   with `early_stop_in_sevens_game`). Unplayed cards score for nobody and are never shown.
//! * Trick 2 (§8): a leader without a trump may lead any card face up or face down
//!   (`play 8H face down`); the others see only "a card face down" until the trick is complete,
//!   then the card is shown, and the record of trick 2 says for the rest of the deal that its
//!   lead was face down (in every view, and as `(face down)` in the observation string; §13).
//! * `known` (views and the observation's `known` slice) lists the cards a viewer knows to
//!   have been dealt to another seat and has not seen played: face-up 4th/8th cards, and for
//!   the dealer his partner's face-down ones. A face-up card may also be led face down at
//!   trick 2; while that lead is pending, the card stays in the others' `known` (removing it
//!   would reveal which card was led), so a listed card may be lying face down in the current
//!   trick \[ruling, §13\].
//! * A knock stops play at the first trick the defenders win (§6.5); an early stop or a
//!   stopped knock leaves `D + F < 120`.
//! * Finished deals of a match stay in the history as played; hands never shown in them
//!   (all-pass deals, early stops) are not part of any view or observation.
//! * Options: `pip_limit` is an integer from 1 to 100 \[engine bound\]; `first_dealer` is
//!   `random` or a seat, given as a name (`"2"`) or an integer (`2`).
//!
//! **Actions** (fixed ids, [`NUM_ACTIONS`] = 109):
//!
//! | ids | action | text |
//! |---|---|---|
//! | 0..32 | play a card face up: `suit lane * 8 + rank - 7` (lanes ♣ ♦ ♥ ♠; ranks 7 8 9 10 J Q K A) | `play QS` |
//! | 32..64 | lead a card face down at trick 2 (`32 +` card id) | `play 8H face down` |
//! | 64..96 | opening lead of a bidding game with a Q or J, naming trump: `64 + (lane * 2 + [Q]) * 4 + named lane` | `play QS trump hearts` |
//! | 96..104 | bid 1..8 | `bid 3` |
//! | 104 | pass (bidding, knock, double) | `pass` |
//! | 105 | knock (all-tricks announcement) | `knock` |
//! | 106 | double (defenders' knock back) | `double` |
//! | 107 | continue (after a trick, when a stop is allowed) | `continue` |
//! | 108 | stop (early stop) | `stop` |
//!
//! Chance outcomes: `0..4` the first dealer (`first dealer 2`), then card ids `0..32` for the
//! card dealt next (`deal 7H to 2 face up`; other seats read `deal a card to 2` or
//! `deal a card to 2 face down`).
//!
//! **Scores in views:** `rams` and `pips` are the match's scores. With `scope = deal`, at the
//! end of the one deal they hold what that deal gave (nothing can be cancelled in a first
//! deal), as after the first deal of a match; 0 each after an all-pass deal (§12).
//!
//! **Returns** (§12): 0 until terminal. `scope = match`: −1 for each seat of the losing side,
//! +1 for the other (the cat flag does not change them). `scope = deal`: terminal after one
//! deal; with `n` = the rams or pips given in that deal before any cancellation, −n for each
//! seat of the side they are given against and +n for the other side (0 after an all-pass deal).
//!
//! **Observation:** see [`layout`].

mod bidding;
mod deal;
mod heuristic;
mod ids;
mod observation;
mod options;
mod play;
pub use play::winning_position;
mod resample;
pub mod scoring;
mod solve;
mod steps;
mod text;
mod trumps;
mod view;

use std::sync::Arc;

use serde::Serialize;

pub use ids::{action_card, card_action, to_cards, to_ids};
pub use observation::layout;
pub use options::{AllTricksLoss, AvinasGame, SchwarzBasis};
pub use scoring::{DealResult, bidding_pips, give_rams, loser, sevens_rams};
pub use view::{ActionView, AvinasView, BidView, ExposedView, PlayView, TrickView};

use crate::{
    Action, ActionSet, CardSet, Error, Player, Rng, Scope, SeatValues, State, Suit, Viewer,
};

/// Number of player action ids.
pub const NUM_ACTIONS: usize = 109;
/// First face-down lead action id.
pub const FACE_DOWN_BASE: Action = 32;
/// First named opening lead (Queen or Jack plus a trump suit) action id.
pub const NAMED_BASE: Action = 64;
/// The action `bid 1`; `bid n` is `BID_BASE + n - 1`.
pub const BID_BASE: Action = 96;
/// `pass`.
pub const PASS: Action = 104;
/// `knock`.
pub const KNOCK: Action = 105;
/// `double`.
pub const DOUBLE: Action = 106;
/// `continue`.
pub const CONTINUE: Action = 107;
/// `stop`.
pub const STOP: Action = 108;

/// Which kind of deal is played (§5.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A Seven was dealt face up: declarer and trump from the last one, scored in rams.
    Sevens,
    /// No Seven face up: bidding by trump count, scored in pips.
    Bidding,
}

/// Where a match stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The first dealer is drawn (chance).
    ChooseDealer,
    /// Cards are being dealt (chance).
    Deal,
    /// Sevens game: the declaring side may knock.
    Knock,
    /// Sevens game after a knock: the defenders may double.
    Double,
    /// Bidding game: the auction.
    Bid,
    /// Trick play.
    Play,
    /// Between tricks: the declarer continues or stops.
    StopChoice,
    /// The game is over.
    Over,
}

/// Capacity of the per-deal action log: the first dealer, 32 cards dealt, 4 auction or
/// knock/double actions, 32 cards played, 7 continue/stop decisions.
const LOG_CAP: usize = 80;

/// Bid slot values: 0 = not yet asked, 1..=8 = a bid, [`PASSED`] = passed.
const PASSED: u8 = 9;

/// An Avinas state: small and `Clone`; `legal_actions`, `apply` and `write_observation` do
/// not allocate. Hands are kept as 32-bit card-id words (bit `id` = card id). Finished deals
/// of a match are kept in a shared, immutable log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AvinasState {
    game: AvinasGame,
    phase: Phase,
    deal_no: u16,
    dealer: u8,
    to_act: u8,
    /// Cards dealt so far in this deal.
    dealt: u8,
    /// Index in `log` of the first card dealt in this deal.
    deal_start: u8,
    hands: [u32; 4],
    dealt_hands: [u32; 4],
    /// Face-up cards of the deal (public), played or not.
    exposed: u32,
    /// Face-down 4th/8th cards of the dealer's side (seen by their owner and the dealer).
    hidden_special: u32,
    kind: Option<Kind>,
    declarer: u8,
    /// Trump lane 0..4; 4 = not fixed yet.
    trump: u8,
    /// The trump cards as card ids (0 until trump is fixed).
    tmask: u32,
    /// Face-up Sevens `b`.
    base: u8,
    knock: Option<u8>,
    double: Option<u8>,
    bids: [u8; 4],
    high_bid: u8,
    // Play.
    tricks: [[u8; 4]; 8],
    leaders: [u8; 8],
    winners: [u8; 8],
    trick_no: u8,
    trick_len: u8,
    /// Effective suit mask of the card led to the current trick.
    led_mask: u32,
    /// In a decision phase (knock, double, bid, continue or stop), the legal actions as ids
    /// `64..128` (bit `id - 64`), set when the phase is entered; 0 in any other phase.
    menu: u64,
    /// The declarer may stop after a trick in this deal (fixed when play starts).
    stop_allowed: bool,
    /// The lead to trick 2 was face down: set at that lead and kept for the rest of the deal.
    face_down: bool,
    card_points: [u32; 2],
    tricks_won: [u8; 2],
    stopped: bool,
    knock_failed: bool,
    // Match.
    rams: [u32; 2],
    pips: [u32; 2],
    loser: Option<u8>,
    cat: bool,
    last_deal: Option<DealResult>,
    log: [u8; LOG_CAP],
    /// A word, not a byte: stored at every action and reloaded at the next, and a compiler
    /// may widen a byte field's load over its neighbours, stored byte by byte just before,
    /// which stalls store-to-load forwarding.
    log_len: u32,
    past: Option<Arc<Vec<u8>>>,
}

impl AvinasState {
    fn new(game: AvinasGame) -> AvinasState {
        AvinasState {
            game,
            phase: if game.first_dealer.is_some() {
                Phase::Deal
            } else {
                Phase::ChooseDealer
            },
            deal_no: 0,
            dealer: game.first_dealer.unwrap_or(0),
            to_act: 0,
            dealt: 0,
            deal_start: 0,
            hands: [0; 4],
            dealt_hands: [0; 4],
            exposed: 0,
            hidden_special: 0,
            kind: None,
            declarer: 0,
            trump: 4,
            tmask: 0,
            base: 0,
            knock: None,
            double: None,
            bids: [0; 4],
            high_bid: 0,
            tricks: [[0; 4]; 8],
            leaders: [0; 8],
            winners: [0; 8],
            trick_no: 0,
            trick_len: 0,
            led_mask: 0,
            menu: 0,
            stop_allowed: false,
            face_down: false,
            card_points: [0; 2],
            tricks_won: [0; 2],
            stopped: false,
            knock_failed: false,
            rams: [0; 2],
            pips: [0; 2],
            loser: None,
            cat: false,
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

    /// The dealer of the current deal.
    #[must_use]
    pub fn dealer(&self) -> usize {
        usize::from(self.dealer)
    }

    /// The kind of the current deal, once dealt.
    #[must_use]
    pub fn kind(&self) -> Option<Kind> {
        self.kind
    }

    /// The declarer, once known (sevens game: after the deal; bidding game: after the auction).
    #[must_use]
    pub fn declarer(&self) -> Option<usize> {
        let known = match self.kind {
            Some(Kind::Sevens) => true,
            Some(Kind::Bidding) => self.high_bid > 0 && self.bids.iter().all(|&b| b != 0),
            None => false,
        };
        known.then_some(usize::from(self.declarer))
    }

    /// Trump, once fixed.
    #[must_use]
    pub fn trump(&self) -> Option<Suit> {
        Suit::from_index(self.trump)
    }

    /// The number of face-up Sevens `b` of this deal.
    #[must_use]
    pub fn base(&self) -> u32 {
        u32::from(self.base)
    }

    /// The seat that knocked, if any.
    #[must_use]
    pub fn knocked_by(&self) -> Option<usize> {
        self.knock.map(usize::from)
    }

    /// The defender that doubled, if any.
    #[must_use]
    pub fn doubled_by(&self) -> Option<usize> {
        self.double.map(usize::from)
    }

    /// Each seat's bid: `None` not asked yet, `Some(0)` passed, `Some(n)` bid `n`.
    #[must_use]
    pub fn bids(&self) -> [Option<u32>; 4] {
        self.bids.map(|b| match b {
            0 => None,
            PASSED => Some(0),
            n => Some(u32::from(n)),
        })
    }

    /// The cards `seat` holds now.
    #[must_use]
    pub fn hand(&self, seat: usize) -> CardSet {
        to_cards(self.hands[seat & 3])
    }

    /// The cards `seat` was dealt in this deal (so far).
    #[must_use]
    pub fn dealt_hand(&self, seat: usize) -> CardSet {
        to_cards(self.dealt_hands[seat & 3])
    }

    /// The cards dealt face up in this deal (public), played or not.
    #[must_use]
    pub fn exposed(&self) -> CardSet {
        to_cards(self.exposed)
    }

    /// The dealer's side's face-down 4th and 8th cards (seen by their owner and the dealer).
    #[must_use]
    pub fn hidden_specials(&self) -> CardSet {
        to_cards(self.hidden_special)
    }

    /// Cards `seat` has played in this deal (a face-down lead included).
    #[must_use]
    pub fn played(&self, seat: usize) -> CardSet {
        to_cards(self.played_ids(seat & 3))
    }

    /// Card points taken per team in this deal.
    #[must_use]
    pub fn card_points(&self) -> [u32; 2] {
        self.card_points
    }

    /// Tricks won per team in this deal.
    #[must_use]
    pub fn tricks_won(&self) -> [u32; 2] {
        self.tricks_won.map(u32::from)
    }

    /// Number of completed tricks in this deal.
    #[must_use]
    pub fn tricks_done(&self) -> usize {
        usize::from(self.trick_no)
    }

    /// True if the declarer stopped play early in this deal.
    #[must_use]
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Rams per team.
    #[must_use]
    pub fn rams(&self) -> [u32; 2] {
        self.rams
    }

    /// Pips per team.
    #[must_use]
    pub fn pips(&self) -> [u32; 2] {
        self.pips
    }

    /// The losing team, once the match is over (`None` with `scope = deal`).
    #[must_use]
    pub fn loser(&self) -> Option<usize> {
        self.loser.map(usize::from)
    }

    /// True if the loser is the cat (§12 rule 1).
    #[must_use]
    pub fn cat(&self) -> bool {
        self.cat
    }

    /// The result of the last finished deal.
    #[must_use]
    pub fn last_deal(&self) -> Option<DealResult> {
        self.last_deal
    }

    /// True while a face-down lead lies in the current trick.
    #[must_use]
    pub fn face_down_pending(&self) -> bool {
        self.face_down && self.trick_no == 1 && self.trick_len > 0 && self.phase == Phase::Play
    }

    /// The card ids `seat` has played in this deal: those dealt to it and no longer held
    /// (cards leave a hand only by being played; not kept as a field, which the play loop
    /// would update at every card).
    pub(super) fn played_ids(&self, seat: usize) -> u32 {
        self.dealt_hands[seat] & !self.hands[seat]
    }

    fn push_log(&mut self, a: Action) {
        let i = self.log_len as usize;
        debug_assert!(i < LOG_CAP);
        if i < LOG_CAP {
            self.log[i] = a as u8;
            self.log_len += 1;
        }
    }

    /// Why `action` is not legal now (assumes it is not).
    fn illegal_reason(&self, action: Action) -> String {
        match self.phase {
            Phase::ChooseDealer => {
                "the first dealer is being drawn: outcomes are seats 0..4".into()
            }
            Phase::Deal => format!(
                "a card is being dealt; the outcomes are the ids of the {} undealt cards",
                32 - self.dealt
            ),
            Phase::Over => "the game is over".into(),
            Phase::Knock => "the declaring side may only `knock` or `pass` now (§6.3)".into(),
            Phase::Double => {
                "after a knock the defenders may only `double` or `pass` now (§6.4)".into()
            }
            Phase::StopChoice => {
                "between tricks the declarer may only `continue` or `stop` (§7.4)".into()
            }
            Phase::Bid => bidding::bid_reason(self, action),
            Phase::Play => play::play_reason(self, action),
        }
    }
}

impl State for AvinasState {
    type Game = AvinasGame;
    type View = AvinasView;

    fn game(&self) -> &AvinasGame {
        &self.game
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::ChooseDealer | Phase::Deal => Player::Chance,
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
        matches!(self.phase, Phase::ChooseDealer | Phase::Deal)
    }

    /// Trick play but for the leads of tricks 1 and 2 (the opening lead, the face-down lead)
    /// is inlined into the caller's loop, so the set stays in registers; the rest is out of
    /// line.
    #[inline(always)]
    fn legal_actions(&self) -> ActionSet {
        let mut set = ActionSet::EMPTY;
        if self.phase == Phase::Play && (self.trick_len != 0 || self.trick_no >= 2) {
            set.insert_bits(0, u64::from(self.legal_cards()));
            return set;
        }
        debug_assert_eq!(
            self.menu != 0,
            matches!(
                self.phase,
                Phase::Knock | Phase::Double | Phase::Bid | Phase::StopChoice
            )
        );
        if self.menu != 0 {
            // A decision: its set was fixed when the phase was entered (no dispatch here).
            set.insert_bits(64, self.menu);
            debug_assert_eq!(set, self.other_legal_actions());
            return set;
        }
        const { assert!(NUM_ACTIONS <= 128) };
        let (w0, w1) = self.other_legal_words();
        ActionSet::from_words([w0, w1, 0, 0])
    }

    fn apply_random_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        match self.phase {
            Phase::ChooseDealer => {
                let d = rng.below(4) as u8;
                self.choose_dealer(d);
                Ok(())
            }
            Phase::Deal => {
                let undealt = self.undealt();
                let k = rng.below(u64::from(undealt.count_ones())) as u32;
                let id = crate::card_set::select_in_word(u64::from(undealt), k);
                self.deal_card(id as u8);
                Ok(())
            }
            _ => Err(Error::WrongNode(
                "no chance event is pending: a seat is to act or the game is over".into(),
            )),
        }
    }

    fn resolve_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        loop {
            match self.phase {
                Phase::ChooseDealer => {
                    let d = rng.below(4) as u8;
                    self.choose_dealer(d);
                }
                Phase::Deal if self.dealt == 0 => self.deal_all(rng),
                Phase::Deal => {
                    let _ = self.apply_random_chance(rng);
                }
                _ => return,
            }
        }
    }

    fn check_action(&self, action: Action) -> Result<(), Error> {
        if self.phase == Phase::Over {
            return Err(Error::GameOver);
        }
        let limit = match self.phase {
            Phase::ChooseDealer => 4,
            Phase::Deal => 32,
            _ => NUM_ACTIONS as Action,
        };
        if action >= limit {
            return Err(Error::UnknownAction {
                action: i64::from(action),
                reason: match self.phase {
                    Phase::ChooseDealer => "first-dealer outcomes are seats 0..4".to_owned(),
                    Phase::Deal => "deal outcomes are card ids 0..32".to_owned(),
                    _ => format!("Avinas action ids are 0..{NUM_ACTIONS}"),
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

    /// Trick play is inlined into the caller's loop; the decisions and the other phases are
    /// out of line.
    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        debug_assert!(
            self.check_action(action).is_ok(),
            "{:?}",
            self.check_action(action)
        );
        if self.phase == Phase::Play {
            self.push_log(action);
            self.play_action(action);
            return;
        }
        if self.menu != 0 {
            self.decide(action);
            return;
        }
        self.apply_other(action);
    }

    fn action_to_string_for(&self, viewer: Viewer, action: Action) -> Option<String> {
        text::action_text(self, viewer, action)
    }

    fn string_to_action(&self, text: &str) -> Result<Action, Error> {
        text::parse_action(text)
    }

    fn write_observation(&self, seat: usize, out: &mut [f32]) -> Result<(), Error> {
        observation::write(self, seat, out)
    }

    fn observation_string(&self, seat: usize) -> Result<String, Error> {
        text::observation_string(self, seat)
    }

    fn view(&self, viewer: Viewer) -> Result<AvinasView, Error> {
        view::view(self, viewer)
    }

    fn returns(&self) -> SeatValues {
        let mut r = SeatValues::zeros(4);
        if self.phase != Phase::Over {
            return r;
        }
        for seat in 0..4 {
            let team = seat & 1;
            r[seat] = match self.game.scope {
                Scope::Match => match self.loser {
                    Some(l) if usize::from(l) == team => -1.0,
                    Some(_) => 1.0,
                    None => 0.0,
                },
                Scope::Deal => self.last_deal.map_or(0.0, |d| d.value_for(team)),
            };
        }
        r
    }

    fn history(&self) -> Vec<Action> {
        let past = self.past.as_deref().map_or(&[][..], |p| &p[..]);
        past.iter()
            .chain(&self.log[..self.log_len as usize])
            .map(|&a| Action::from(a))
            .collect()
    }

    fn move_number(&self) -> usize {
        self.past.as_ref().map_or(0, |p| p.len()) + self.log_len as usize
    }

    fn public_move_number(&self) -> usize {
        // Every action and outcome is a public event (its text may hide the card).
        self.move_number()
    }

    fn resample<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Self, Error> {
        resample::resample(self, seat, rng)
    }

    fn deal_outcome(&self) -> Option<SeatValues> {
        if self.phase != Phase::Deal || self.dealt != 0 {
            return None;
        }
        let d = self.last_deal?;
        let mut r = SeatValues::zeros(4);
        for seat in 0..4 {
            r[seat] = d.value_for(seat & 1);
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
