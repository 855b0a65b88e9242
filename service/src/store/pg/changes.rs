//! The changes of matches, written in batches ([`super::batch`]): every change waiting when
//! a batch starts goes into one `UPDATE … FROM unnest(…)` statement, a transaction of its
//! own; a batch of one change (most batches below a dozen requests in flight: 78% at 16, in
//! `cardhouse-bench`) is the same update with scalars, which costs PostgreSQL a fifth less. A change appends its actions to the match's `tail`, or rewrites its state (a
//! snapshot: see [`Row`]). Each change still applies only if its match is at the version it was made on, and
//! each is acknowledged only once the statement committed: one commit makes them all durable
//! together, or (a failed statement, whose outcome is unknown) none is acknowledged.

use tokio::sync::oneshot;

use crate::store::pg::outbox::{Columns, UPDATE_MANY_EVENTS, UPDATE_ONE_EVENTS};
use crate::store::pg::pool::Db;
use crate::store::pg::sql::{Row, UPDATE_MANY, UPDATE_ONE, as_i64, pg_error};
use crate::store::{Acked, CommitError, OutboxEvent};

/// Most changes in one statement.
pub(crate) const MAX_BATCH: usize = 256;
/// Batches of changes in flight at once (each on a pooled connection): while some wait for
/// their commit, the next gathers what arrives and is sent. Measured with `cardhouse-bench
/// --postgres` on two cores: with 256 requests in flight two gave the largest batches and
/// the least CPU per change (eight cost PostgreSQL half as much again), with 16 in flight
/// four gave the lowest latency (a change waits less for a batch's commit); four is within
/// a tenth of the best of both.
pub(crate) const IN_FLIGHT: u32 = 4;

/// The longest notice that carries a change's actions (PostgreSQL allows 8,000 bytes); a
/// longer change is announced by its version alone, and read by whoever needs it.
const NOTICE_WITH_ACTIONS: usize = 1000;

/// One change waiting for its batch: write `row` as version `version + 1` of match `id` if
/// it is still at `version`, and answer through `done`.
pub(crate) struct Pending {
    pub(crate) id: String,
    pub(crate) version: u64,
    pub(crate) row: Row,
    /// The change is these actions alone, from this move number (nothing else changed):
    /// they go in its notice.
    pub(crate) moves: Option<(u64, Vec<u32>)>,
    /// The change's events, for the outbox (`--events`; none without it).
    pub(crate) events: Vec<OutboxEvent>,
    /// With `--events`, a snapshot's header (its count of notices may have changed).
    pub(crate) header: Option<Vec<u8>>,
    pub(crate) done: oneshot::Sender<Acked>,
}

impl Pending {
    /// The notice of this change once committed: `"<id> <version>"`, followed by
    /// `" <from> <action>,<action>,…"` if the change was actions alone and they fit.
    fn notice(&self) -> String {
        let mut text = format!("{} {}", self.id, self.version + 1);
        if let Some((from, actions)) = &self.moves
            && !actions.is_empty()
        {
            let mut with = format!("{text} {from} ");
            for (i, a) in actions.iter().enumerate() {
                if i > 0 {
                    with.push(',');
                }
                with.push_str(&a.to_string());
            }
            if with.len() <= NOTICE_WITH_ACTIONS {
                text = with;
            }
        }
        text
    }
}

/// Writes `batch` (changes of distinct matches: a match's lock is held while its change is
/// pending) in one statement and answers each change: written, [`CommitError::Conflict`]
/// (its match is at another version, or gone), or [`CommitError::Failed`] for all if the
/// statement failed.
pub(crate) async fn write(db: Db, batch: Vec<Pending>) {
    match run(&db, &batch).await {
        Ok(written) => {
            if batch.iter().any(|p| !p.events.is_empty()) {
                db.events_written();
            }
            for p in batch {
                let ok = written.contains(&p.id);
                if ok {
                    db.notice(p.notice());
                }
                let _ = p.done.send(if ok {
                    Ok(())
                } else {
                    Err(CommitError::Conflict)
                });
            }
        }
        Err(what) => {
            for p in batch {
                let _ = p.done.send(Err(CommitError::Failed(what.clone())));
            }
        }
    }
}

/// The statement of `batch`; the ids it wrote.
async fn run(db: &Db, batch: &[Pending]) -> Result<std::collections::HashSet<String>, String> {
    if let [p] = batch {
        return run_one(db, p).await;
    }
    let events = batch
        .iter()
        .any(|p| !p.events.is_empty() || p.header.is_some());
    let sql = if events {
        UPDATE_MANY_EVENTS.as_str()
    } else {
        UPDATE_MANY
    };
    let (client, stmt) = db.prepared(sql).await?;
    let ids: Vec<&str> = batch.iter().map(|p| p.id.as_str()).collect();
    let versions: Vec<i64> = batch.iter().map(|p| as_i64(p.version)).collect();
    let states: Vec<Option<&[u8]>> = batch.iter().map(|p| p.row.state.as_deref()).collect();
    let tails: Vec<&[u8]> = batch.iter().map(|p| p.row.tail.as_slice()).collect();
    let moves: Vec<i64> = batch.iter().map(|p| as_i64(p.row.move_number)).collect();
    let statuses: Vec<i32> = batch.iter().map(|p| p.row.status).collect();
    let resigned: Vec<Option<i32>> = batch
        .iter()
        .map(|p| p.row.resigned_seat.map(|s| s as i32))
        .collect();
    let ended: Vec<i64> = batch.iter().map(|p| as_i64(p.row.ended_at_ms)).collect();
    let touched: Vec<i64> = batch.iter().map(|p| as_i64(p.row.touched_ms)).collect();
    let driving: Vec<bool> = batch.iter().map(|p| p.row.driving).collect();
    let tables: Vec<Option<&[u8]>> = batch.iter().map(|p| p.row.table.as_deref()).collect();
    let deadlines: Vec<Option<i64>> = batch
        .iter()
        .map(|p| p.row.deadline_ms.map(as_i64))
        .collect();
    let e = Columns::of(batch.iter().flat_map(|p| &p.events));
    let headers: Vec<Option<&[u8]>> = batch.iter().map(|p| p.header.as_deref()).collect();
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
        &ids, &versions, &states, &tails, &moves, &statuses, &resigned, &ended, &touched, &driving,
        &tables, &deadlines,
    ];
    if events {
        params.extend([
            &e.ids as &(dyn tokio_postgres::types::ToSql + Sync),
            &e.seqs,
            &e.subjects,
            &e.payloads,
            &headers,
        ]);
    }
    let rows = client
        .query(&stmt, &params)
        .await
        .map_err(|e| format!("PostgreSQL: {}", pg_error(&e)))?;
    Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
}

/// [`run`] for a batch of one: the same change by [`UPDATE_ONE`].
async fn run_one(db: &Db, p: &Pending) -> Result<std::collections::HashSet<String>, String> {
    let events = !p.events.is_empty() || p.header.is_some();
    let sql = if events {
        UPDATE_ONE_EVENTS.as_str()
    } else {
        UPDATE_ONE
    };
    let (client, stmt) = db.prepared(sql).await?;
    let (version, moves) = (as_i64(p.version), as_i64(p.row.move_number));
    let (state, resigned) = (
        p.row.state.as_deref(),
        p.row.resigned_seat.map(|s| s as i32),
    );
    let (ended, touched) = (as_i64(p.row.ended_at_ms), as_i64(p.row.touched_ms));
    let e = Columns::of(p.events.iter());
    let header = p.header.as_deref();
    let (table, deadline) = (p.row.table.as_deref(), p.row.deadline_ms.map(as_i64));
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
        &p.id,
        &version,
        &state,
        &p.row.tail,
        &moves,
        &p.row.status,
        &resigned,
        &ended,
        &touched,
        &p.row.driving,
        &table,
        &deadline,
    ];
    if events {
        params.extend([
            &e.ids as &(dyn tokio_postgres::types::ToSql + Sync),
            &e.seqs,
            &e.subjects,
            &e.payloads,
            &header,
        ]);
    }
    let rows = client
        .query(&stmt, &params)
        .await
        .map_err(|e| format!("PostgreSQL: {}", pg_error(&e)))?;
    Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
}

#[cfg(test)]
mod tests {
    use super::{NOTICE_WITH_ACTIONS, Pending};
    use crate::store::pg::sql::Row;

    fn pending(moves: Option<(u64, Vec<u32>)>) -> Pending {
        Pending {
            id: "ab12".into(),
            version: 6,
            row: Row {
                state: None,
                tail: Vec::new(),
                move_number: 0,
                status: crate::store::pg::sql::ACTIVE,
                resigned_seat: None,
                ended_at_ms: 0,
                touched_ms: 0,
                driving: false,
                table: None,
                deadline_ms: None,
            },
            moves,
            events: Vec::new(),
            header: None,
            done: tokio::sync::oneshot::channel().0,
        }
    }

    #[test]
    fn a_notice_carries_the_actions_of_a_change_that_is_only_actions() {
        assert_eq!(pending(None).notice(), "ab12 7");
        assert_eq!(pending(Some((40, vec![]))).notice(), "ab12 7");
        assert_eq!(
            pending(Some((40, vec![3, 17, 0]))).notice(),
            "ab12 7 40 3,17,0"
        );
        let long = pending(Some((40, vec![123_456; 200]))).notice();
        assert_eq!(long, "ab12 7", "{} bytes allowed", NOTICE_WITH_ACTIONS);
    }
}
