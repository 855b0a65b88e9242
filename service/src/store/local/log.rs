//! The move log file (`moves.log`): its record framing and checksums, reading it back
//! (torn tails dropped, corruption reported; read-only, so that a refused start changes
//! nothing), starting a new one and appending to it durably.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::store::StoreError;
use crate::store::local::layout::{DirConfig, LOG_MAGIC, MOVE_LOG, SALVAGE_HINT, owner_only};

/// Largest log record payload; a longer length field is corrupt.
const MAX_RECORD: usize = 64 << 20;

/// One record of the move log.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct LogEntry {
    #[prost(string, tag = "1")]
    pub id: String,
    /// History index of the first action (the match's move number before them).
    #[prost(uint64, tag = "2")]
    pub from: u64,
    #[prost(uint32, repeated, tag = "3")]
    pub actions: Vec<u32>,
    /// A tombstone: match `id` is deleted (retention).
    #[prost(bool, tag = "4")]
    pub deleted: bool,
    /// A marker: the database made its commit number `db_commit`.
    #[prost(uint64, optional, tag = "5")]
    pub db_commit: Option<u64>,
    /// The events of match `id` this entry's actions made, for the outbox (`--events`).
    #[prost(message, repeated, tag = "7")]
    pub events: Vec<LoggedEvent>,
    /// A relay marker (no `id`): these matches' events up to these sequence numbers are
    /// published.
    #[prost(message, repeated, tag = "8")]
    pub relayed: Vec<Relayed>,
}

/// One event of the outbox, in a log entry (its match is the entry's) or in the database's
/// `outbox` table (its match and sequence number in the key).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct LoggedEvent {
    #[prost(uint64, tag = "1")]
    pub seq: u64,
    #[prost(string, tag = "2")]
    pub subject: String,
    #[prost(bytes = "vec", tag = "3")]
    pub payload: Vec<u8>,
}

/// A match's events up to `seq` are published.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Relayed {
    #[prost(string, tag = "1")]
    pub id: String,
    #[prost(uint64, tag = "2")]
    pub seq: u64,
}

pub(crate) fn marker_record(commit: u64) -> Vec<u8> {
    prost::Message::encode_to_vec(&LogEntry {
        db_commit: Some(commit),
        ..LogEntry::default()
    })
}

/// Bytes of a record's frame before its payload: length (u32 LE), a checksum of the length
/// (u32 LE), a checksum of the payload (u64 LE).
const FRAME: usize = 16;
/// The frame of logs written before the magic: length (u32 LE), payload checksum (u64 LE).
const LEGACY_FRAME: usize = 12;

/// Appends `payload` to `out` as one framed record.
pub(crate) fn frame(payload: &[u8], out: &mut Vec<u8>) {
    let len = (payload.len() as u32).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&(checksum(&len) as u32).to_le_bytes());
    out.extend_from_slice(&checksum(payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// FNV-1a (64 bit): tells a record torn by a crash or flipped on disk from a whole one
/// (each byte goes through a bijection of the running hash, so any one changed byte changes
/// the sum).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What is at an offset of the log.
#[derive(Debug, PartialEq)]
enum Next<'a> {
    /// A whole record and its framed length.
    Record(&'a [u8], usize),
    /// A torn tail: drop from here to the end.
    Torn(&'static str),
    /// Corruption before the end.
    Corrupt(String),
}

/// Reads the record at the start of `rest` (current framing).
fn next_record(rest: &[u8]) -> Next<'_> {
    if rest.iter().all(|&b| b == 0) {
        return Next::Torn("zero bytes to the end of the file");
    }
    if rest.len() < FRAME {
        return Next::Torn("a record header cut short at the end of the file");
    }
    let len_bytes: [u8; 4] = rest[..4].try_into().unwrap_or_default();
    let len = u32::from_le_bytes(len_bytes) as usize;
    let len_sum = u32::from_le_bytes(rest[4..8].try_into().unwrap_or_default());
    if checksum(&len_bytes) as u32 != len_sum || len > MAX_RECORD {
        return Next::Corrupt("a record length that fails its checksum".into());
    }
    let sum = u64::from_le_bytes(rest[8..FRAME].try_into().unwrap_or_default());
    let Some(payload) = rest.get(FRAME..FRAME + len) else {
        return Next::Torn("a record cut short at the end of the file");
    };
    if checksum(payload) != sum {
        if FRAME + len == rest.len() {
            return Next::Torn("the last record fails its checksum (its write did not complete)");
        }
        return Next::Corrupt("a record that fails its checksum".into());
    }
    Next::Record(payload, FRAME + len)
}

/// Reads the record at the start of `rest` in the framing of logs without the magic: they
/// had no length checksum, so (as those versions did) anything bad ends the log.
fn next_legacy_record(rest: &[u8]) -> Next<'_> {
    let record = (|| {
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let sum = u64::from_le_bytes(rest.get(4..LEGACY_FRAME)?.try_into().ok()?);
        let payload = rest.get(LEGACY_FRAME..LEGACY_FRAME + len)?;
        (checksum(payload) == sum).then_some((payload, LEGACY_FRAME + len))
    })();
    match record {
        Some((p, n)) => Next::Record(p, n),
        None => Next::Torn("an incomplete record at the end of a log of an earlier version"),
    }
}

/// What reading a move log found.
#[derive(Debug, Default)]
pub(crate) struct LogRead {
    /// Every whole record with its offset, in order.
    pub(crate) records: Vec<(u64, Vec<u8>)>,
    /// With salvage: what was dropped from a corrupt record on (the file must be kept aside).
    pub(crate) dropped: Option<String>,
}

/// Reads the move log at `path` (read-only). A torn tail is dropped with a warning;
/// corruption before the end is an error (or, with salvage, the end of what is kept).
///
/// # Errors
/// [`StoreError::Corrupt`] naming the file and offset; an unreadable file.
pub(crate) fn read_log(path: &Path, options: &DirConfig) -> Result<LogRead, StoreError> {
    let bytes = std::fs::read(path).map_err(|source| StoreError::Log {
        path: path.to_owned(),
        source,
    })?;
    let (start, legacy) = if bytes.starts_with(LOG_MAGIC) {
        (LOG_MAGIC.len(), false)
    } else if bytes.is_empty() || LOG_MAGIC.starts_with(&bytes) {
        (bytes.len(), false)
    } else {
        (0, true)
    };
    let mut read = LogRead::default();
    let mut at = start;
    while at < bytes.len() {
        let rest = &bytes[at..];
        let next = if legacy {
            next_legacy_record(rest)
        } else {
            next_record(rest)
        };
        match next {
            Next::Record(payload, n) => {
                read.records.push((at as u64, payload.to_vec()));
                at += n;
            }
            Next::Torn(why) => {
                tracing::warn!(
                    path = %path.display(),
                    offset = at,
                    bytes = rest.len(),
                    "dropping a torn tail of the move log ({why}); it was never acknowledged"
                );
                break;
            }
            Next::Corrupt(why) => {
                let what = format!(
                    "corrupt at offset {at} of {} bytes: {why}, followed by more data",
                    bytes.len()
                );
                if !options.salvage {
                    return Err(StoreError::Corrupt {
                        path: path.to_owned(),
                        what: what + SALVAGE_HINT,
                    });
                }
                tracing::warn!(
                    path = %path.display(),
                    offset = at,
                    dropped_bytes = rest.len(),
                    "salvage: {what}; dropping everything from there"
                );
                read.dropped = Some(format!("{} bytes from offset {at}", rest.len()));
                break;
            }
        }
    }
    Ok(read)
}

/// The append-only move log file.
pub(crate) struct MoveLog {
    path: PathBuf,
    file: File,
}

impl MoveLog {
    /// Starts `dir/moves.log` anew, atomically (written beside it, then renamed over it),
    /// holding only the magic and a marker for database commit `commit`, owner-only.
    ///
    /// # Errors
    /// An I/O error, naming the file.
    pub(crate) fn start(dir: &Path, commit: u64) -> Result<MoveLog, StoreError> {
        let path = dir.join(MOVE_LOG);
        let tmp = dir.join(format!("{MOVE_LOG}.new"));
        let mut bytes = LOG_MAGIC.to_vec();
        frame(&marker_record(commit), &mut bytes);
        let result = (|| {
            let mut f = File::options()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)?;
            owner_only(&tmp, 0o600)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            File::open(dir)?.sync_all()?;
            File::options().read(true).append(true).open(&path)
        })();
        match result {
            Ok(file) => Ok(MoveLog { path, file }),
            Err(source) => Err(StoreError::Log { path, source }),
        }
    }

    fn err(&self, source: std::io::Error) -> StoreError {
        StoreError::Log {
            path: self.path.clone(),
            source,
        }
    }

    /// Appends framed `records` and waits until they are on disk.
    pub(crate) fn append(&mut self, records: &[u8]) -> Result<(), StoreError> {
        self.file
            .write_all(records)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = LOG_MAGIC.to_vec();
        for p in payloads {
            frame(p, &mut out);
        }
        out
    }

    fn read(bytes: &[u8], salvage: bool) -> Result<Vec<Vec<u8>>, StoreError> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(MOVE_LOG);
        std::fs::write(&path, bytes).expect("write");
        let read = read_log(
            &path,
            &DirConfig {
                salvage,
                ..DirConfig::new(dir.path())
            },
        )?;
        assert_eq!(
            std::fs::read(&path).expect("read"),
            bytes,
            "reading changed it"
        );
        Ok(read.records.into_iter().map(|(_, r)| r).collect())
    }

    #[test]
    fn whole_records_are_read_and_a_torn_tail_is_dropped() {
        let mut bytes = framed(&[b"first", b""]);
        let whole = bytes.len();
        frame(b"second, torn", &mut bytes);
        for cut in whole..bytes.len() {
            assert_eq!(
                read(&bytes[..cut], false).expect("torn tail"),
                vec![b"first".to_vec(), Vec::new()],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_zero_filled_tail_is_torn() {
        let mut bytes = framed(&[b"first"]);
        bytes.extend_from_slice(&[0; 100]);
        assert_eq!(read(&bytes, false).expect("torn"), vec![b"first".to_vec()]);
    }

    #[test]
    fn a_last_record_failing_its_checksum_is_torn() {
        let mut bytes = framed(&[b"first", b"second"]);
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert_eq!(read(&bytes, false).expect("torn"), vec![b"first".to_vec()]);
    }

    #[test]
    fn a_flipped_bit_before_the_end_is_corruption() {
        let clean = framed(&[b"first", b"second", b"third"]);
        // Every byte of the first two records: payload, checksum and length alike.
        let end_of_second = LOG_MAGIC.len() + 2 * FRAME + 5 + 6;
        for i in LOG_MAGIC.len()..end_of_second {
            let mut bytes = clean.clone();
            bytes[i] ^= 0x10;
            let err = read(&bytes, false).expect_err(&format!("flip at {i}"));
            assert!(
                matches!(err, StoreError::Corrupt { .. }),
                "flip at {i}: {err}"
            );
            let kept = read(&bytes, true).expect("salvage");
            assert!(
                kept.len() < 3,
                "flip at {i}: salvage keeps the records before it"
            );
        }
    }

    #[test]
    fn legacy_logs_are_still_read() {
        let mut bytes = Vec::new();
        for p in [&b"one"[..], b"two"] {
            bytes.extend_from_slice(&(p.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&checksum(p).to_le_bytes());
            bytes.extend_from_slice(p);
        }
        assert_eq!(
            read(&bytes, false).expect("legacy"),
            vec![b"one".to_vec(), b"two".to_vec()]
        );
    }
}
