//! The outbox in PostgreSQL (`--events`): the `outbox` table (migration 4), written by the
//! statement that writes the changes (or creates the match), and relayed by one replica at
//! a time.
//!
//! **Writing.** With events in a batch, the batch's statement becomes `WITH c AS (<the
//! update>) INSERT INTO outbox … WHERE match_id IN (SELECT id FROM c)`: one statement, one
//! transaction, so a change's events are committed exactly when the change is (a change
//! that met another version writes neither). Its snapshots also rewrite the `header`
//! column, which then holds the match's count of notices (which numbers its events with
//! the history: see `matches/events.rs`). A batch without events runs the statement it
//! always ran.
//!
//! **Relaying.** The replica holding the session advisory lock [`sql::RELAY_LOCK`] on a
//! connection of its own relays every replica's events, in `id` order (commit order per
//! match), and deletes them once published. The others try for the lock each second: a
//! replica that dies (or loses that connection) releases it with its session, and another
//! takes over from the rows left, so an event committed by a replica killed before its relay
//! is relayed by another.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use tokio::sync::{Mutex, Notify};

use crate::store::pg::sql::{
    INSERT, RELAY_LOCK, UPDATE_MANY, UPDATE_ONE, as_i64, as_u64, pg_error,
};
use crate::store::pg::tls::PgConnect;
use crate::store::{Outbox, OutboxEvent, StoreError, StoreFuture};

/// The events of a statement, as its four last array parameters.
const EVENTS: &str = "INSERT INTO outbox (match_id, seq, subject, payload) \
                      SELECT v.match_id, v.seq, v.subject, v.payload \
                      FROM unnest($13::text[], $14::bigint[], $15::text[], $16::bytea[]) \
                      WITH ORDINALITY AS v(match_id, seq, subject, payload, ord)";

/// [`UPDATE_MANY`] with the events of the changes it applies (`$13`-`$16`), and the header
/// of each snapshot (`$17`, by the change's place in `$1`; null for the others).
pub(crate) static UPDATE_MANY_EVENTS: LazyLock<String> = LazyLock::new(|| {
    let update = UPDATE_MANY.replacen(
        "UPDATE matches AS m SET state = ",
        "UPDATE matches AS m SET header = COALESCE(($17::bytea[])[array_position($1::text[], \
         m.id)], m.header), state = ",
        1,
    );
    format!(
        "WITH c AS ({update}), e AS ({EVENTS} WHERE v.match_id IN (SELECT id FROM c) \
         ORDER BY v.ord ON CONFLICT DO NOTHING) SELECT id FROM c"
    )
});

/// [`UPDATE_ONE`] with the events of its change (`$13`-`$16`), and its header if it is a
/// snapshot (`$17`).
pub(crate) static UPDATE_ONE_EVENTS: LazyLock<String> = LazyLock::new(|| {
    let update = UPDATE_ONE.replacen(
        "UPDATE matches SET state = ",
        "UPDATE matches SET header = COALESCE($17::bytea, header), state = ",
        1,
    );
    format!(
        "WITH c AS ({update}), e AS ({EVENTS} WHERE EXISTS (SELECT 1 FROM c) \
         ORDER BY v.ord ON CONFLICT DO NOTHING) SELECT id FROM c"
    )
});

/// [`INSERT`] (a match created) with its first events (`$13`-`$16`).
pub(crate) static INSERT_EVENTS: LazyLock<String> = LazyLock::new(|| {
    let insert = INSERT.replacen("INSERT INTO matches", ", ins AS (INSERT INTO matches", 1);
    format!(
        "{insert} RETURNING id), e AS ({EVENTS} WHERE EXISTS (SELECT 1 FROM ins) \
         ORDER BY v.ord ON CONFLICT DO NOTHING) SELECT id FROM ins"
    )
});

/// The four array parameters of `events`.
pub(crate) struct Columns<'a> {
    pub(crate) ids: Vec<&'a str>,
    pub(crate) seqs: Vec<i64>,
    pub(crate) subjects: Vec<&'a str>,
    pub(crate) payloads: Vec<&'a [u8]>,
}

impl<'a> Columns<'a> {
    pub(crate) fn of(events: impl Iterator<Item = &'a OutboxEvent>) -> Columns<'a> {
        let mut c = Columns {
            ids: Vec::new(),
            seqs: Vec::new(),
            subjects: Vec::new(),
            payloads: Vec::new(),
        };
        for e in events {
            c.ids.push(&e.match_id);
            c.seqs.push(as_i64(e.seq));
            c.subjects.push(&e.subject);
            c.payloads.push(&e.payload);
        }
        c
    }
}

/// The events of every replica, relayed by the one holding the lock.
pub(crate) struct PgOutbox {
    connect: PgConnect,
    /// This replica's connection for the lock, and whether it holds it.
    holder: Mutex<Option<(tokio_postgres::Client, bool)>>,
    /// Poked when this replica commits events.
    pub(crate) wake: Arc<Notify>,
}

impl PgOutbox {
    pub(crate) fn new(connect: PgConnect, wake: Arc<Notify>) -> PgOutbox {
        PgOutbox {
            connect,
            holder: Mutex::new(None),
            wake,
        }
    }

    /// The events waiting (up to `limit`), if this replica holds the lock; none otherwise.
    async fn read(&self, limit: usize) -> Result<Option<Vec<OutboxEvent>>, StoreError> {
        let mut holder = self.holder.lock().await;
        if holder.as_ref().is_some_and(|(c, _)| c.is_closed()) {
            *holder = None;
        }
        if holder.is_none() {
            *holder = Some((self.connect.connect().await?, false));
        }
        let Some((client, locked)) = holder.as_mut() else {
            return Ok(None);
        };
        let failed = |e: tokio_postgres::Error| StoreError::Db(pg_error(&e));
        if !*locked {
            let row = client
                .query_one("SELECT pg_try_advisory_lock($1)", &[&RELAY_LOCK])
                .await;
            let got: bool = match row {
                Ok(row) => row.get(0),
                Err(e) => {
                    *holder = None;
                    return Err(failed(e));
                }
            };
            *locked = got;
            if !got {
                return Ok(None);
            }
            tracing::info!("events: this replica relays the outbox");
        }
        let rows = client
            .query(
                "SELECT match_id, seq, subject, payload FROM outbox ORDER BY id LIMIT $1",
                &[&as_i64(limit as u64)],
            )
            .await;
        match rows {
            Ok(rows) => Ok(Some(
                rows.iter()
                    .map(|r| OutboxEvent {
                        match_id: r.get(0),
                        seq: as_u64(r.get(1)),
                        subject: r.get(2),
                        payload: r.get(3),
                    })
                    .collect(),
            )),
            Err(e) => {
                // The lock went with the session, if the session is gone.
                *holder = None;
                Err(failed(e))
            }
        }
    }
}

impl Outbox for PgOutbox {
    fn pending(&self, limit: usize) -> StoreFuture<'_, Result<Vec<OutboxEvent>, StoreError>> {
        Box::pin(async move {
            match self.read(limit).await? {
                Some(events) if !events.is_empty() => Ok(events),
                // Nothing waiting: until this replica commits events, or another's show.
                Some(_) => {
                    let _ = tokio::time::timeout(Duration::from_millis(200), self.wake.notified())
                        .await;
                    Ok(Vec::new())
                }
                // Another replica relays: try for the lock again in a second.
                None => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    Ok(Vec::new())
                }
            }
        })
    }

    fn relayed<'a>(&'a self, upto: &'a [(String, u64)]) -> StoreFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let holder = self.holder.lock().await;
            let Some((client, true)) = holder.as_ref() else {
                return Ok(());
            };
            let ids: Vec<&str> = upto.iter().map(|(id, _)| id.as_str()).collect();
            let seqs: Vec<i64> = upto.iter().map(|(_, s)| as_i64(*s)).collect();
            client
                .execute(
                    "DELETE FROM outbox o USING unnest($1::text[], $2::bigint[]) AS r(match_id, seq) \
                     WHERE o.match_id = r.match_id AND o.seq <= r.seq",
                    &[&ids, &seqs],
                )
                .await
                .map(drop)
                .map_err(|e| StoreError::Db(pg_error(&e)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{INSERT_EVENTS, UPDATE_MANY_EVENTS, UPDATE_ONE_EVENTS};

    #[test]
    fn the_statements_with_events_are_the_plain_ones_wrapped() {
        for (sql, header) in [
            (UPDATE_MANY_EVENTS.as_str(), true),
            (UPDATE_ONE_EVENTS.as_str(), true),
            (INSERT_EVENTS.as_str(), false),
        ] {
            assert!(sql.contains("INSERT INTO outbox"), "{sql}");
            assert!(sql.contains("ON CONFLICT DO NOTHING"), "{sql}");
            assert_eq!(sql.contains("SET header = COALESCE("), header, "{sql}");
        }
        assert!(INSERT_EVENTS.contains(", ins AS (INSERT INTO matches"));
    }
}
