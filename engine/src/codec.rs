//! Serialization of states: compact versioned bytes and JSON, both round-trip exact.
//!
//! A state is written as its game, options, rules version and history (chance outcomes and
//! actions). Reading validates the options and replays the history with checked `apply`, so
//! malformed or inconsistent data is an [`Error`], never a panic and never an impossible
//! state.
//!
//! Byte layout (all integers LEB128 varints):
//! `"CHS"`, format byte `1`, game name (length + UTF-8), rules version, option count, then per
//! option key and canonical value text (length + UTF-8 each), history length, history ids.

use serde::{Deserialize, Serialize};

use crate::{Action, Error, OptionValue, Options};

/// The magic prefix of serialized states.
pub const MAGIC: &[u8; 3] = b"CHS";
/// The current byte/JSON format.
pub const FORMAT: u8 = 1;
/// The longest history accepted when decoding (far above any real match).
pub const MAX_HISTORY: usize = 1 << 20;

/// What a serialized state carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always `"cardhouse-state"`.
    pub format: String,
    /// Format version ([`FORMAT`]).
    pub version: u8,
    /// Game name.
    pub game: String,
    /// Rules version of the game.
    pub rules_version: u32,
    /// Every option, canonical values.
    pub options: Options,
    /// Chance outcomes and actions since the initial state.
    pub history: Vec<Action>,
}

impl Record {
    /// Compact bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.history.len() * 2);
        out.extend_from_slice(MAGIC);
        out.push(self.version);
        put_str(&mut out, &self.game);
        put_varint(&mut out, u64::from(self.rules_version));
        put_varint(&mut out, self.options.len() as u64);
        for (k, v) in &self.options {
            put_str(&mut out, k);
            put_str(&mut out, &v.to_string());
        }
        put_varint(&mut out, self.history.len() as u64);
        for &a in &self.history {
            put_varint(&mut out, u64::from(a));
        }
        out
    }

    /// Parses bytes written by [`Record::to_bytes`].
    ///
    /// # Errors
    /// [`Error::Decode`] saying what is malformed.
    pub fn from_bytes(bytes: &[u8]) -> Result<Record, Error> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(3)? != MAGIC {
            return Err(Error::Decode(
                "not a cardhouse state (missing `CHS` prefix)".into(),
            ));
        }
        let version = r.take(1)?[0];
        if version != FORMAT {
            return Err(Error::Decode(format!(
                "unsupported format version {version}; this engine reads version {FORMAT}"
            )));
        }
        let game = r.string()?;
        let rules_version = u32::try_from(r.varint()?)
            .map_err(|_| Error::Decode("rules version out of range".into()))?;
        let n = r.varint()?;
        if n > 64 {
            return Err(Error::Decode(format!(
                "{n} options is more than any game has"
            )));
        }
        let mut options = Options::new();
        for _ in 0..n {
            let k = r.string()?;
            let v = r.string()?;
            if options.insert(k.clone(), OptionValue::Str(v)).is_some() {
                return Err(Error::Decode(format!("option `{k}` appears twice")));
            }
        }
        let len = r.varint()? as usize;
        if len > MAX_HISTORY || len > r.bytes.len() - r.pos {
            return Err(Error::Decode(format!(
                "history length {len} exceeds the data"
            )));
        }
        let mut history = Vec::with_capacity(len);
        for _ in 0..len {
            let a = r.varint()?;
            history.push(
                Action::try_from(a)
                    .map_err(|_| Error::Decode(format!("action id {a} out of range")))?,
            );
        }
        if r.pos != bytes.len() {
            return Err(Error::Decode(format!(
                "{} trailing bytes",
                bytes.len() - r.pos
            )));
        }
        Ok(Record {
            format: "cardhouse-state".into(),
            version,
            game,
            rules_version,
            options,
            history,
        })
    }

    /// JSON text.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses JSON written by [`Record::to_json`].
    ///
    /// # Errors
    /// [`Error::Decode`] saying what is malformed.
    pub fn from_json(text: &str) -> Result<Record, Error> {
        let rec: Record = serde_json::from_str(text).map_err(|e| Error::Decode(e.to_string()))?;
        if rec.format != "cardhouse-state" {
            return Err(Error::Decode(format!(
                "format is `{}`, expected `cardhouse-state`",
                rec.format
            )));
        }
        if rec.version != FORMAT {
            return Err(Error::Decode(format!(
                "unsupported format version {}; this engine reads version {FORMAT}",
                rec.version
            )));
        }
        Ok(rec)
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.bytes.len() - self.pos < n {
            return Err(Error::Decode("data ends early".into()));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64, Error> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Error::Decode("varint longer than 64 bits".into()))
    }

    fn string(&mut self) -> Result<String, Error> {
        let n = self.varint()? as usize;
        if n > 256 {
            return Err(Error::Decode(format!("string of {n} bytes is too long")));
        }
        let s = self.take(n)?;
        String::from_utf8(s.to_vec()).map_err(|_| Error::Decode("string is not UTF-8".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_truncations_fail_cleanly() {
        let rec = Record {
            format: "cardhouse-state".into(),
            version: FORMAT,
            game: "jass".into(),
            rules_version: 1,
            options: crate::options([("scope", "deal".into()), ("target_score", "1000".into())]),
            history: vec![0, 1, 200, 300, 5],
        };
        let bytes = rec.to_bytes();
        assert_eq!(Record::from_bytes(&bytes).unwrap(), rec);
        for cut in 0..bytes.len() {
            assert!(Record::from_bytes(&bytes[..cut]).is_err());
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(Record::from_bytes(&extra).is_err());
        assert_eq!(Record::from_json(&rec.to_json()).unwrap(), rec);
        assert!(Record::from_json("{}").is_err());
    }
}
