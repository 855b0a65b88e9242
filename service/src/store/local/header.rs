//! A match's header as the database's `matches` table holds it: the encoded [`StoredMatch`]
//! behind a checksum, so that a flipped bit that still decodes (a changed action, seat or
//! token hash) is caught when the header is read, not served.
//!
//! Layout: [`MAGIC`] (4 bytes), the FNV-1a checksum of the payload (u64 LE), the payload
//! (protobuf). Headers written before the checksum existed are the bare payload; they are
//! still read (a protobuf message cannot begin with the magic's first byte, field 0 with
//! wire type 7) and are written back with a checksum by the next fold.

use cardhouse::AnyState;

use crate::store::StoredMatch;
use crate::store::check::check;
use crate::store::local::log::checksum;

/// The first bytes of a checksummed header.
const MAGIC: [u8; 4] = [0x07, b'C', b'H', b'1'];
/// Bytes before the payload.
const PREFIX: usize = MAGIC.len() + 8;

/// `m` as the `matches` table holds it.
pub(crate) fn encode(m: &StoredMatch) -> Vec<u8> {
    let payload = prost::Message::encode_to_vec(m);
    let mut out = Vec::with_capacity(PREFIX + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&checksum(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// A header read back: the match, and whether it must be written again (it had no checksum,
/// or was of an earlier format and was migrated).
#[derive(Debug)]
pub(crate) struct Read {
    pub(crate) stored: StoredMatch,
    pub(crate) state: AnyState,
    pub(crate) rewrite: bool,
}

/// Why a header cannot be served.
#[derive(Debug)]
pub(crate) struct Bad {
    /// What is wrong, for the operator's log.
    pub(crate) what: String,
    /// The match id the header names, if it decodes and differs from its key (the key was
    /// damaged: requests come with this id).
    pub(crate) names: Option<String>,
}

impl From<String> for Bad {
    fn from(what: String) -> Bad {
        Bad { what, names: None }
    }
}

/// Decodes the header stored under `key`, migrates it and checks it ([`check`]).
///
/// # Errors
/// What is wrong with it.
pub(crate) fn decode(key: &str, bytes: &[u8]) -> Result<Read, Bad> {
    let (payload, checksummed) = match bytes.strip_prefix(&MAGIC) {
        Some(rest) if rest.len() >= 8 => {
            let (sum, payload) = rest.split_at(8);
            let sum = u64::from_le_bytes(sum.try_into().unwrap_or_default());
            if checksum(payload) != sum {
                return Err(Bad::from("the header fails its checksum".to_owned()));
            }
            (payload, true)
        }
        Some(_) => return Err(Bad::from("the header is cut short".to_owned())),
        None => (bytes, false),
    };
    let mut stored = <StoredMatch as prost::Message>::decode(payload)
        .map_err(|e| Bad::from(format!("the header does not decode: {e}")))?;
    if stored.id != key {
        return Err(Bad {
            what: format!(
                "the header is stored under id {key} but names match {}",
                stored.id
            ),
            names: (!stored.id.is_empty()).then(|| stored.id.clone()),
        });
    }
    let migrated = stored.migrate();
    let (state, _) = check(&stored)?;
    Ok(Read {
        stored,
        state,
        rewrite: migrated || !checksummed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::hash_token;
    use crate::domain::{BotSeat, MatchStatus, Seat};
    use crate::store::STORED_FORMAT;

    fn stored() -> StoredMatch {
        let game = cardhouse::new_game("klaberjass", &cardhouse::Options::new()).expect("game");
        StoredMatch {
            format: STORED_FORMAT,
            id: "abc".into(),
            state: game.new_initial_state().to_bytes(),
            seed: 1,
            seats: vec![Seat::Human.code(), Seat::Bot(BotSeat::Random).code()],
            seat_tokens: vec![hash_token("seat"), String::new()],
            owner_token: hash_token("owner"),
            spectator_token: hash_token("spectator"),
            status: MatchStatus::Active.code(),
            ..StoredMatch::default()
        }
    }

    #[test]
    fn a_header_reads_back_and_every_flipped_bit_is_caught() {
        let bytes = encode(&stored());
        let read = decode("abc", &bytes).expect("whole");
        assert_eq!(read.stored, stored());
        assert!(!read.rewrite);
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut flipped = bytes.clone();
                flipped[i] ^= 1 << bit;
                assert!(decode("abc", &flipped).is_err(), "byte {i}, bit {bit}");
            }
        }
        assert!(decode("abc", &bytes[..bytes.len() - 1]).is_err());
        assert!(decode("abc", &bytes[..6]).is_err());
        assert!(decode("abd", &bytes).is_err(), "another key");
    }

    #[test]
    fn headers_without_a_checksum_are_read_and_rewritten() {
        let legacy = prost::Message::encode_to_vec(&stored());
        let read = decode("abc", &legacy).expect("legacy");
        assert_eq!(read.stored, stored());
        assert!(read.rewrite);
        let mut old = stored();
        old.format = 1;
        old.seat_tokens[0] = "clear".into();
        old.owner_token = "owner".into();
        old.spectator_token = "spectator".into();
        let read = decode("abc", &encode(&old)).expect("format 1");
        assert_eq!(read.stored.seat_tokens[0], hash_token("clear"));
        assert!(read.rewrite);
    }
}
