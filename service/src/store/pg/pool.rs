//! The statements a replica runs, on a pool of connections: reads retried once on a fresh
//! connection, writes never (their outcome would be unknown).

use deadpool_postgres::Pool;
use tokio::sync::mpsc;

use crate::store::pg::sql::{
    ABANDON, ABORTED, ACTIVE, EXPIRE, INSERT, LOAD, Row, UPDATE, as_i64, as_u64, failed,
    header_bytes, pg_error,
};
use crate::store::{CommitError, Damaged, Loaded, Newer, StoreError, StoredMatch, Swept};

/// The pool, and the queue of notices to send after committed changes. Cheap to clone: a
/// write runs in a task of its own with a clone.
#[derive(Clone)]
pub(crate) struct Db {
    pub(crate) pool: Pool,
    /// To the notifying task: payloads of committed changes (`None`: notices are off).
    pub(crate) notices: Option<mpsc::UnboundedSender<String>>,
}

impl Db {
    /// Queues a notice for the other replicas (if notices are on).
    pub(crate) fn notice(&self, payload: String) {
        if let Some(notices) = &self.notices {
            let _ = notices.send(payload);
        }
    }

    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| failed(format!("no connection: {e}")))
    }

    /// Runs a read; once more on a fresh connection if the pooled one turned out closed (the
    /// database restarted, or an operator ended the session). Writes are never retried:
    /// their outcome would be unknown.
    pub(crate) async fn read(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let client = self.client().await?;
            let result = match client.prepare_cached(sql).await {
                Ok(stmt) => client.query(&stmt, params).await,
                Err(e) => Err(e),
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

    /// Match `id` if its version is not `known` (one query either way).
    ///
    /// # Errors
    /// The database's; a header that does not decode, or a negative resigned seat
    /// ([`StoreError::Damaged`]; the caller checks the rest, `store::check`).
    pub(crate) async fn load_newer(
        &self,
        id: &str,
        known: Option<u64>,
    ) -> Result<Newer, StoreError> {
        let known = known.map_or(-1, as_i64);
        let Some(row) = self.read(LOAD, &[&id, &known]).await?.into_iter().next() else {
            return Ok(Newer::Gone);
        };
        let version: i64 = row.get(0);
        let (Some(header), Some(state)) = (
            row.get::<_, Option<Vec<u8>>>(1),
            row.get::<_, Option<Vec<u8>>>(2),
        ) else {
            return Ok(Newer::Same);
        };
        let place = format!("PostgreSQL table matches, row {id}");
        let damaged = |what: String| {
            StoreError::Damaged(Damaged {
                id: id.to_owned(),
                place: place.clone(),
                what,
            })
        };
        let mut stored: StoredMatch = prost::Message::decode(header.as_slice())
            .map_err(|e| damaged(format!("the header does not decode: {e}")))?;
        stored.id = id.to_owned();
        stored.state = state;
        stored.status = row.get(3);
        stored.resigned_seat = match row.get::<_, Option<i32>>(4) {
            None => None,
            Some(s) => Some(
                u32::try_from(s).map_err(|_| damaged(format!("resigned seat {s} is negative")))?,
            ),
        };
        stored.ended_at_ms = as_u64(row.get(5));
        Ok(Newer::Changed(Box::new(Loaded {
            stored,
            version: as_u64(version),
            place,
        })))
    }

    /// Runs one writing statement; returns the rows it changed. Never retried: if it fails,
    /// whether it committed is unknown.
    pub(crate) async fn write(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, CommitError> {
        let fail = |what: String| CommitError::Failed(format!("PostgreSQL: {what}"));
        let client = self
            .pool
            .get()
            .await
            .map_err(|e| fail(format!("no connection: {e}")))?;
        let stmt = client
            .prepare_cached(sql)
            .await
            .map_err(|e| fail(pg_error(&e)))?;
        client
            .execute(&stmt, params)
            .await
            .map_err(|e| fail(pg_error(&e)))
    }

    /// Inserts a new match (version 0) if fewer than `max_matches` exist.
    ///
    /// # Errors
    /// [`CommitError::Full`] at the limit; [`CommitError::Failed`] otherwise.
    pub(crate) async fn insert(
        &self,
        m: &StoredMatch,
        row: &Row<'_>,
        max_matches: usize,
    ) -> Result<(), CommitError> {
        let header = header_bytes(m);
        let resigned = row.resigned_seat.map(|s| s as i32);
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 10] = [
            &m.id,
            &header,
            &row.state,
            &as_i64(row.move_number),
            &row.status,
            &resigned,
            &as_i64(row.ended_at_ms),
            &as_i64(row.touched_ms),
            &row.driving,
            &as_i64(max_matches as u64),
        ];
        if self.write(INSERT, &params).await? == 0 {
            return Err(CommitError::Full);
        }
        Ok(())
    }

    /// Writes `row` as version `version + 1` of match `id` if it is still at `version`.
    ///
    /// # Errors
    /// [`CommitError::Conflict`] if the match is no longer at `version` (or is gone);
    /// [`CommitError::Failed`] if the statement failed (its outcome is unknown).
    pub(crate) async fn update(
        &self,
        id: &str,
        version: u64,
        row: &Row<'_>,
    ) -> Result<(), CommitError> {
        let resigned = row.resigned_seat.map(|s| s as i32);
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] = [
            &id,
            &as_i64(version),
            &row.state,
            &as_i64(row.move_number),
            &row.status,
            &resigned,
            &as_i64(row.ended_at_ms),
            &as_i64(row.touched_ms),
            &row.driving,
        ];
        if self.write(UPDATE, &params).await? == 0 {
            return Err(CommitError::Conflict);
        }
        self.notice(format!("{id} {}", version + 1));
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
