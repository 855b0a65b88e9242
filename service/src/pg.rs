//! The PostgreSQL store: matches in a database that any number of `cardhouse serve`
//! replicas share (`--store postgres://…`).
//!
//! # Schema
//!
//! Created and migrated by the server at start with refinery's versioned migrations
//! (`service/migrations/V<n>__<name>.sql`, embedded in the binary; applied under an advisory
//! lock, so replicas starting together migrate once). Refinery records what it applied in
//! `refinery_schema_history`.
//!
//! * `matches`: one row per match: the immutable header (hashed tokens, seed, seats), the
//!   engine's state bytes (the whole history), `version` (changes committed), status,
//!   retention and abandonment times, and whether bots or chance are to move.
//! * `match_count`: the number of rows of `matches`, changed in the same statement as every
//!   insert and delete, so that `--max-matches` is exact across replicas.
//!
//! # Promises (the same as the embedded store's, see [`crate::store`])
//!
//! * **One statement per change**, acknowledged only after PostgreSQL committed it (the
//!   server warns at start if `synchronous_commit` is off, which gives this up). A change
//!   applies only if the row's `version` is still the one the replica read
//!   (`WHERE version = $n`); otherwise nothing is written and the replica reloads the match
//!   ([`CommitError::Conflict`]). So two replicas can never both apply a move for the same
//!   turn, and a replica that dies mid-request leaves the match as its last commit left it.
//! * **Change notices**: after each committed change the replica sends `NOTIFY
//!   cardhouse_changes, '<id> <version>'` (`-1` for a delete) from a connection of its own,
//!   batching whatever is waiting into one statement (see `notify` for why not in the
//!   change's own statement). Each replica listens on its own connection ([`Notice`]) and
//!   refreshes the matches it has watchers for; a lost listening connection is
//!   re-established and followed by a [`Notice::Resync`]; a notice lost with a crashed
//!   replica is made good by the watchers' once-a-second poll.
//! * **Errors are not guesses**: a failed statement whose outcome is unknown (a connection
//!   lost mid-commit) is [`CommitError::Failed`]; the caller drops its cached copy of the
//!   match and reloads it before the next change.
//!
//! Connections are plain TCP (`NoTls`): reach a remote database through a TLS-terminating
//! proxy or a private network.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures_util::StreamExt as _;
use tokio::sync::{mpsc, watch};
use tokio_postgres::{AsyncMessage, NoTls};

use crate::store::{CommitError, StoreError, StoredMatch};

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// The channel of change notices.
pub const CHANNEL: &str = "cardhouse_changes";
/// The advisory lock held while migrating ("cardhous").
const MIGRATION_LOCK: i64 = 0x6361_7264_686f_7573;
/// `pb::MatchStatus::Active`.
const ACTIVE: i32 = 1;
/// `pb::MatchStatus::Aborted`.
const ABORTED: i32 = 4;

/// The match if its version is not `$2` (one round trip whether or not it changed).
const LOAD: &str = "SELECT version, CASE WHEN version <> $2 THEN header END, \
                    CASE WHEN version <> $2 THEN state END, status, resigned_seat, ended_at_ms \
                    FROM matches WHERE id = $1";
const VERSIONS: &str = "SELECT id, version FROM matches WHERE id = ANY($1)";
const INSERT: &str = "WITH slot AS (UPDATE match_count SET n = n + 1 WHERE id = 1 AND n < $10 \
                      RETURNING n) \
                      INSERT INTO matches (id, header, state, version, move_number, status, \
                      resigned_seat, ended_at_ms, touched_ms, driving) \
                      SELECT $1, $2, $3, 0, $4, $5, $6, $7, $8, $9 FROM slot";
const UPDATE: &str = "UPDATE matches SET state = $3, version = version + 1, \
                      move_number = $4, status = $5, resigned_seat = $6, ended_at_ms = $7, \
                      touched_ms = $8, driving = $9 WHERE id = $1 AND version = $2";
/// Sends a batch of notices (the notifier's connection commits without waiting for the
/// disk: a notice is not data).
const NOTIFY: &str = "SELECT pg_notify('cardhouse_changes', p) FROM unnest($1::text[]) AS p";
/// Most notices sent in one statement.
const NOTIFY_BATCH: usize = 1024;
const ABANDON: &str = "WITH a AS (UPDATE matches SET status = $3, ended_at_ms = $1, \
                       version = version + 1, touched_ms = $1, driving = false \
                       WHERE status = $4 AND touched_ms < $2 AND NOT driving \
                       RETURNING id, version) \
                       SELECT id, version FROM a";
const EXPIRE: &str = "WITH gone AS (DELETE FROM matches WHERE id IN (SELECT id FROM matches \
                      WHERE status <> $2 AND ended_at_ms < $1 LIMIT 1000) RETURNING id), \
                      counted AS (UPDATE match_count SET n = n - (SELECT count(*) FROM gone) \
                      WHERE id = 1) \
                      SELECT id FROM gone";
const STALLED: &str = "SELECT id FROM matches WHERE status = $2 AND driving AND touched_ms < $1 \
                       LIMIT 64";

/// A message from the listening connection.
#[derive(Debug)]
pub enum Notice {
    /// Match `id` is now at `version`.
    Changed { id: String, version: u64 },
    /// Match `id` was deleted (retention).
    Deleted { id: String },
    /// Notices may have been missed (the listening connection was re-established).
    Resync,
}

/// What [`PgStore::load_newer`] found.
#[derive(Debug)]
pub enum Newer {
    /// No such match.
    Gone,
    /// The match is at the known version.
    Same,
    /// The match at another version.
    Changed(Loaded),
}

/// A match as read from the database.
#[derive(Debug)]
pub struct Loaded {
    pub stored: StoredMatch,
    pub version: u64,
}

/// The mutable columns of a match, as one change leaves them.
#[derive(Debug)]
pub struct Row<'a> {
    pub state: &'a [u8],
    pub move_number: u64,
    pub status: i32,
    pub resigned_seat: Option<u32>,
    pub ended_at_ms: u64,
    pub touched_ms: u64,
    pub driving: bool,
}

/// A connection pool to the database, and the listening task.
pub struct PgStore {
    pool: Pool,
    /// Set to stop the listening and notifying tasks.
    closing: watch::Sender<bool>,
    /// To the notifying task: payloads of committed changes (`None`: notices are off).
    notices: Option<mpsc::UnboundedSender<String>>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

fn pg_error(e: &tokio_postgres::Error) -> String {
    // The database error's own message (with its code) if there is one.
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    }
}

fn failed(what: impl std::fmt::Display) -> StoreError {
    StoreError::Failed {
        what: format!("PostgreSQL: {what}"),
    }
}

fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn as_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl PgStore {
    /// Connects to `url`, migrates the schema, and (with `notices`) starts listening for
    /// change notices and sending its own. A database without `LISTEN` (CockroachDB, for
    /// one) runs without notices, with a warning: then a `Watch` learns of moves made through
    /// other replicas only from the watchers' once-a-second poll.
    ///
    /// # Errors
    /// A bad URL, an unreachable database, or a failed migration, with the database's own
    /// message.
    pub async fn open(
        url: &str,
        pool_size: usize,
        notices: bool,
    ) -> Result<(PgStore, mpsc::UnboundedReceiver<Notice>), StoreError> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| failed(format!("the store URL does not parse: {e}")))?;
        // Migrate on a connection of its own, under an advisory lock.
        let (mut client, conn) = config
            .connect(NoTls)
            .await
            .map_err(|e| failed(format!("cannot connect: {}", pg_error(&e))))?;
        let driver = tokio::spawn(conn);
        client
            .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(|e| failed(pg_error(&e)))?;
        let report = embedded::migrations::runner()
            .run_async(&mut client)
            .await
            .map_err(|e| failed(format!("migrating the schema: {e}")));
        let unlock = client
            .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
            .await;
        let report = report?;
        unlock.map_err(|e| failed(pg_error(&e)))?;
        for m in report.applied_migrations() {
            tracing::info!(
                version = m.version(),
                name = m.name(),
                "applied a schema migration"
            );
        }
        let sync = client
            .query_one("SHOW synchronous_commit", &[])
            .await
            .map_err(|e| failed(pg_error(&e)))?;
        let sync: String = sync.get(0);
        if sync == "off" {
            tracing::warn!(
                "PostgreSQL has synchronous_commit = off: a database crash can lose moves \
                 the server acknowledged"
            );
        }
        drop(client);
        let _ = driver.await;

        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(10)))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| failed(format!("connection pool: {e}")))?;
        // One connection now, so that a wrong database fails the start, not the first request.
        drop(
            pool.get()
                .await
                .map_err(|e| failed(format!("cannot connect: {e}")))?,
        );

        let (tx, rx) = mpsc::unbounded_channel();
        let (closing, closed) = watch::channel(false);
        let listening = if notices {
            let (ready_tx, ready) = tokio::sync::oneshot::channel();
            tokio::spawn(listen(config.clone(), tx, closed.clone(), Some(ready_tx)));
            ready
                .await
                .map_err(|_| failed("the listening task ended"))?
                .map_err(failed)?
        } else {
            tracing::info!(
                "change notices are off: a Watch learns of moves made through other replicas \
                 within a second, from its poll"
            );
            false
        };
        let notices = listening.then(|| {
            let (notices, outgoing) = mpsc::unbounded_channel();
            tokio::spawn(notify(config, outgoing, closed));
            notices
        });
        Ok((
            PgStore {
                pool,
                closing,
                notices,
            },
            rx,
        ))
    }

    /// Queues a notice for the other replicas (if notices are on).
    fn notice(&self, payload: String) {
        if let Some(notices) = &self.notices {
            let _ = notices.send(payload);
        }
    }

    /// Stops listening and closes the pool.
    pub fn close(&self) {
        let _ = self.closing.send(true);
        self.pool.close();
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| failed(format!("no connection: {e}")))
    }

    /// Runs a read; once more on a fresh connection if the pooled one turned out closed (the
    /// database restarted, or an operator ended the session). Writes are never retried:
    /// their outcome would be unknown.
    async fn read(
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

    /// Match `id` as stored, with its version; `None` if there is no such match.
    ///
    /// # Errors
    /// The database's; a header that does not decode ([`StoreError::Corrupt`]).
    pub async fn load(&self, id: &str) -> Result<Option<Loaded>, StoreError> {
        Ok(match self.load_newer(id, None).await? {
            Newer::Changed(loaded) => Some(loaded),
            Newer::Gone | Newer::Same => None,
        })
    }

    /// Match `id` if its version is not `known` (one query either way).
    ///
    /// # Errors
    /// The database's; a header that does not decode ([`StoreError::Corrupt`]).
    pub async fn load_newer(&self, id: &str, known: Option<u64>) -> Result<Newer, StoreError> {
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
        let mut stored: StoredMatch =
            prost::Message::decode(header.as_slice()).map_err(|e| StoreError::Corrupt {
                path: format!("PostgreSQL table matches, row {id}").into(),
                what: format!("the header does not decode: {e}"),
            })?;
        stored.id = id.to_owned();
        stored.state = state;
        stored.status = row.get(3);
        stored.resigned_seat = row
            .get::<_, Option<i32>>(4)
            .and_then(|s| u32::try_from(s).ok());
        stored.ended_at_ms = as_u64(row.get(5));
        Ok(Newer::Changed(Loaded {
            stored,
            version: as_u64(version),
        }))
    }

    /// The versions of those of `ids` that exist.
    ///
    /// # Errors
    /// The database's.
    pub async fn versions(&self, ids: &[String]) -> Result<Vec<(String, u64)>, StoreError> {
        let rows = self.read(VERSIONS, &[&ids]).await?;
        Ok(rows
            .iter()
            .map(|r| (r.get::<_, String>(0), as_u64(r.get(1))))
            .collect())
    }

    /// Runs one writing statement; returns the rows it changed. Never retried: if it fails,
    /// whether it committed is unknown.
    async fn write(
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
    pub async fn insert(
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
    pub async fn update(&self, id: &str, version: u64, row: &Row<'_>) -> Result<(), CommitError> {
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
    /// Returns the ids aborted and the ids deleted.
    ///
    /// # Errors
    /// The database's.
    pub async fn sweep(
        &self,
        now_ms: u64,
        abandoned_before: u64,
        ended_before: u64,
    ) -> Result<(Vec<String>, Vec<String>), StoreError> {
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
        Ok((aborted, deleted))
    }

    /// Active matches whose bots or chance are to move and that no replica has advanced
    /// since `before_ms` (a replica died while playing them).
    ///
    /// # Errors
    /// The database's.
    pub async fn stalled(&self, before_ms: u64) -> Result<Vec<String>, StoreError> {
        let rows = self.read(STALLED, &[&as_i64(before_ms), &ACTIVE]).await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}

/// The immutable part of `m`, as the `header` column holds it.
fn header_bytes(m: &StoredMatch) -> Vec<u8> {
    let header = StoredMatch {
        id: String::new(),
        state: Vec::new(),
        status: 0,
        resigned_seat: None,
        ended_at_ms: 0,
        ..m.clone()
    };
    prost::Message::encode_to_vec(&header)
}

/// The listening task: `LISTEN cardhouse_changes` on a connection of its own, forwarding
/// each notice, reconnecting (with a [`Notice::Resync`]) whenever the connection is lost,
/// until `closed` is set or nobody takes notices any more.
async fn listen(
    config: tokio_postgres::Config,
    tx: mpsc::UnboundedSender<Notice>,
    mut closed: watch::Receiver<bool>,
    mut ready: Option<tokio::sync::oneshot::Sender<Result<bool, String>>>,
) {
    loop {
        let connected = config.connect(NoTls).await;
        let (client, mut conn) = match connected {
            Ok(c) => c,
            Err(e) => {
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Err(format!("cannot listen: {}", pg_error(&e))));
                    return;
                }
                tracing::warn!(error = %pg_error(&e), "cannot reconnect the PostgreSQL listener; retrying");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    _ = closed.wait_for(|&c| c) => return,
                }
            }
        };
        let (payloads, mut incoming) = mpsc::unbounded_channel::<String>();
        let driver = tokio::spawn(async move {
            let mut messages = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
            while let Some(m) = messages.next().await {
                match m {
                    Ok(AsyncMessage::Notification(n)) => {
                        if payloads.send(n.payload().to_owned()).is_err() {
                            return;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!(error = %pg_error(&e), "the PostgreSQL listener's connection failed");
                        return;
                    }
                }
            }
        });
        if let Err(e) = client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
            driver.abort();
            if e.code() == Some(&tokio_postgres::error::SqlState::FEATURE_NOT_SUPPORTED)
                && let Some(ready) = ready.take()
            {
                tracing::warn!(
                    error = %pg_error(&e),
                    "this database has no LISTEN: change notices are off, and a Watch learns \
                     of moves made through other replicas within a second, from its poll"
                );
                let _ = ready.send(Ok(false));
                return;
            }
            if let Some(ready) = ready.take() {
                let _ = ready.send(Err(format!("cannot listen: {}", pg_error(&e))));
                return;
            }
            continue;
        }
        match ready.take() {
            Some(ready) => {
                let _ = ready.send(Ok(true));
            }
            None => {
                tracing::info!("the PostgreSQL listener is back");
                if tx.send(Notice::Resync).is_err() {
                    return;
                }
            }
        }
        loop {
            let payload = tokio::select! {
                p = incoming.recv() => p,
                _ = closed.wait_for(|&c| c) => {
                    driver.abort();
                    return;
                }
            };
            let Some(payload) = payload else { break };
            let Some(notice) = parse_notice(&payload) else {
                tracing::warn!(payload = %crate::error::clip(&payload, 80), "an unexpected notice");
                continue;
            };
            if tx.send(notice).is_err() {
                driver.abort();
                return;
            }
        }
        drop(client);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
            _ = closed.wait_for(|&c| c) => return,
        }
    }
}

/// The notifying task: sends the notices of committed changes on a connection of its own,
/// everything waiting in one statement. Separate from the changes' own statements because
/// PostgreSQL serialises the commits of transactions that notify (a global lock held through
/// the commit's flush to disk): notifying in each change's statement cut the commit rate
/// about sixfold on our machines. A notice lost with a crashed replica or connection is made
/// good by the watchers' poll ([`crate::matches`]), within a second.
async fn notify(
    config: tokio_postgres::Config,
    mut outgoing: mpsc::UnboundedReceiver<String>,
    mut closed: watch::Receiver<bool>,
) {
    let mut batch: Vec<String> = Vec::new();
    loop {
        let connected = config.connect(NoTls).await;
        let (client, conn) = match connected {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %pg_error(&e), "cannot connect the PostgreSQL notifier; retrying");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    _ = closed.wait_for(|&c| c) => return,
                }
            }
        };
        let driver = tokio::spawn(conn);
        let setup = async {
            client.batch_execute("SET synchronous_commit = off").await?;
            client.prepare(NOTIFY).await
        };
        let stmt = match setup.await {
            Ok(stmt) => stmt,
            Err(e) => {
                tracing::warn!(error = %pg_error(&e), "cannot set up the PostgreSQL notifier; retrying");
                driver.abort();
                continue;
            }
        };
        loop {
            if batch.is_empty() {
                let first = tokio::select! {
                    p = outgoing.recv() => p,
                    _ = closed.wait_for(|&c| c) => None,
                };
                let Some(first) = first else {
                    driver.abort();
                    return;
                };
                batch.push(first);
                while batch.len() < NOTIFY_BATCH {
                    match outgoing.try_recv() {
                        Ok(p) => batch.push(p),
                        Err(_) => break,
                    }
                }
            }
            match client.execute(&stmt, &[&batch]).await {
                Ok(_) => batch.clear(),
                Err(e) => {
                    // Sent again on a new connection (a notice twice is harmless).
                    tracing::warn!(error = %pg_error(&e), "the PostgreSQL notifier failed; reconnecting");
                    driver.abort();
                    break;
                }
            }
        }
    }
}

/// `"<id> <version>"`, or `"<id> -1"` for a deletion.
fn parse_notice(payload: &str) -> Option<Notice> {
    let (id, version) = payload.split_once(' ')?;
    let id = id.to_owned();
    if version == "-1" {
        return Some(Notice::Deleted { id });
    }
    Some(Notice::Changed {
        id,
        version: version.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_parse() {
        assert!(matches!(
            parse_notice("ab12 7"),
            Some(Notice::Changed { id, version: 7 }) if id == "ab12"
        ));
        assert!(matches!(
            parse_notice("ab12 -1"),
            Some(Notice::Deleted { id }) if id == "ab12"
        ));
        assert!(parse_notice("ab12").is_none());
        assert!(parse_notice("ab12 x").is_none());
    }
}
