//! The PostgreSQL store's statements, and the conversions between its columns and a
//! stored match.

use crate::domain::MatchStatus;
use crate::store::{StoreError, StoredMatch};

/// The advisory lock held while migrating ("cardhous").
pub(crate) const MIGRATION_LOCK: i64 = 0x6361_7264_686f_7573;
/// The session advisory lock the replica relaying the outbox holds (`--events`).
pub(crate) const RELAY_LOCK: i64 = 0x6361_7264_6576_6e74;
/// The `status` column of an active match (the migrations' partial index `matches_ended`
/// names the same code, 1).
pub(crate) const ACTIVE: i32 = MatchStatus::Active.code();
/// The `status` column of an aborted match.
pub(crate) const ABORTED: i32 = MatchStatus::Aborted.code();

// The two batch statements below join an array (`unnest`) with `matches` and also say
// `m.id = ANY($1)`: that condition is an index condition on the primary key, so the rows of
// `matches` are reached through the index whatever the planner knows. Without it, a plan made
// while the table is small or was never analyzed (a new database: every pooled connection
// prepares its statements at its first use, and keeps the generic plan) joins by hashing the
// array and scanning the whole table, at a cost that grows with the table until an ANALYZE
// makes PostgreSQL plan again. `service/tests/pg_batches.rs` checks both plans on an empty
// table.

/// Matches `$1[i]` each unless its version is `$2[i]` (then its version only), with the
/// index `i` (from 1): the loads of one batch, in one round trip. Absent matches give no row.
/// A match is its `state` with the actions of its `tail` appended (see [`UPDATE_MANY`]).
pub const LOAD_MANY: &str = "SELECT r.i, m.version, \
                    CASE WHEN m.version <> r.known THEN m.header END, \
                    CASE WHEN m.version <> r.known THEN m.state END, \
                    CASE WHEN m.version <> r.known THEN m.tail END, \
                    m.status, m.resigned_seat, m.ended_at_ms, \
                    CASE WHEN m.version <> r.known THEN m.table_state END \
                    FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS r(id, known, i) \
                    JOIN matches m ON m.id = r.id WHERE m.id = ANY($1)";
pub(crate) const VERSIONS: &str = "SELECT id, version FROM matches WHERE id = ANY($1)";
pub(crate) const INSERT: &str = "WITH slot AS (UPDATE match_count SET n = n + 1 WHERE id = 1 AND n < $10 \
                      RETURNING n) \
                      INSERT INTO matches (id, header, state, version, move_number, status, \
                      resigned_seat, ended_at_ms, touched_ms, driving, table_state, deadline_ms) \
                      SELECT $1, $2, $3, 0, $4, $5, $6, $7, $8, $9, $11, $12 FROM slot";
/// The changes of one batch (of distinct matches), each written only if its match is still
/// at the version it was made on: one statement, one transaction, one commit. A change with
/// a state (`$3[i]`, a snapshot) replaces `state` and empties `tail`; one without appends its
/// actions (`$4[i]`, [`TAIL_BYTES`] each) to `tail`. Returns the ids written (the others met
/// another version, or no match).
pub const UPDATE_MANY: &str = "UPDATE matches AS m SET state = COALESCE(c.state, m.state), \
                      tail = CASE WHEN c.state IS NULL THEN m.tail || c.tail ELSE c.tail END, \
                      version = m.version + 1, move_number = c.move_number, status = c.status, \
                      resigned_seat = c.resigned_seat, ended_at_ms = c.ended_at_ms, \
                      touched_ms = c.touched_ms, driving = c.driving, \
                      table_state = c.table_state, deadline_ms = c.deadline_ms \
                      FROM unnest($1::text[], $2::bigint[], $3::bytea[], $4::bytea[], \
                      $5::bigint[], $6::int[], $7::int[], $8::bigint[], $9::bigint[], \
                      $10::bool[], $11::bytea[], $12::bigint[]) \
                      AS c(id, version, state, tail, move_number, status, resigned_seat, \
                      ended_at_ms, touched_ms, driving, table_state, deadline_ms) \
                      WHERE m.id = ANY($1) AND m.id = c.id AND m.version = c.version \
                      RETURNING m.id";
/// [`UPDATE_MANY`] for a batch of one change (the common case below a dozen requests in
/// flight), with scalars: PostgreSQL's plan for it is a primary-key update, without the
/// arrays to unpack and the join to set up at every execution.
pub const UPDATE_ONE: &str = "UPDATE matches SET state = COALESCE($3, state), \
                      tail = CASE WHEN $3::bytea IS NULL THEN tail || $4 ELSE $4 END, \
                      version = version + 1, move_number = $5, status = $6, \
                      resigned_seat = $7, ended_at_ms = $8, touched_ms = $9, driving = $10, \
                      table_state = $11, deadline_ms = $12 \
                      WHERE id = $1 AND version = $2 \
                      RETURNING id";
pub(crate) const ABANDON: &str = "WITH a AS (UPDATE matches SET status = $3, ended_at_ms = $1, \
                       version = version + 1, touched_ms = $1, driving = false \
                       WHERE status = $4 AND touched_ms < $2 AND NOT driving \
                       RETURNING id, version) \
                       SELECT id, version FROM a";
pub(crate) const EXPIRE: &str = "WITH gone AS (DELETE FROM matches WHERE id IN (SELECT id FROM matches \
                      WHERE status <> $2 AND ended_at_ms < $1 LIMIT 1000) RETURNING id), \
                      counted AS (UPDATE match_count SET n = n - (SELECT count(*) FROM gone) \
                      WHERE id = 1) \
                      SELECT id FROM gone";
/// Active matches (status `$2`) whose clock ran out at or before `$1`.
pub(crate) const EXPIRED: &str = "SELECT id FROM matches WHERE deadline_ms <= $1 AND status = $2 \
                       ORDER BY deadline_ms LIMIT 64";
/// Active matches (status `$2`) untouched since `$1` whose bots are not playing: abandoned,
/// for the match service to abort itself (`--events`).
pub(crate) const ABANDONED: &str = "SELECT id, version FROM matches WHERE status = $2 AND NOT driving \
                       AND touched_ms < $1 LIMIT 1000";
pub(crate) const STALLED: &str = "SELECT id FROM matches WHERE status = $2 AND driving AND touched_ms < $1 \
                       LIMIT 64";

/// Matches in id order after `$1`, at most `$2`, active ones (status `$4`, [`ACTIVE`]) only
/// unless `$3`; the first bytes of the state (enough for the game's name).
pub(crate) const LIST: &str = "SELECT id, header, substring(state from 1 for 80), status, \
                               move_number, driving, ended_at_ms FROM matches \
                               WHERE id > $1 AND ($3 OR status = $4) ORDER BY id LIMIT $2";

/// Bytes of one action in the `tail` column (unsigned, big-endian).
pub(crate) const TAIL_BYTES: usize = 4;

/// A change whose move numbers cross a multiple of this rewrites the whole state (a
/// snapshot) instead of appending its actions, so that a match's tail stays short.
pub(crate) const SNAPSHOT_EVERY: u64 = 128;

/// The mutable columns of a match, as one change leaves them.
#[derive(Debug)]
pub(crate) struct Row {
    /// The whole state (a snapshot), or `None` to append `tail` to the stored one.
    pub state: Option<Vec<u8>>,
    /// The actions to append ([`TAIL_BYTES`] each); empty with a snapshot.
    pub tail: Vec<u8>,
    pub move_number: u64,
    pub status: i32,
    pub resigned_seat: Option<u32>,
    pub ended_at_ms: u64,
    pub touched_ms: u64,
    pub driving: bool,
    /// The match's table ([`crate::store::TableRecord`], encoded), if it has one.
    pub table: Option<Vec<u8>>,
    /// Its running clock's deadline (Unix ms).
    pub deadline_ms: Option<u64>,
}

impl Row {
    /// The columns of `m` after a change, as a snapshot (`move_number` actions in its
    /// history; `driving`: bots or chance are to move), touched now.
    pub(crate) fn snapshot(m: StoredMatch, move_number: u64, driving: bool) -> Row {
        let deadline_ms = m
            .table
            .as_ref()
            .and_then(|t| t.deadline_ms)
            .filter(|_| m.status == ACTIVE);
        Row {
            table: m.table.as_ref().map(prost::Message::encode_to_vec),
            deadline_ms,
            state: Some(m.state),
            tail: Vec::new(),
            move_number,
            status: m.status,
            resigned_seat: m.resigned_seat,
            ended_at_ms: m.ended_at_ms,
            touched_ms: crate::clock::now_ms(),
            driving,
        }
    }

    /// The columns of an active match after `actions` were applied to it, bringing its
    /// history to `move_number` actions, touched now: the actions are appended.
    pub(crate) fn appended(actions: &[u32], move_number: u64, driving: bool) -> Row {
        Row {
            state: None,
            tail: actions.iter().flat_map(|a| a.to_be_bytes()).collect(),
            move_number,
            status: ACTIVE,
            resigned_seat: None,
            ended_at_ms: 0,
            touched_ms: crate::clock::now_ms(),
            driving,
            table: None,
            deadline_ms: None,
        }
    }
}

/// Whether a change of `n` actions from move number `from` writes a snapshot rather than
/// appending (it crosses a multiple of [`SNAPSHOT_EVERY`]).
pub(crate) fn snapshot_due(from: u64, n: u64) -> bool {
    from / SNAPSHOT_EVERY != (from + n) / SNAPSHOT_EVERY
}

/// `state` with the actions of `tail` appended to its history: the match a row holds.
///
/// # Errors
/// What is wrong (a tail not a whole number of actions, a state that does not decode), for
/// the operator's log.
pub(crate) fn with_tail(state: Vec<u8>, tail: &[u8]) -> Result<Vec<u8>, String> {
    if tail.is_empty() {
        return Ok(state);
    }
    if !tail.len().is_multiple_of(TAIL_BYTES) {
        return Err(format!(
            "the tail of moves is {} bytes, not a whole number of {TAIL_BYTES}-byte actions",
            tail.len()
        ));
    }
    let mut record = cardhouse::codec::Record::from_bytes(&state)
        .map_err(|e| format!("the state does not decode or replay: {e}"))?;
    record.history.extend(
        tail.chunks_exact(TAIL_BYTES)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
    );
    Ok(record.to_bytes())
}

pub(crate) fn pg_error(e: &tokio_postgres::Error) -> String {
    // The database error's own message (with its code) if there is one.
    // Otherwise the error and its cause (a TLS handshake's reason, an I/O error).
    match (e.as_db_error(), std::error::Error::source(e)) {
        (Some(db), _) => format!("{} ({})", db.message(), db.code().code()),
        (None, Some(cause)) => format!("{e}: {cause}"),
        (None, None) => e.to_string(),
    }
}

pub(crate) fn failed(what: impl std::fmt::Display) -> StoreError {
    StoreError::Failed {
        what: format!("PostgreSQL: {what}"),
    }
}

pub(crate) fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

pub(crate) fn as_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// The immutable part of `m`, as the `header` column holds it.
pub(crate) fn header_bytes(m: &StoredMatch) -> Vec<u8> {
    let header = StoredMatch {
        id: String::new(),
        state: Vec::new(),
        status: 0,
        resigned_seat: None,
        ended_at_ms: 0,
        // The table changes: its own column holds it.
        table: None,
        ..m.clone()
    };
    prost::Message::encode_to_vec(&header)
}

/// The game's name at the start of a state's bytes (`cardhouse::codec`'s layout: the magic,
/// the format byte, then the name's length and UTF-8), or `None`.
pub(crate) fn game_name(prefix: &[u8]) -> Option<String> {
    let rest = prefix.strip_prefix(cardhouse::codec::MAGIC)?.get(1..)?;
    let (&len, rest) = rest.split_first()?;
    // Names are short: a one-byte varint.
    (len < 0x80).then_some(())?;
    let name = rest.get(..usize::from(len))?;
    String::from_utf8(name.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::{SNAPSHOT_EVERY, snapshot_due, with_tail};

    #[test]
    fn a_snapshot_is_due_when_a_change_crosses_a_multiple() {
        assert!(!snapshot_due(0, 1));
        assert!(!snapshot_due(SNAPSHOT_EVERY - 3, 2));
        assert!(snapshot_due(SNAPSHOT_EVERY - 3, 3));
        assert!(snapshot_due(SNAPSHOT_EVERY - 1, 200));
        assert!(!snapshot_due(SNAPSHOT_EVERY, 5));
    }

    #[test]
    fn a_tail_extends_the_history_of_its_state() {
        let game = cardhouse::new_game("jass", &cardhouse::Options::new()).unwrap();
        let mut state = game.new_initial_state();
        let before = state.to_bytes();
        let mut tail = Vec::new();
        for _ in 0..40 {
            let a = state.legal_actions().iter().next().unwrap();
            state.apply(a).unwrap();
            tail.extend(a.to_be_bytes());
        }
        assert_eq!(with_tail(before.clone(), &tail).unwrap(), state.to_bytes());
        assert_eq!(with_tail(before.clone(), &[]).unwrap(), before);
        let err = with_tail(before, &tail[..5]).unwrap_err();
        assert!(err.contains("5 bytes"), "{err}");
        let err = with_tail(b"junk".to_vec(), &tail).unwrap_err();
        assert!(err.contains("does not decode"), "{err}");
    }
}
