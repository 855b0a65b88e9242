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
    /// Notices about seats so far (timed out, away, back): they count in the numbering of
    /// the match's events (`--events`), which the history gives for everything else.
    #[prost(uint64, tag = "16")]
    pub notices: u64,
    /// The human seats' clock and who is away ([`TableRecord`]); absent for a match without
    /// a time control whose seats were never away (as every match stored before clocks).
    #[prost(message, optional, tag = "14")]
    pub table: Option<TableRecord>,
}

/// A match's time control and table as stored: fixed facts (the control, the stand-in
/// bot), then the changing part (the running clock, the banks, timeouts in a row, who is
/// away, and the moves bots played for human seats).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableRecord {
    /// The match has a time control (the next five fields).
    #[prost(bool, tag = "1")]
    pub clocked: bool,
    #[prost(uint64, tag = "2")]
    pub move_ms: u64,
    #[prost(uint64, tag = "3")]
    pub bank_ms: u64,
    #[prost(uint64, tag = "4")]
    pub increment_ms: u64,
    /// 1 bot, 2 resign, 3 abort (frozen codes).
    #[prost(int32, tag = "5")]
    pub on_timeout: i32,
    #[prost(uint32, tag = "6")]
    pub away_after: u32,
    /// The stand-in bot's name (timeouts and away seats).
    #[prost(string, tag = "7")]
    pub stand_in: String,
    /// The seat whose move the clock times, and its deadline (Unix ms).
    #[prost(uint32, optional, tag = "8")]
    pub clock_seat: Option<u32>,
    #[prost(uint64, optional, tag = "9")]
    pub deadline_ms: Option<u64>,
    /// When the timed seat's turn started (Unix ms).
    #[prost(uint64, tag = "10")]
    pub turn_started_ms: u64,
    /// Each seat's bank at the start of its current or last turn (empty without banks).
    #[prost(uint64, repeated, tag = "11")]
    pub banks_ms: Vec<u64>,
    /// Each seat's timeouts in a row.
    #[prost(uint32, repeated, tag = "12")]
    pub timeouts: Vec<u32>,
    /// Each seat away or not.
    #[prost(bool, repeated, tag = "13")]
    pub away: Vec<bool>,
    #[prost(message, repeated, tag = "14")]
    pub stand_ins: Vec<StandInRecord>,
    /// The seat whose clock ran out, whose turn the stand-in is to play.
    #[prost(uint32, optional, tag = "15")]
    pub covering: Option<u32>,
}

/// A move a bot played for a human seat.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StandInRecord {
    /// Its index in the history.
    #[prost(uint64, tag = "1")]
    pub index: u64,
    #[prost(uint32, tag = "2")]
    pub seat: u32,
    /// 1 timed out, 2 away (frozen codes).
    #[prost(int32, tag = "3")]
    pub reason: i32,
    /// The seat's move number before the move (to tell a late `Act` why it was refused).
    #[prost(uint64, tag = "4")]
    pub known: u64,
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
