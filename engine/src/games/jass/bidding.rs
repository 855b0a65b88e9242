//! The choice of the mode (§6), this game's bidding: the chooser's actions, schieben (the
//! choice pushed to the partner, and with `schieben_back` back again) and the mode chosen,
//! which fixes the trump and the tables trick play reads.

use super::{JassState, MODE_BASE, Mode, Phase, SCHIEBEN};
use crate::{Action, ActionSet};

impl JassState {
    /// The legal actions of the chooser: the six modes, and schieben while it is allowed.
    pub(super) fn mode_actions(&self, set: &mut ActionSet) {
        set.insert_bits(MODE_BASE, 0b11_1111);
        if self.pushes == 0 || (self.pushes == 1 && self.game.schieben_back) {
            set.insert(SCHIEBEN);
        }
    }

    /// Schieben (the partner chooses) or the choice of a mode.
    pub(super) fn apply_mode_action(&mut self, action: Action) {
        if action == SCHIEBEN {
            self.pushes += 1;
            self.to_act = (self.to_act + 2) % 4;
        } else if let Some(&mode) = Mode::ALL.get((action - MODE_BASE) as usize) {
            self.choose_mode(mode);
        }
    }

    fn choose_mode(&mut self, mode: Mode) {
        self.mode = Some(mode);
        self.mode_ix = super::play::mode_index(mode) as u8;
        self.points_ix = match mode {
            Mode::Undenufe if self.game.undenufe_six_is_eleven => 6,
            _ => self.mode_ix,
        };
        self.trump_lane = mode.trump().map_or(0, |t| 0x1FF << (9 * t as u64));
        self.chooser = self.to_act;
        self.phase = Phase::Play;
        self.to_act = self.forehand;
        self.leaders[0] = self.forehand;
        self.open_stoeck(mode);
    }

    /// Why `action` is not legal while the mode is chosen (assumes it is not).
    pub(super) fn mode_reason(action: Action) -> String {
        if action == SCHIEBEN {
            "the choice was already pushed; this player must choose a mode".to_owned()
        } else {
            "the mode must be chosen now (a trump suit, obenabe or undenufe, or schieben)"
                .to_owned()
        }
    }
}
