//! The statements a replica runs, on a pool of connections: reads retried once on a fresh
//! connection, writes never (their outcome would be unknown).

use std::sync::Arc;

use deadpool_postgres::Pool;
use tokio::sync::{Notify, mpsc};

use crate::store::pg::outbox::{Columns, INSERT_EVENTS};
use crate::store::pg::sql::{
    ABANDON, ABORTED, ACTIVE, EXPIRE, INSERT, Row, as_i64, failed, header_bytes, pg_error,
};
use crate::store::{CommitError, OutboxEvent, StoreError, StoredMatch, Swept};

/// The pool, and the queue of notices to send after committed changes. Cheap to clone: a
/// write runs in a task of its own with a clone.
#[derive(Clone)]
pub(crate) struct Db {
    pub(crate) pool: Pool,
    /// To the notifying task: payloads of committed changes (`None`: notices are off).
    pub(crate) notices: Option<mpsc::UnboundedSender<String>>,
    /// This store's mark on its notices, by which its own listener knows and skips them.
    pub(crate) origin: u64,
    /// Poked when this replica commits events (`--events`): its relay looks at once.
    pub(crate) events: Arc<Notify>,
}

impl Db {
    /// Wakes this replica's relay: events were committed.
    pub(crate) fn events_written(&self) {
        self.events.notify_one();
    }

    /// Queues a notice for the other replicas (if notices are on), marked as this store's.
    pub(crate) fn notice(&self, payload: String) {
        if let Some(notices) = &self.notices {
            let _ = notices.send(format!("{:x} {payload}", self.origin));
        }
    }

    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| failed(format!("no connection: {e}")))
    }

    /// Runs a read of the hot path, prepared once per connection (and its plan kept: see
    /// [`crate::store::pg::sql`] on why such a statement must reach rows by their key);
    /// once more on a fresh connection if the pooled one turned out closed (the database
    /// restarted, or an operator ended the session). Writes are never retried: their outcome
    /// would be unknown.
    pub(crate) async fn read(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        self.read_as(sql, params, true).await
    }

    /// [`Db::read`] for a statement run now and then (a periodic scan, an operator's
    /// listing): planned anew at each run for the table as it is then. A plan kept from a
    /// connection's first use, when the table may have been empty, would scan the whole
    /// table for ever after (until an ANALYZE) where an index serves.
    pub(crate) async fn read_seldom(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        self.read_as(sql, params, false).await
    }

    async fn read_as(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
        keep: bool,
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let client = self.client().await?;
            let result = if keep {
                match client.prepare_cached(sql).await {
                    Ok(stmt) => client.query(&stmt, params).await,
                    Err(e) => Err(e),
                }
            } else {
                // An unnamed statement: parsed and planned for this run only.
                client.query(sql, params).await
            };
            match result {
                Ok(rows) => return Ok(rows),
                Err(e) if e.is_closed() && attempt < 2 => {
                    tracing::warn!(error = %pg_error(&e), "a PostgreSQL connection was closed; reading again");
                }
                Err(e) => return Err(failed(pg_error(&e))),
            }
        }
    }

    /// Runs one writing statement; returns the rows it changed. Never retried: if it fails,
    /// whether it committed is unknown.
    pub(crate) async fn write(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, CommitError> {
        let (client, stmt) = self.prepared(sql).await.map_err(CommitError::Failed)?;
        client
            .execute(&stmt, params)
            .await
            .map_err(|e| CommitError::Failed(format!("PostgreSQL: {}", pg_error(&e))))
    }

    /// A pooled connection and `sql` prepared on it, for a write (not retried).
    ///
    /// # Errors
    /// No connection, or the statement does not prepare: the message, for
    /// [`CommitError::Failed`].
    pub(crate) async fn prepared(
        &self,
        sql: &str,
    ) -> Result<(deadpool_postgres::Object, tokio_postgres::Statement), String> {
        let client = self
            .pool
            .get()
            .await
            .map_err(|e| format!("PostgreSQL: no connection: {e}"))?;
        let stmt = client
            .prepare_cached(sql)
            .await
            .map_err(|e| format!("PostgreSQL: {}", pg_error(&e)))?;
        Ok((client, stmt))
    }

    /// Inserts a new match (version 0) if fewer than `max_matches` exist.
    ///
    /// # Errors
    /// [`CommitError::Full`] at the limit; [`CommitError::Failed`] otherwise.
    pub(crate) async fn insert(
        &self,
        m: StoredMatch,
        move_number: u64,
        driving: bool,
        max_matches: usize,
        events: &[OutboxEvent],
    ) -> Result<(), CommitError> {
        let header = header_bytes(&m);
        let id = m.id.clone();
        let row = Row::snapshot(m, move_number, driving);
        let resigned = row.resigned_seat.map(|s| s as i32);
        let e = Columns::of(events.iter());
        let (moves, ended) = (as_i64(row.move_number), as_i64(row.ended_at_ms));
        let (touched, max) = (as_i64(row.touched_ms), as_i64(max_matches as u64));
        let deadline = row.deadline_ms.map(as_i64);
        let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
            &id,
            &header,
            &row.state,
            &moves,
            &row.status,
            &resigned,
            &ended,
            &touched,
            &row.driving,
            &max,
            &row.table,
            &deadline,
        ];
        let sql = if events.is_empty() {
            INSERT
        } else {
            params.extend([
                &e.ids as &(dyn tokio_postgres::types::ToSql + Sync),
                &e.seqs,
                &e.subjects,
                &e.payloads,
            ]);
            INSERT_EVENTS.as_str()
        };
        if self.write(sql, &params).await? == 0 {
            return Err(CommitError::Full);
        }
        if !events.is_empty() {
            self.events_written();
        }
        Ok(())
    }

    /// Aborts active matches untouched since `abandoned_before` (whose bots are not playing)
    /// and deletes ended matches that ended before `ended_before` (at most 1,000 a call).
    ///
    /// # Errors
    /// The database's.
    pub(crate) async fn sweep(
        &self,
        now_ms: u64,
        abandoned_before: u64,
        ended_before: u64,
    ) -> Result<Swept, StoreError> {
        let client = self.client().await?;
        let aborted = client
            .query(
                ABANDON,
                &[
                    &as_i64(now_ms),
                    &as_i64(abandoned_before),
                    &ABORTED,
                    &ACTIVE,
                ],
            )
            .await
            .map_err(|e| failed(pg_error(&e)))?;
        let deleted = client
            .query(EXPIRE, &[&as_i64(ended_before), &ACTIVE])
            .await
            .map_err(|e| failed(pg_error(&e)))?;
        let aborted: Vec<String> = aborted
            .iter()
            .map(|r| {
                let id: String = r.get(0);
                self.notice(format!("{id} {}", r.get::<_, i64>(1)));
                id
            })
            .collect();
        let deleted: Vec<String> = deleted
            .iter()
            .map(|r| {
                let id: String = r.get(0);
                self.notice(format!("{id} -1"));
                id
            })
            .collect();
        Ok(Swept { aborted, deleted })
    }
}
