//! A match as every store keeps it ([`StoredMatch`]), and the migrations of its format.

use crate::auth::hash_token;

/// The current [`StoredMatch::format`]: 2 = tokens stored as hashes.
pub const STORED_FORMAT: u32 = 2;

/// A match as stored: everything needed to resume it exactly. The state is the engine's
/// versioned bytes (game, options, rules version, full history); chance and bot choices are
/// derived from `seed` and the move number, so no generator state needs storing.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoredMatch {
    /// Layout version of this record ([`STORED_FORMAT`]).
    #[prost(uint32, tag = "1")]
    pub format: u32,
    #[prost(string, tag = "2")]
    pub id: String,
    #[prost(bytes = "vec", tag = "3")]
    pub state: Vec<u8>,
    #[prost(uint64, tag = "4")]
    pub seed: u64,
    /// Who plays each seat: [`Seat::code`](crate::domain::Seat::code) per seat.
    #[prost(int32, repeated, tag = "5")]
    pub seats: Vec<i32>,
    /// Hash of the token per seat ([`crate::auth::hash_token`]); empty for bot seats. Format
    /// 1 stored the tokens themselves; they are hashed when such a store is opened.
    #[prost(string, repeated, tag = "6")]
    pub seat_tokens: Vec<String>,
    #[prost(string, tag = "7")]
    pub owner_token: String,
    #[prost(string, tag = "8")]
    pub spectator_token: String,
    /// [`MatchStatus::code`](crate::domain::MatchStatus::code).
    #[prost(int32, tag = "9")]
    pub status: i32,
    #[prost(uint32, optional, tag = "10")]
    pub resigned_seat: Option<u32>,
    /// When the match ended (Unix milliseconds), for retention; 0 while it is active.
    #[prost(uint64, tag = "11")]
    pub ended_at_ms: u64,
    /// Iterations per move of IS-MCTS bot seats (0: the default).
    #[prost(uint32, tag = "12")]
    pub ismcts_iterations: u32,
    /// The bot's name per seat of kind [`BotSeat::Named`](crate::domain::BotSeat::Named)
    /// (`rollout:64`, `policy:jass`); empty for the other seats (and every seat of a match
    /// stored before seats could be any bot: the list is then empty).
    #[prost(string, repeated, tag = "13")]
    pub bot_names: Vec<String>,
}

impl StoredMatch {
    /// Brings a record of an earlier format to [`STORED_FORMAT`]; returns whether it changed
    /// (the store then writes it back). Format 1 held the tokens in clear: they are hashed.
    pub fn migrate(&mut self) -> bool {
        if self.format != 1 {
            return false;
        }
        for t in &mut self.seat_tokens {
            if !t.is_empty() {
                *t = hash_token(t);
            }
        }
        self.owner_token = hash_token(&self.owner_token);
        self.spectator_token = hash_token(&self.spectator_token);
        self.format = STORED_FORMAT;
        true
    }
}
