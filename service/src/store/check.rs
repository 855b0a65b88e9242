//! What a stored match must be to be served: [`check`] (the whole match, its history
//! replayed) and [`check_header`] (its fixed facts and status against a known game), used by
//! every backend when it reads a match and by the match service when it resumes one. Both
//! decode the stored codes into the match's own terms ([`Header`]).
//!
//! A match that fails is **damaged**: it is never served, changed or deleted; every request
//! for it is `DATA_LOSS`, and where it was found (a file, or a table and row) and what is
//! wrong are logged for the operator. The checks exist because the rest of the service
//! trusts a stored match completely (seat indices, token comparisons, bot budgets): without
//! them an edited or flipped record panicked a request, or set a bot thinking for days.

use cardhouse::bots::BotKind;
use cardhouse::{AnyGame, AnyState};

use crate::domain::{BotSeat, MatchStatus, Seat};
use crate::store::{STORED_FORMAT, StoredMatch};

/// The most IS-MCTS iterations a move a stored match may ask for: the API's maximum
/// (`CreateMatch` refuses more).
pub const MAX_ISMCTS_ITERATIONS: u32 = 100_000;

/// The stored codes of a match that passed [`check_header`], decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Who plays each seat.
    pub seats: Vec<Seat>,
    /// The status as stored (an active match whose state is over is read as finished by the
    /// match service: its last moves were logged, its final header not yet written).
    pub status: MatchStatus,
}

/// The match's state, decoded and replayed (the engine's checked `apply` for every action of
/// its history, its options validated), and its decoded header, if everything else about
/// `m` is possible too (see [`check_header`]).
///
/// # Errors
/// What is wrong, in words for the operator's log.
pub fn check(m: &StoredMatch) -> Result<(AnyState, Header), String> {
    if m.format != STORED_FORMAT {
        return Err(format!(
            "stored format {} is not {STORED_FORMAT}, the one this server reads",
            m.format
        ));
    }
    let state = cardhouse::state_from_bytes(&m.state)
        .map_err(|e| format!("the state does not decode or replay: {e}"))?;
    let header = check_header(m, &state.game(), state.is_terminal())?;
    Ok((state, header))
}

/// Checks everything about `m` but its state: its format, seats, tokens, status, resigned
/// seat and bot budget, for a match of `game` whose state is (or is not) `terminal`; returns
/// its seats and status decoded.
///
/// # Errors
/// What is wrong, in words for the operator's log.
pub fn check_header(m: &StoredMatch, game: &AnyGame, terminal: bool) -> Result<Header, String> {
    if m.format != STORED_FORMAT {
        return Err(format!(
            "stored format {} is not {STORED_FORMAT}, the one this server reads",
            m.format
        ));
    }
    let n = game.num_players();
    if m.seats.len() != n {
        return Err(format!(
            "{} seats in the header; {} has {n}",
            m.seats.len(),
            game.name()
        ));
    }
    if m.seat_tokens.len() != n {
        return Err(format!(
            "{} seat tokens in the header for {n} seats",
            m.seat_tokens.len()
        ));
    }
    let mut seats = Vec::with_capacity(n);
    for (seat, (&code, token)) in m.seats.iter().zip(&m.seat_tokens).enumerate() {
        let kind = Seat::from_code(code)
            .ok_or_else(|| format!("seat {seat} has an unknown seat kind ({code})"))?;
        match kind {
            Seat::Human if token.is_empty() => {
                return Err(format!("seat {seat} is human but has no token"));
            }
            Seat::Human if !is_token_hash(token) => {
                return Err(format!("the token of seat {seat} is not a SHA-256 hash"));
            }
            Seat::Bot(_) if !token.is_empty() => {
                return Err(format!("seat {seat} is a bot but has a token"));
            }
            Seat::Human | Seat::Bot(_) => {}
        }
        let name = m.bot_names.get(seat).map_or("", String::as_str);
        match kind {
            Seat::Bot(BotSeat::Named) => {
                let bot: BotKind = name
                    .parse()
                    .map_err(|e| format!("seat {seat} is played by {name:?}, not a bot: {e}"))?;
                bot.check_game(game)
                    .map_err(|e| format!("seat {seat}'s bot {name:?} cannot play: {e}"))?;
            }
            _ if !name.is_empty() => {
                return Err(format!("seat {seat} is not a named bot but has a bot name"));
            }
            _ => {}
        }
        seats.push(kind);
    }
    if !m.bot_names.is_empty() && m.bot_names.len() != n {
        return Err(format!(
            "{} bot names in the header for {n} seats",
            m.bot_names.len()
        ));
    }
    for (name, token) in [("owner", &m.owner_token), ("spectator", &m.spectator_token)] {
        if !is_token_hash(token) {
            return Err(format!("the {name} token is not a SHA-256 hash"));
        }
    }
    if m.ismcts_iterations > MAX_ISMCTS_ITERATIONS {
        return Err(format!(
            "ismcts_iterations {} is above the maximum of {MAX_ISMCTS_ITERATIONS}",
            m.ismcts_iterations
        ));
    }
    let status = MatchStatus::from_code(m.status)
        .ok_or_else(|| format!("unknown match status {}", m.status))?;
    // An active match may hold a finished state: its last moves were logged and the crash
    // came before its final header was written (the status is then read as finished).
    if status == MatchStatus::Finished && !terminal {
        return Err("the status is finished but the game is not over".into());
    }
    // A seat that resigned, or lost on time, is named.
    let names_seat = matches!(status, MatchStatus::Resigned | MatchStatus::TimedOut);
    match (names_seat, m.resigned_seat) {
        (true, Some(seat)) if seat as usize >= n => {
            Err(format!("resigned seat {seat} is out of range ({n} seats)"))
        }
        (true, Some(_)) | (false, None) => Ok(()),
        (true, None) => Err(format!(
            "status {}, but no resigned seat",
            status.log_name()
        )),
        (false, Some(seat)) => Err(format!(
            "resigned seat {seat} with status {}",
            status.log_name()
        )),
    }?;
    Ok(Header { seats, status })
}

/// Whether `token` is a token as stored: `sha256:` and 64 lowercase hex digits (see
/// [`crate::auth::hash_token`]).
fn is_token_hash(token: &str) -> bool {
    token.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::hash_token;

    /// A valid stored Klaberjass match (seat 0 human, seat 1 a random bot), just dealt.
    fn valid() -> StoredMatch {
        let game = cardhouse::new_game("klaberjass", &cardhouse::Options::new()).expect("game");
        StoredMatch {
            format: STORED_FORMAT,
            id: "m".into(),
            state: game.new_initial_state().to_bytes(),
            seed: 1,
            seats: vec![Seat::Human.code(), Seat::Bot(BotSeat::Random).code()],
            seat_tokens: vec![hash_token("seat"), String::new()],
            owner_token: hash_token("owner"),
            spectator_token: hash_token("spectator"),
            status: MatchStatus::Active.code(),
            resigned_seat: None,
            ended_at_ms: 0,
            ismcts_iterations: 0,
            bot_names: Vec::new(),
            notices: 0,
            table: None,
        }
    }

    fn fails(edit: impl FnOnce(&mut StoredMatch), what: &str) {
        let mut m = valid();
        edit(&mut m);
        let err = check(&m).expect_err(what);
        assert!(err.contains(what), "{err:?} should say {what:?}");
    }

    #[test]
    fn a_valid_match_passes() {
        let (_, header) = check(&valid()).expect("valid");
        assert_eq!(
            header,
            Header {
                seats: vec![Seat::Human, Seat::Bot(BotSeat::Random)],
                status: MatchStatus::Active
            }
        );
        let mut m = valid();
        m.status = MatchStatus::Resigned.code();
        m.resigned_seat = Some(1);
        m.ismcts_iterations = MAX_ISMCTS_ITERATIONS;
        check(&m).expect("resigned");
    }

    #[test]
    fn each_impossible_field_is_named() {
        fails(|m| m.format = 7, "stored format 7");
        fails(
            |m| m.state = b"CHS\x01junk".to_vec(),
            "state does not decode",
        );
        fails(
            |m| {
                m.seats.extend([Seat::Human.code(), 2]);
                m.seat_tokens.extend([hash_token("x"), String::new()]);
            },
            "4 seats in the header; klaberjass has 2",
        );
        fails(
            |m| {
                m.seat_tokens.pop();
            },
            "1 seat tokens",
        );
        fails(
            |m| m.seat_tokens[0] = String::new(),
            "human but has no token",
        );
        fails(|m| m.seat_tokens[0] = "s3cret".into(), "not a SHA-256 hash");
        fails(
            |m| m.seat_tokens[0] = format!("sha256:{}", "A".repeat(64)),
            "not a SHA-256 hash",
        );
        fails(
            |m| m.seat_tokens[1] = hash_token("b"),
            "a bot but has a token",
        );
        fails(|m| m.seats[1] = 0, "unknown seat kind (0)");
        fails(|m| m.seats[1] = 99, "unknown seat kind (99)");
        fails(|m| m.owner_token = "owner".into(), "owner token");
        fails(|m| m.spectator_token.clear(), "spectator token");
        fails(|m| m.status = 0, "unknown match status 0");
        fails(|m| m.status = 17, "unknown match status 17");
        fails(
            |m| m.status = MatchStatus::Finished.code(),
            "the game is not over",
        );
        fails(
            |m| m.status = MatchStatus::Resigned.code(),
            "no resigned seat",
        );
        fails(
            |m| {
                m.status = MatchStatus::Resigned.code();
                m.resigned_seat = Some(2);
            },
            "resigned seat 2 is out of range",
        );
        fails(
            |m| m.resigned_seat = Some(0),
            "with status MATCH_STATUS_ACTIVE",
        );
        fails(
            |m| m.ismcts_iterations = 4_000_000_000,
            "ismcts_iterations 4000000000 is above the maximum of 100000",
        );
    }

    #[test]
    fn a_history_the_engine_rejects_is_named() {
        let mut m = valid();
        let mut record = cardhouse::codec::Record::from_bytes(&m.state).expect("record");
        record.history.push(9_999);
        m.state = record.to_bytes();
        let err = check(&m).expect_err("unplayable");
        assert!(err.contains("does not decode or replay"), "{err}");
    }
}
