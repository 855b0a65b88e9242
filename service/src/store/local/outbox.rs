//! The data directory's outbox (`--events`): events are written in the same commit as the
//! change that made them, in the change's log entry (moves) or in the `outbox` table (a
//! header: a match created or ended); once published, the relay appends a marker naming
//! each match's last event relayed. At open, every event of the table and the log not
//! covered by a marker is pending: the fold rewrites the table to hold exactly those
//! (before the log that held the rest is replaced), and the relay is handed them again.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use redb::WriteTransaction;

use crate::store::OutboxEvent;
use crate::store::StoreError;
use crate::store::local::layout::{OUTBOX, db_error};
use crate::store::local::log::{LogEntry, LoggedEvent};

/// The events pending at open, and whether the `outbox` table must be rewritten to hold
/// exactly them.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub(crate) events: Vec<OutboxEvent>,
    pub(crate) changed: bool,
}

/// The events of the `outbox` table (`table`: key and encoded value) and of the log's
/// `records`, less those the log's relay markers cover, each match's in sequence order.
pub(crate) fn pending(table: Vec<((String, u64), Vec<u8>)>, records: &[(u64, Vec<u8>)]) -> Pending {
    let mut events: BTreeMap<(String, u64), LoggedEvent> = BTreeMap::new();
    let rows: BTreeSet<(String, u64)> = table.iter().map(|(k, _)| k.clone()).collect();
    for ((id, seq), bytes) in table {
        match <LoggedEvent as prost::Message>::decode(bytes.as_slice()) {
            Ok(e) => {
                events.insert((id, seq), e);
            }
            Err(e) => {
                tracing::warn!(match_id = %id, seq, error = %e, "an outbox row that does not decode is dropped");
            }
        }
    }
    let mut relayed: HashMap<String, u64> = HashMap::new();
    for (_, bytes) in records {
        // An entry that does not decode is the fold's to report.
        let Ok(entry) = <LogEntry as prost::Message>::decode(bytes.as_slice()) else {
            continue;
        };
        for r in entry.relayed {
            let upto = relayed.entry(r.id).or_default();
            *upto = (*upto).max(r.seq);
        }
        for e in entry.events {
            events.insert((entry.id.clone(), e.seq), e);
        }
    }
    events.retain(|(id, seq), _| relayed.get(id).is_none_or(|upto| seq > upto));
    // Any difference (a row to drop, an event of the log to keep) rewrites the table.
    let changed = events.len() != rows.len() || !events.keys().all(|k| rows.contains(k));
    Pending {
        events: events
            .into_iter()
            .map(|((match_id, seq), e)| OutboxEvent {
                match_id,
                seq,
                subject: e.subject,
                payload: e.payload,
            })
            .collect(),
        changed,
    }
}

/// An event as a log entry or the table holds it.
pub(crate) fn logged(e: &OutboxEvent) -> LoggedEvent {
    LoggedEvent {
        seq: e.seq,
        subject: e.subject.clone(),
        payload: e.payload.clone(),
    }
}

/// Adds `events` to the `outbox` table in `txn`.
pub(crate) fn insert(txn: &WriteTransaction, events: &[OutboxEvent]) -> Result<(), StoreError> {
    if events.is_empty() {
        return Ok(());
    }
    let mut table = txn.open_table(OUTBOX).map_err(db_error)?;
    for e in events {
        let value = prost::Message::encode_to_vec(&logged(e));
        table
            .insert((e.match_id.as_str(), e.seq), value.as_slice())
            .map_err(db_error)?;
    }
    Ok(())
}

/// Makes the `outbox` table hold exactly `events` (the fold's commit).
pub(crate) fn replace(txn: &WriteTransaction, events: &[OutboxEvent]) -> Result<(), StoreError> {
    txn.delete_table(OUTBOX).map_err(db_error)?;
    insert(txn, events)
}

#[cfg(test)]
mod tests {
    use super::pending;
    use crate::store::local::log::{LogEntry, LoggedEvent, Relayed};

    fn logged(seq: u64) -> LoggedEvent {
        LoggedEvent {
            seq,
            subject: "cardhouse.match.jass.m".into(),
            payload: vec![seq as u8],
        }
    }

    fn record(entry: &LogEntry) -> (u64, Vec<u8>) {
        (0, prost::Message::encode_to_vec(entry))
    }

    #[test]
    fn pending_is_the_table_and_the_log_less_what_was_relayed() {
        let row = |id: &str, seq| {
            (
                (id.to_owned(), seq),
                prost::Message::encode_to_vec(&logged(seq)),
            )
        };
        // Created (in the table), then moves (in the log), partly relayed.
        let table = vec![row("a", 1), row("b", 1)];
        let records = vec![
            record(&LogEntry {
                id: "a".into(),
                actions: vec![3],
                events: vec![logged(2), logged(3)],
                ..LogEntry::default()
            }),
            record(&LogEntry {
                relayed: vec![Relayed {
                    id: "a".into(),
                    seq: 2,
                }],
                ..LogEntry::default()
            }),
            record(&LogEntry {
                id: "b".into(),
                actions: vec![4],
                events: vec![logged(2)],
                ..LogEntry::default()
            }),
        ];
        let p = pending(table.clone(), &records);
        let got: Vec<(String, u64)> = p
            .events
            .iter()
            .map(|e| (e.match_id.clone(), e.seq))
            .collect();
        let want: Vec<(String, u64)> = vec![("a".into(), 3), ("b".into(), 1), ("b".into(), 2)];
        assert_eq!(got, want);
        assert!(p.changed);
        assert_eq!(p.events[0].payload, vec![3]);
        // A table holding exactly what is pending, and a log with nothing: nothing to rewrite.
        let table = vec![row("a", 3), row("b", 1), row("b", 2)];
        let again = pending(table, &[]);
        assert_eq!(again.events, p.events);
        assert!(!again.changed);
        // Nothing at all (a store that never had `--events`).
        let none = pending(
            Vec::new(),
            &[record(&LogEntry {
                id: "c".into(),
                actions: vec![1, 2],
                ..LogEntry::default()
            })],
        );
        assert!(none.events.is_empty() && !none.changed);
    }
}
