//! The facts of a match that the match code, the stores and the metrics share, in the
//! service's own terms: who plays each seat ([`Seat`]) and where a match stands
//! ([`MatchStatus`]).
//!
//! Each has a **stored code**, the number every store writes for it: in the encoded
//! [`StoredMatch`](crate::store::StoredMatch) (the data directory's headers, PostgreSQL's
//! `header` column) and in PostgreSQL's `status` column. The codes are a frozen contract:
//! stored matches keep them whatever the API becomes, and `tests/stored_encoding.rs` reads
//! data written with them. The API's protobuf enums (`cardhouse.v1.SeatKind`,
//! `cardhouse.v1.MatchStatus`) use the same numbers today, but are another fact: they are
//! converted to and from these types only where the service speaks gRPC
//! ([`crate::convert`]), so a change of the wire format never reaches a store.

/// Who plays a seat of a match.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seat {
    /// A client holding the seat's token.
    Human,
    /// The server plays the seat with this bot.
    Bot(BotSeat),
}

/// Which bot plays a bot seat: one of the first three seat kinds of the API, or any bot by
/// its name ([`BotSeat::Named`]: the name is stored beside the seat's code).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BotSeat {
    /// A uniformly random legal action (seeded from the match's seed and move number).
    Random,
    /// The game's heuristic bot.
    Heuristic,
    /// Information-set Monte Carlo tree search, with the match's iteration budget.
    Ismcts,
    /// Any bot the engine knows, by the name stored beside the seat (`rollout:64`,
    /// `policy:jass`, ...).
    Named,
}

impl Seat {
    /// Every seat kind, in the order of their codes.
    pub const ALL: [Seat; 5] = [
        Seat::Human,
        Seat::Bot(BotSeat::Random),
        Seat::Bot(BotSeat::Heuristic),
        Seat::Bot(BotSeat::Ismcts),
        Seat::Bot(BotSeat::Named),
    ];

    /// The seat's stored code (frozen; see the module docs).
    #[must_use]
    pub const fn code(self) -> i32 {
        match self {
            Seat::Human => 1,
            Seat::Bot(BotSeat::Random) => 2,
            Seat::Bot(BotSeat::Heuristic) => 3,
            Seat::Bot(BotSeat::Ismcts) => 4,
            Seat::Bot(BotSeat::Named) => 5,
        }
    }

    /// The seat a stored code stands for; `None` for a code no seat has (damaged data).
    #[must_use]
    pub const fn from_code(code: i32) -> Option<Seat> {
        match code {
            1 => Some(Seat::Human),
            2 => Some(Seat::Bot(BotSeat::Random)),
            3 => Some(Seat::Bot(BotSeat::Heuristic)),
            4 => Some(Seat::Bot(BotSeat::Ismcts)),
            5 => Some(Seat::Bot(BotSeat::Named)),
            _ => None,
        }
    }
}

/// Where a match stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MatchStatus {
    /// Being played.
    Active,
    /// Ended by the rules: its returns are final.
    Finished,
    /// Ended because a seat resigned (the match names the seat).
    Resigned,
    /// Ended by its owner, the operator, abandonment or its length limit, without a result.
    Aborted,
    /// Ended because a seat's clock ran out and the match's policy was to resign it (the
    /// match names the seat, as for a resignation).
    TimedOut,
}

impl MatchStatus {
    /// Every status, in the order of their codes.
    pub const ALL: [MatchStatus; 5] = [
        MatchStatus::Active,
        MatchStatus::Finished,
        MatchStatus::Resigned,
        MatchStatus::Aborted,
        MatchStatus::TimedOut,
    ];

    /// The status's stored code (frozen; see the module docs).
    #[must_use]
    pub const fn code(self) -> i32 {
        match self {
            MatchStatus::Active => 1,
            MatchStatus::Finished => 2,
            MatchStatus::Resigned => 3,
            MatchStatus::Aborted => 4,
            MatchStatus::TimedOut => 5,
        }
    }

    /// The status a stored code stands for; `None` for a code no status has (damaged data).
    #[must_use]
    pub const fn from_code(code: i32) -> Option<MatchStatus> {
        match code {
            1 => Some(MatchStatus::Active),
            2 => Some(MatchStatus::Finished),
            3 => Some(MatchStatus::Resigned),
            4 => Some(MatchStatus::Aborted),
            5 => Some(MatchStatus::TimedOut),
            _ => None,
        }
    }

    /// The status in one lowercase word (`active`, `finished`, `resigned`, `aborted`): the
    /// metrics' label.
    #[must_use]
    pub const fn word(self) -> &'static str {
        match self {
            MatchStatus::Active => "active",
            MatchStatus::Finished => "finished",
            MatchStatus::Resigned => "resigned",
            MatchStatus::Aborted => "aborted",
            MatchStatus::TimedOut => "timed_out",
        }
    }

    /// The status as the operator's log has always named it in messages about stored data
    /// (`MATCH_STATUS_ACTIVE`, ...), kept so that searches of old logs still match.
    #[must_use]
    pub const fn log_name(self) -> &'static str {
        match self {
            MatchStatus::Active => "MATCH_STATUS_ACTIVE",
            MatchStatus::Finished => "MATCH_STATUS_FINISHED",
            MatchStatus::Resigned => "MATCH_STATUS_RESIGNED",
            MatchStatus::Aborted => "MATCH_STATUS_ABORTED",
            MatchStatus::TimedOut => "MATCH_STATUS_TIMED_OUT",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_codes_are_frozen() {
        let seats: Vec<i32> = Seat::ALL.iter().map(|s| s.code()).collect();
        assert_eq!(seats, [1, 2, 3, 4, 5]);
        let statuses: Vec<i32> = MatchStatus::ALL.iter().map(|s| s.code()).collect();
        assert_eq!(statuses, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn every_code_reads_back_and_no_other_does() {
        for s in Seat::ALL {
            assert_eq!(Seat::from_code(s.code()), Some(s));
        }
        for s in MatchStatus::ALL {
            assert_eq!(MatchStatus::from_code(s.code()), Some(s));
        }
        for code in [0, 6, -1, 99, i32::MAX, i32::MIN] {
            assert_eq!(Seat::from_code(code), None, "{code}");
            assert_eq!(MatchStatus::from_code(code), None, "{code}");
        }
        assert_eq!(MatchStatus::from_code(6), None);
    }
}
