//! The PostgreSQL store: matches in a database that any number of `cardhouse serve`
//! replicas share (`--store postgres://…`).
//!
//! | file | concern | may call |
//! |---|---|---|
//! | `schema.rs` | the migrations, applied at start under an advisory lock | `sql`, `tls` |
//! | `sql.rs` | the statements, and the columns of a stored match | — |
//! | `batch.rs` | group commit: concurrent requests of one kind gathered into one statement | — |
//! | `changes.rs` | the changes of matches, written in batches | `outbox`, `pool`, `sql` |
//! | `loads.rs` | loads and revalidations, read in batches | `pool`, `sql` |
//! | `pool.rs` | the connection pool: reads retried once, creation, the sweep | `outbox`, `sql` |
//! | `notices.rs` | `LISTEN`/`NOTIFY` between replicas | `sql`, `tls` |
//! | `outbox.rs` | `--events`: the outbox's statements, and its relay by one replica at a time | `sql`, `tls` |
//! | `tls.rs` | `sslmode` and `sslrootcert` of the URL, and the TLS connector of every connection | `sql` |
//! | `mod.rs` | [`PgStore`] and its configuration ([`PgConfig`]): the contract kept in PostgreSQL | `batch`, `changes`, `loads`, `notices`, `outbox`, `pool`, `schema`, `sql`, `tls` |
//!
//! # Schema
//!
//! Created and migrated by the server at start with refinery's versioned migrations
//! (`service/migrations/V<n>__<name>.sql`, embedded in the binary; applied under an advisory
//! lock, so replicas starting together migrate once). Refinery records what it applied in
//! `refinery_schema_history`.
//!
//! * `matches`: one row per match: the immutable header (hashed tokens, seed, seats), the
//!   engine's state bytes as of the match's last snapshot (`state`) and the actions applied
//!   since (`tail`, 4 bytes each: the match is the state with them appended to its history),
//!   `version` (changes committed), status, retention and abandonment times, and whether
//!   bots or chance are to move.
//! * `match_count`: the number of rows of `matches`, changed in the same statement as every
//!   insert and delete, so that `--max-matches` is exact across replicas.
//! * `outbox` (`--events`): the events of committed changes not yet relayed (see
//!   [`outbox`]).
//!
//! # The write path
//!
//! * **Group commit.** Changes are queued at once and written in batches (`changes.rs`):
//!   every change waiting when a batch starts (up to 256) goes into one
//!   `UPDATE … FROM unnest(…)` statement, one transaction and one commit; four batches are in
//!   flight at most, so what arrives while they commit forms the next. One request alone is
//!   sent at once, as a batch of one. Loads and revalidations are batched alike
//!   (`loads.rs`, one `SELECT … FROM unnest(…)`). Every pooled connection plans these
//!   statements generically (`plan_cache_mode`), once.
//! * **Appending.** A change of actions alone (the match stays active) appends them to the
//!   row's `tail`: a few bytes written and logged whatever the history's length. A change
//!   that ends the match, or whose move numbers cross a multiple of 128, rewrites `state`
//!   whole and empties `tail` (a snapshot), so a tail stays short.
//! * **Revalidation** is one batched query that returns a match's version only, unless it
//!   changed (then the whole match); and a replica one version behind seldom needs even that:
//!   the change notice of a change of actions alone carries them (`"<id> <version> <from>
//!   <action>,…"`, up to 1,000 bytes), and the replica applies them to its cached copy
//!   (checked by the engine) when it is exactly one version behind and not in use.
//!
//! # Promises (the contract's, see [`crate::store`])
//!
//! * **Every change is version-checked and acknowledged after its commit**, alone or in a
//!   batch. A change applies only if the row's `version` is still the one the replica read
//!   (`WHERE m.version = c.version`, per change of the batch); otherwise that change writes
//!   nothing and its replica reloads the match ([`CommitError::Conflict`](crate::store::CommitError::Conflict)), while the rest of
//!   its batch is written. So two replicas can never both apply a move for the same turn, and
//!   a replica that dies mid-request leaves every match as its last commit left it. The
//!   server warns at start if `synchronous_commit` is off, which gives this up.
//! * **Change notices**: after each committed change the replica sends `NOTIFY
//!   cardhouse_changes, '<id> <version>[ <from> <actions>]'` (`-1` for a delete) from a
//!   connection of its own, batching whatever is waiting into one statement (see
//!   `notices::notify` for why not in the change's own statement). Each replica listens on its
//!   own connection ([`Notice`]) and brings up to date the matches it has cached one version
//!   behind, and reloads the ones it has watchers for otherwise; a lost listening connection
//!   is re-established and followed by a [`Notice::Resync`]; a notice lost with a crashed
//!   replica is made good by the watchers' once-a-second poll, and a stale cached copy by the
//!   version check of its next write.
//! * **Errors are not guesses**: a failed statement whose outcome is unknown (a connection
//!   lost mid-commit) is [`CommitError::Failed`](crate::store::CommitError::Failed) for every change of its batch; their callers
//!   drop their cached copies and reload them before the next change. A row whose tail is not
//!   whole actions, or whose state does not decode, is damage of that match
//!   ([`StoreError::Damaged`]).
//!
//! Connections are plain TCP unless the URL asks for TLS (`sslmode=require`, `verify-ca`,
//! `verify-full`, with `sslrootcert`): see [`tls`]. Every connection of the store (pool,
//! migration, listener, notifier) goes through the same connector.

mod batch;
mod changes;
mod loads;
mod notices;
mod outbox;
mod pool;
mod schema;
/// The statements (public for the tests that check their plans).
#[doc(hidden)]
pub mod sql;
pub mod tls;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio::sync::{mpsc, watch};

use crate::domain::{MatchStatus, Seat};
use crate::store::{
    Ack, Change, Listed, MatchStore, Newer, Notice, Outbox, OutboxEvent, SharedStore, StoreError,
    StoreFuture, StoredMatch, Swept,
};
use batch::Batcher;
use pool::Db;
use sql::{
    ABANDONED, ACTIVE, EXPIRED, LIST, Row, STALLED, VERSIONS, as_i64, as_u64, failed, game_name,
};
pub use tls::PgConnect;

/// The connections each replica keeps to PostgreSQL unless configured (`--store-pool-size`).
pub const DEFAULT_POOL_SIZE: usize = 16;

/// A PostgreSQL store's configuration (`--store`, `--store-pool-size`, `--store-notices`).
#[derive(Clone, Debug)]
pub struct PgConfig {
    /// `postgres://user@host:port/dbname`, with `sslmode` and `sslrootcert` for TLS
    /// ([`tls`]).
    pub url: String,
    /// Connections in the pool (besides one that listens for change notices and one that
    /// sends them).
    pub pool_size: usize,
    /// Send and listen for change notices (`LISTEN`/`NOTIFY`), so that a Watch sees moves
    /// made through other replicas at once; off, it sees them within a second (its poll).
    pub notices: bool,
}

impl PgConfig {
    /// The database at `url`, with the default pool ([`DEFAULT_POOL_SIZE`]) and notices on.
    #[must_use]
    pub fn new(url: impl Into<String>) -> PgConfig {
        PgConfig {
            url: url.into(),
            pool_size: DEFAULT_POOL_SIZE,
            notices: true,
        }
    }
}

/// A connection pool to the database, and the listening task.
pub struct PgStore {
    db: Db,
    /// Changes waiting for their batch ([`changes`]).
    changes: Batcher<changes::Pending>,
    /// Loads waiting for their batch ([`loads`]).
    loads: Batcher<loads::Pending>,
    /// Set to stop the listening and notifying tasks.
    closing: watch::Sender<bool>,
    /// Notices from the listening task, until the match service takes them.
    incoming: Mutex<Option<mpsc::UnboundedReceiver<Notice>>>,
    /// With `--events`: the outbox, relayed by one replica at a time.
    outbox: Option<outbox::PgOutbox>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

impl PgStore {
    /// The events to write: none without an outbox.
    fn events(&self, events: &[OutboxEvent]) -> Vec<OutboxEvent> {
        if self.outbox.is_some() {
            events.to_vec()
        } else {
            Vec::new()
        }
    }

    /// Connects to the database `config` names, migrates the schema, and (with its
    /// `notices`) starts listening for
    /// change notices and sending its own. A database without `LISTEN` (CockroachDB, for
    /// one) runs without notices, with a warning: then a `Watch` learns of moves made through
    /// other replicas only from the watchers' once-a-second poll.
    ///
    /// # Errors
    /// A bad URL, an unreachable database, or a failed migration, with the database's own
    /// message.
    pub async fn open(config: &PgConfig) -> Result<PgStore, StoreError> {
        PgStore::open_with(config, false).await
    }

    /// [`PgStore::open`], with an outbox if `outbox` (`--events`).
    ///
    /// # Errors
    /// As [`PgStore::open`].
    pub async fn open_with(config: &PgConfig, outbox: bool) -> Result<PgStore, StoreError> {
        let (pool_size, notices) = (config.pool_size, config.notices);
        let connect = PgConnect::parse(&config.url)?;
        let mut origin = [0u8; 8];
        getrandom::fill(&mut origin).map_err(|e| failed(format!("OS randomness: {e}")))?;
        let origin = u64::from_le_bytes(origin);
        schema::migrate(&connect).await?;
        let manager = Manager::from_config(
            connect.config.clone(),
            connect.tls.clone(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .post_create(deadpool_postgres::Hook::async_fn(|client, _| {
                Box::pin(async move {
                    // The batch statements join their arrays to the table: planned once,
                    // generically (an index lookup per element). Left to choose, PostgreSQL
                    // plans each execution anew for its array's length, which cost more CPU
                    // than the statement itself with a few changes a batch.
                    if let Err(e) = client
                        .batch_execute("SET plan_cache_mode = force_generic_plan")
                        .await
                    {
                        tracing::debug!(error = %sql::pg_error(&e), "plan_cache_mode not set");
                    }
                    Ok(())
                })
            }))
            .max_size(pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(10)))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| failed(format!("connection pool: {e}")))?;
        // One connection now, so that a wrong database fails the start, not the first request.
        drop(pool.get().await.map_err(|e| {
            failed(format!(
                "cannot connect: {e}{}",
                std::error::Error::source(&e).map_or_else(String::new, |s| format!(": {s}"))
            ))
        })?);
        let weak = pool.weak();
        crate::metrics::on_scrape(move || {
            let pool = weak.upgrade().filter(|p| !p.is_closed())?;
            let s = pool.status();
            crate::metrics::store_pool(s.max_size, s.size, s.available, s.waiting);
            Some(Box::pin(async {}))
        });

        let (tx, rx) = mpsc::unbounded_channel();
        let (closing, closed) = watch::channel(false);
        let listening = if notices {
            let (ready_tx, ready) = tokio::sync::oneshot::channel();
            tokio::spawn(notices::listen(
                connect.clone(),
                origin,
                tx,
                closed.clone(),
                Some(ready_tx),
            ));
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
        let events = Arc::new(tokio::sync::Notify::new());
        let outbox = outbox.then(|| outbox::PgOutbox::new(connect.clone(), Arc::clone(&events)));
        let notices = listening.then(|| {
            let (notices, outgoing) = mpsc::unbounded_channel();
            tokio::spawn(notices::notify(connect, outgoing, closed));
            notices
        });
        let db = Db {
            pool,
            notices,
            origin,
            events,
        };
        let writer = db.clone();
        let changes = Batcher::start(changes::MAX_BATCH, changes::IN_FLIGHT, move |batch| {
            changes::write(writer.clone(), batch)
        });
        let reader = db.clone();
        let loads = Batcher::start(loads::MAX_BATCH, loads::IN_FLIGHT, move |batch| {
            loads::read(reader.clone(), batch)
        });
        Ok(PgStore {
            db,
            changes,
            loads,
            closing,
            incoming: Mutex::new(Some(rx)),
            outbox,
        })
    }
}

impl MatchStore for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    fn is_persistent(&self) -> bool {
        true
    }

    fn has_failed(&self) -> bool {
        // A failed statement leaves the database consistent: only the match it was for must
        // be reloaded.
        false
    }

    fn shared(&self) -> Option<&dyn SharedStore> {
        Some(self)
    }

    fn outbox(&self) -> Option<&dyn Outbox> {
        self.outbox.as_ref().map(|o| o as &dyn Outbox)
    }

    fn submit_create(
        &self,
        m: &StoredMatch,
        move_number: u64,
        driving: bool,
        max_matches: usize,
        events: &[OutboxEvent],
    ) -> Result<Ack, StoreError> {
        let store = self.db.clone();
        let m = m.clone();
        let events = self.events(events);
        Ok(Ack::spawn(async move {
            store
                .insert(m, move_number, driving, max_matches, &events)
                .await
        }))
    }

    /// Queues the change for the next batch (`changes.rs`), written if the match is still at
    /// `change.version`: its actions appended, or the whole match when the change asks for
    /// a snapshot (the match ended) or its move numbers cross a multiple of
    /// `sql::SNAPSHOT_EVERY`.
    fn submit_change(&self, change: &Change<'_>) -> Result<Ack, StoreError> {
        let n = change.actions.len() as u64;
        let move_number = change.from + n;
        let mut header = None;
        let row = if change.snapshot || sql::snapshot_due(change.from, n) {
            let stored = (change.stored)();
            // With events, the header keeps the match's count of notices up to date.
            if self.outbox.is_some() {
                header = Some(sql::header_bytes(&stored));
            }
            Row::snapshot(stored, move_number, change.driving)
        } else {
            Row::appended(change.actions, move_number, change.driving)
        };
        let (done, ack) = Ack::pending();
        self.changes
            .push(changes::Pending {
                id: change.id.to_owned(),
                version: change.version,
                row,
                moves: (!change.snapshot).then(|| (change.from, change.actions.to_vec())),
                events: self.events(change.events),
                header,
                done,
            })
            .map_err(|_| StoreError::WriterGone)?;
        Ok(ack)
    }

    fn submit_delete(&self, _id: &str) -> Result<Ack, StoreError> {
        Err(StoreError::Failed {
            what: "a shared store deletes its matches itself (its sweep)".into(),
        })
    }

    /// Finishes the changes queued, then stops the notices and closes the pool.
    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async {
            self.changes.drain().await;
            let _ = self.closing.send(true);
            self.db.pool.close();
        })
    }
}

impl SharedStore for PgStore {
    fn load<'a>(
        &'a self,
        id: &'a str,
        known: Option<u64>,
    ) -> StoreFuture<'a, Result<Newer, StoreError>> {
        let (done, answer) = tokio::sync::oneshot::channel();
        let queued = self.loads.push(loads::Pending {
            id: id.to_owned(),
            known: known.map_or(-1, as_i64),
            done,
        });
        Box::pin(async move {
            queued.map_err(|_| failed("the store is closed"))?;
            answer.await.map_err(|_| failed("the store is closed"))?
        })
    }

    fn versions<'a>(
        &'a self,
        ids: &'a [String],
    ) -> StoreFuture<'a, Result<Vec<(String, u64)>, StoreError>> {
        Box::pin(async move {
            let rows = self.db.read(VERSIONS, &[&ids]).await?;
            Ok(rows
                .iter()
                .map(|r| (r.get::<_, String>(0), as_u64(r.get(1))))
                .collect())
        })
    }

    fn expired(&self, now_ms: u64) -> StoreFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            let rows = self
                .db
                .read_seldom(EXPIRED, &[&as_i64(now_ms), &ACTIVE])
                .await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn stalled(&self, before_ms: u64) -> StoreFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            let rows = self
                .db
                .read_seldom(STALLED, &[&as_i64(before_ms), &ACTIVE])
                .await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn abandoned(&self, before_ms: u64) -> StoreFuture<'_, Result<Vec<(String, u64)>, StoreError>> {
        Box::pin(async move {
            let rows = self
                .db
                .read_seldom(ABANDONED, &[&as_i64(before_ms), &ACTIVE])
                .await?;
            Ok(rows.iter().map(|r| (r.get(0), as_u64(r.get(1)))).collect())
        })
    }

    /// With an outbox, aborts nothing (the match service aborts the abandoned matches
    /// itself, with their events: [`SharedStore::abandoned`]).
    fn sweep(
        &self,
        now_ms: u64,
        abandoned_before: u64,
        ended_before: u64,
    ) -> StoreFuture<'_, Result<Swept, StoreError>> {
        let abandoned_before = if self.outbox.is_some() {
            0
        } else {
            abandoned_before
        };
        Box::pin(self.db.sweep(now_ms, abandoned_before, ended_before))
    }

    fn list<'a>(
        &'a self,
        after: &'a str,
        limit: usize,
        include_ended: bool,
    ) -> StoreFuture<'a, Result<Vec<Listed>, StoreError>> {
        Box::pin(async move {
            let limit = as_i64(limit as u64);
            let rows = self
                .db
                .read_seldom(LIST, &[&after, &limit, &include_ended, &ACTIVE])
                .await?;
            Ok(rows
                .iter()
                .map(|r| {
                    let header: Vec<u8> = r.get(1);
                    let seats = prost::Message::decode(header.as_slice())
                        .map_or_else(|_| Vec::new(), |h: StoredMatch| h.seats);
                    let prefix: Vec<u8> = r.get(2);
                    Listed {
                        id: r.get(0),
                        game: game_name(&prefix).unwrap_or_default(),
                        seats: seats.into_iter().map(Seat::from_code).collect(),
                        status: MatchStatus::from_code(r.get(3)),
                        actions: as_u64(r.get(4)),
                        driving: r.get(5),
                        ended_at_ms: as_u64(r.get(6)),
                    }
                })
                .collect())
        })
    }

    fn take_notices(&self) -> Option<mpsc::UnboundedReceiver<Notice>> {
        self.incoming.lock().ok()?.take()
    }
}
