//! The state before the first deal, the deal (§5) and the Dix exchange windows (§7): who
//! receives each card drawn, and both players' turns in each window. The bidding between the
//! two dealing stages: `bidding.rs`.

use super::ids::PACK;
use super::{
    Announcement, Declaration, EXCHANGE, KlaberjassGame, KlaberjassState, LOG_CAP, Phase,
    action_card, card_action, pack_cards, unpack_cards,
};
use crate::{Action, Card, CardSet, Rank, Rng};

/// Who receives the `k`-th card drawn in a deal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// Into this seat's hand.
    Seat(usize),
    /// Face up beside the stock (§5.2).
    TurnUp,
    /// The bottom card, turned face up on the stock (§5.5).
    Bottom,
}

impl KlaberjassState {
    /// The state before the first deal (or the cut for the first dealer).
    pub(super) fn new(game: KlaberjassGame) -> KlaberjassState {
        KlaberjassState {
            game,
            phase: if game.first_dealer.is_some() {
                Phase::Deal
            } else {
                Phase::Cut
            },
            deal_no: 0,
            dealer: game.first_dealer.unwrap_or(0),
            to_act: 0,
            dealt: 0,
            undealt: PACK,
            packed: [0; 2],
            dealt_hands: [CardSet::EMPTY; 2],
            turn_up: None,
            first_turn_up: None,
            bottom: None,
            bids: [0; 4],
            num_bids: 0,
            trump: None,
            maker: 0,
            exchanged: None,
            items: [0; 2],
            declarations: [Declaration::default(); 2],
            announcement: Announcement::default(),
            shown: CardSet::EMPTY,
            seq_points: [0; 2],
            bella_open: [false; 2],
            bella: [false; 2],
            tricks: [[0; 2]; 9],
            reply: [0; 2],
            leaders: [0; 9],
            winners: [0; 9],
            trick_no: 0,
            trick_len: 0,
            card_points: [0; 2],
            tricks_won: [0; 2],
            scores: [0; 2],
            held_over: 0,
            winner: None,
            drawn: false,
            last_deal: None,
            log: [0; LOG_CAP],
            log_len: 0,
            past: None,
        }
    }

    /// Where the `k`-th card drawn in a deal goes (§5).
    pub(crate) fn target(&self, k: u8) -> Target {
        let elder = usize::from(1 - self.dealer);
        let dealer = usize::from(self.dealer);
        match k {
            0..12 => Target::Seat(if (k / 3) % 2 == 0 { elder } else { dealer }),
            12 => Target::TurnUp,
            13..16 => Target::Seat(elder),
            16..19 => Target::Seat(dealer),
            _ => Target::Bottom,
        }
    }

    /// One chance outcome of the deal: `card` goes where the next card drawn goes.
    pub(super) fn draw(&mut self, card: Card) {
        self.undealt.remove(card);
        match self.target(self.dealt) {
            Target::Seat(s) => {
                self.packed[s] |= 1 << card_action(card);
                self.dealt_hands[s].insert(card);
            }
            Target::TurnUp => {
                self.turn_up = Some(card);
                self.first_turn_up = Some(card);
            }
            Target::Bottom => self.bottom = Some(card),
        }
        self.dealt += 1;
        self.push_log(card_action(card));
        if self.dealt == 13 {
            self.phase = Phase::BidTurnUp;
            self.to_act = 1 - self.dealer;
        } else if self.dealt == 20 {
            self.after_second_deal();
        }
    }

    /// A whole dealing stage at once (13 cards from the full pack, or the 7 of the second
    /// deal), logged as the outcomes of drawing them one by one. Each card is uniform among
    /// the undealt ones: a card id is 5 random bits (32 cards), redrawn if already dealt.
    /// The cards go out in packets of three (elder, dealer, …) and a last single card.
    /// `N` is a constant so that the log's copy is a few moves, not a call.
    pub(super) fn deal_batch<const N: usize, R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let n = N;
        let taken = !pack_cards(self.undealt) as u32;
        let ids = draw_ids(taken, n, rng);
        let start = usize::from(self.log_len);
        self.log[start..start + N].copy_from_slice(&ids[..N]);
        let bits = |packets: &[u8]| packets.iter().fold(0u32, |m, &id| m | 1 << (id & 31));
        let packets = if n == 13 {
            [
                bits(&ids[0..3]) | bits(&ids[6..9]),
                bits(&ids[3..6]) | bits(&ids[9..12]),
            ]
        } else {
            [bits(&ids[0..3]), bits(&ids[3..6])]
        };
        let last = ids[n - 1];
        let elder = usize::from(1 - self.dealer);
        let dealer = usize::from(self.dealer);
        let (e, d) = (u64::from(packets[0]), u64::from(packets[1]));
        self.packed[elder] |= e;
        self.packed[dealer] |= d;
        self.dealt_hands[elder] |= unpack_cards(e);
        self.dealt_hands[dealer] |= unpack_cards(d);
        self.undealt = unpack_cards(u64::from(
            !(taken | packets[0] | packets[1] | 1 << (last & 31)),
        ));
        let last_card = action_card(Action::from(last));
        self.log_len += n as u8;
        self.dealt += n as u8;
        if n == 13 {
            self.turn_up = last_card;
            self.first_turn_up = last_card;
            self.phase = Phase::BidTurnUp;
            self.to_act = 1 - self.dealer;
        } else {
            self.bottom = last_card;
            self.after_second_deal();
        }
    }

    /// True if the exchange windows are held in this deal (§7).
    pub(super) fn windows_held(&self) -> bool {
        match (self.trump, self.first_turn_up) {
            (Some(t), Some(up)) => up.suit() == t && up.rank() != Rank::Seven,
            _ => false,
        }
    }

    pub(super) fn trump_seven(&self) -> Option<Card> {
        self.trump.map(|t| Card::new(Rank::Seven, t))
    }

    pub(super) fn after_second_deal(&mut self) {
        self.to_act = 1 - self.dealer;
        self.phase = if self.windows_held() {
            Phase::Exchange1
        } else {
            Phase::Announce
        };
    }

    pub(super) fn window_action(&mut self, action: Action) {
        let seat = usize::from(self.to_act);
        if action == EXCHANGE {
            if let (Some(seven), Some(up)) = (self.trump_seven(), self.turn_up) {
                self.packed[seat] =
                    self.packed[seat] & !(1 << card_action(seven)) | 1 << card_action(up);
                self.turn_up = Some(seven);
                let window = if self.phase == Phase::Exchange1 { 1 } else { 2 };
                self.exchanged = Some((self.to_act, window));
            }
        }
        if self.to_act == 1 - self.dealer {
            self.to_act = self.dealer;
            return;
        }
        self.to_act = 1 - self.dealer;
        if self.phase == Phase::Exchange1 {
            self.phase = Phase::Announce;
        } else {
            self.start_play();
        }
    }

    /// Why an action in an exchange window is not legal now (assumes it is not).
    pub(super) fn window_reason(&self, action: Action) -> String {
        if action == EXCHANGE {
            if self.exchanged.is_some() {
                "the trump 7 has already been exchanged (at most once, §7)".to_owned()
            } else {
                format!("seat {} does not hold the trump 7 (§7)", self.to_act)
            }
        } else if self.phase == Phase::Exchange1 {
            "exchange window 1: `wait` or, holding the trump 7, `exchange` (§7)".to_owned()
        } else {
            "exchange window 2: `keep` or, holding the trump 7, `exchange` (§7)".to_owned()
        }
    }
}

/// `n` (at most 13) card ids not in `taken`, drawn 5 random bits at a time from generator
/// words (12 ids a word, the last 4 bits unused), an id already taken drawn again; the
/// rest of the last word is dropped. Returns the ids in order in the first `n` places (the
/// places after them hold ids of the dropped rest).
/// Branch-free within a word (whether an id is taken is unpredictable, about one draw in
/// three), and each id only sets its bit in the set seen so far: whether it was fresh is
/// read off that set, not fed back into it, so one draw waits on the last only for one `or`.
/// The rest of the last word is marked seen too, which is why the set is not returned.
#[inline]
fn draw_ids<R: Rng + ?Sized>(taken: u32, n: usize, rng: &mut R) -> [u8; 32] {
    debug_assert!(n <= 13);
    let mut ids = [0u8; 32];
    let (mut seen, mut count) = (taken, 0usize);
    while count < n {
        let word = rng.next_u64();
        for k in 0..12 {
            let id = (word >> (5 * k)) as u32 & 31;
            let now = seen | 1 << id;
            // Below 32: `count` is below `n` (at most 13) when a word starts.
            ids[count & 31] = id as u8;
            count += usize::from(now != seen);
            seen = now;
        }
    }
    ids
}
