//! Loads and revalidations of matches, read in batches ([`super::batch`]): the loads
//! waiting when a batch starts go into one `SELECT … FROM unnest(…)`, which returns each
//! match whole only if its version is not the one its caller knows (revalidating a current
//! cached copy costs its version only).

use tokio::sync::oneshot;

use crate::store::pg::pool::Db;
use crate::store::pg::sql::{LOAD_MANY, as_u64, with_tail};
use crate::store::{Damaged, Loaded, Newer, StoreError, StoredMatch};

/// Most loads in one statement.
pub(crate) const MAX_BATCH: usize = 256;
/// Batches of loads in flight at once: reads commit nothing and take one round trip, so one
/// at a time gathers the most (measured as for the changes' batches).
pub(crate) const IN_FLIGHT: u32 = 1;

/// One load waiting for its batch: match `id` unless its version is `known` (`-1`: any).
pub(crate) struct Pending {
    pub(crate) id: String,
    pub(crate) known: i64,
    pub(crate) done: oneshot::Sender<Result<Newer, StoreError>>,
}

/// Reads `batch` in one statement and answers each load.
pub(crate) async fn read(db: Db, batch: Vec<Pending>) {
    let ids: Vec<&str> = batch.iter().map(|p| p.id.as_str()).collect();
    let known: Vec<i64> = batch.iter().map(|p| p.known).collect();
    let rows = match db.read(LOAD_MANY, &[&ids, &known]).await {
        Ok(rows) => rows,
        Err(e) => {
            let what = e.to_string();
            for p in batch {
                let _ = p.done.send(Err(StoreError::Failed { what: what.clone() }));
            }
            return;
        }
    };
    let mut found: Vec<Option<&tokio_postgres::Row>> = vec![None; batch.len()];
    for row in &rows {
        let i: i64 = row.get(0);
        if let Some(slot) = usize::try_from(i - 1).ok().and_then(|i| found.get_mut(i)) {
            *slot = Some(row);
        }
    }
    for (p, row) in batch.into_iter().zip(found) {
        let answer = match row {
            None => Ok(Newer::Gone),
            Some(row) => decode(&p.id, row),
        };
        let _ = p.done.send(answer);
    }
}

/// A row of [`LOAD_MANY`] for match `id`: its state with its tail's actions appended.
///
/// # Errors
/// A header or a state that does not decode, a tail that is not whole actions, or a negative
/// resigned seat ([`StoreError::Damaged`]; the
/// caller checks the rest, `store::check`).
fn decode(id: &str, row: &tokio_postgres::Row) -> Result<Newer, StoreError> {
    let version: i64 = row.get(1);
    let (Some(header), Some(state), Some(tail)) = (
        row.get::<_, Option<Vec<u8>>>(2),
        row.get::<_, Option<Vec<u8>>>(3),
        row.get::<_, Option<Vec<u8>>>(4),
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
    stored.state = with_tail(state, &tail).map_err(damaged)?;
    stored.status = row.get(5);
    stored.resigned_seat = match row.get::<_, Option<i32>>(6) {
        None => None,
        Some(s) => {
            Some(u32::try_from(s).map_err(|_| damaged(format!("resigned seat {s} is negative")))?)
        }
    };
    stored.ended_at_ms = as_u64(row.get(7));
    stored.table = match row.get::<_, Option<Vec<u8>>>(8) {
        None => None,
        Some(bytes) => Some(
            prost::Message::decode(bytes.as_slice())
                .map_err(|e| damaged(format!("the table does not decode: {e}")))?,
        ),
    };
    Ok(Newer::Changed(Box::new(Loaded {
        stored,
        version: as_u64(version),
        place,
    })))
}
