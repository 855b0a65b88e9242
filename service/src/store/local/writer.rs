//! Group commit for the data directory: a committer task on the async runtime collects the
//! writes waiting and hands them as one batch to a writer thread, which makes them durable
//! (the blocking `fsync` never runs on a runtime thread) and reports the outcome, which the
//! committer sends to each write's acknowledgement.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};

use redb::{Database, ReadableTable};
use tokio::sync::{mpsc as async_mpsc, oneshot};

use crate::store::local::layout::{COMMITS, MATCHES, META, db_error};
use crate::store::local::log::{LogEntry, MoveLog, frame, marker_record};
use crate::store::local::outbox;
use crate::store::outbox::Queue;
use crate::store::{Ack, Acked, CommitError, OutboxEvent, StoreError};

/// Most writes committed in one transaction.
const MAX_GROUP: usize = 4096;
/// How many times the committer yields to the runtime to let a batch grow (see `committer`).
const BATCH_YIELDS: usize = 3;

/// One write to the data directory.
pub(crate) enum Write {
    /// A match's header and state snapshot (database), and the events it makes (into the
    /// `outbox` table, in the same transaction).
    Header {
        key: String,
        value: Vec<u8>,
        events: Vec<OutboxEvent>,
    },
    /// A move log record (which holds `events` too: they are its copy for the relay).
    Log {
        value: Vec<u8>,
        events: Vec<OutboxEvent>,
    },
    /// A match's deletion: a tombstone in the log, then the database forgets it.
    Delete { key: String },
}

/// The queue of writes to a data directory: the committer task and writer thread behind it,
/// and whether a commit failed.
pub(crate) struct Writes {
    tx: async_mpsc::UnboundedSender<Msg>,
    /// Set once a commit failed: the store takes no more writes.
    failed: Arc<AtomicBool>,
}

impl Writes {
    /// Starts the writer thread over `db` and `log`, and the committer task on the current
    /// Tokio runtime. The events of each commit go to `outbox` once durable.
    ///
    /// # Errors
    /// If the thread cannot be started.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub(crate) fn start(
        db: Arc<Database>,
        log: MoveLog,
        outbox: Option<Arc<Queue>>,
    ) -> Result<Writes, StoreError> {
        let failed = Arc::new(AtomicBool::new(false));
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let writer_failed = Arc::clone(&failed);
        std::thread::Builder::new()
            .name("cardhouse-store".into())
            .spawn(move || writer(db, log, &job_rx, &writer_failed, outbox.as_deref()))
            .map_err(|e| StoreError::Failed {
                what: format!("cannot start the writer thread: {e}"),
            })?;
        let (tx, rx) = async_mpsc::unbounded_channel();
        tokio::runtime::Handle::current().spawn(committer(rx, jobs));
        Ok(Writes { tx, failed })
    }

    /// Queues `write` at once; its outcome comes from the returned [`Ack`]. Queued writes are
    /// committed whether or not anyone waits for them.
    ///
    /// # Errors
    /// If the writer is gone.
    pub(crate) fn submit(&self, write: Write) -> Result<Ack, StoreError> {
        let (ack, done) = Ack::pending();
        self.tx
            .send(Msg::Write(WriteOp { write, ack }))
            .map_err(|_| StoreError::WriterGone)?;
        Ok(done)
    }

    /// True once a commit failed.
    pub(crate) fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    /// Closes the database file after the writes already queued; later writes fail.
    pub(crate) async fn close(&self) {
        let (ack, done) = oneshot::channel();
        if self.tx.send(Msg::Close(ack)).is_ok() {
            let _ = done.await;
        }
    }
}

/// The outcome of a commit, as the writer thread reports it for a batch.
type CommitResult = Result<(), String>;

struct WriteOp {
    write: Write,
    ack: oneshot::Sender<Acked>,
}

/// To the committer task.
enum Msg {
    Write(WriteOp),
    /// Stop after the writes already queued and close the database file; acknowledged once
    /// it is closed.
    Close(oneshot::Sender<()>),
}

/// From the committer task to the writer thread.
enum Job {
    /// Commit these writes durably.
    Commit {
        writes: Vec<Write>,
        done: oneshot::Sender<CommitResult>,
    },
    /// Close the database file.
    Close(oneshot::Sender<()>),
}

/// The committer task: takes every write waiting, has the writer thread commit them as one
/// batch, then acknowledges each. Writes sent after `Close` (or after the runtime dropped
/// this task) find the queue gone and fail with [`StoreError::WriterGone`].
async fn committer(mut rx: async_mpsc::UnboundedReceiver<Msg>, jobs: mpsc::Sender<Job>) {
    let mut closing = None;
    while closing.is_none() {
        let Some(first) = rx.recv().await else {
            break;
        };
        let mut batch = Batch::default();
        batch.push(first);
        batch.drain(&mut rx);
        // Under concurrent load (more than one write waiting), let the requests already
        // running on the runtime reach the store too before committing: a yield costs
        // microseconds, a commit an `fdatasync`. A lone write is committed at once.
        for _ in 0..BATCH_YIELDS {
            if batch.closing.is_some() || batch.writes.len() < 2 {
                break;
            }
            tokio::task::yield_now().await;
            batch.drain(&mut rx);
        }
        let Batch {
            writes,
            acks,
            closing: close,
        } = batch;
        closing = close;
        if writes.is_empty() {
            continue;
        }
        let (done, result) = oneshot::channel();
        let result = match jobs.send(Job::Commit { writes, done }) {
            Ok(()) => result.await.unwrap_or_else(|_| Err(WRITER_GONE.to_owned())),
            Err(_) => Err(WRITER_GONE.to_owned()),
        };
        for ack in acks {
            // The writers run in tasks that outlive their clients, so each is still waiting.
            let _ = ack.send(result.clone().map_err(CommitError::Failed));
        }
    }
    rx.close();
    let (ack, closed) = oneshot::channel();
    if jobs.send(Job::Close(ack)).is_ok() {
        let _ = closed.await;
    }
    if let Some(ack) = closing {
        let _ = ack.send(());
    }
}

/// Writes taken from the committer's queue for one commit.
#[derive(Default)]
struct Batch {
    writes: Vec<Write>,
    acks: Vec<oneshot::Sender<Acked>>,
    /// Set once `Close` was taken: nothing after it belongs to this store.
    closing: Option<oneshot::Sender<()>>,
}

impl Batch {
    fn push(&mut self, msg: Msg) {
        match msg {
            Msg::Write(op) => {
                self.writes.push(op.write);
                self.acks.push(op.ack);
            }
            Msg::Close(ack) => self.closing = Some(ack),
        }
    }

    /// Takes whatever is waiting, up to [`MAX_GROUP`] writes or a `Close`.
    fn drain(&mut self, rx: &mut async_mpsc::UnboundedReceiver<Msg>) {
        while self.closing.is_none() && self.writes.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(msg) => self.push(msg),
                Err(_) => return,
            }
        }
    }
}

const WRITER_GONE: &str = "the match store's writer thread has stopped";

/// The writer thread: makes each batch durable, in order, and closes the database file when
/// told to (or when the committer task is gone).
fn writer(
    db: Arc<Database>,
    mut log: MoveLog,
    jobs: &mpsc::Receiver<Job>,
    failed: &AtomicBool,
    outbox: Option<&Queue>,
) {
    let closed = loop {
        match jobs.recv() {
            Ok(Job::Commit { writes, done }) => {
                let result = if failed.load(Ordering::Acquire) {
                    Err("the match store failed earlier and takes no more writes".to_owned())
                } else {
                    commit(&db, &mut log, &writes).map_err(|e| {
                        tracing::error!(error = %e, writes = writes.len(), "store commit failed; refusing further writes");
                        failed.store(true, Ordering::Release);
                        "the match store could not commit".to_owned()
                    })
                };
                // Durable: the relay may have the batch's events (in the order written).
                if let (Ok(()), Some(q)) = (&result, outbox) {
                    q.push(writes.into_iter().flat_map(|w| match w {
                        Write::Header { events, .. } | Write::Log { events, .. } => events,
                        Write::Delete { .. } => Vec::new(),
                    }));
                }
                let _ = done.send(result);
            }
            Ok(Job::Close(ack)) => break Some(ack),
            Err(_) => break None,
        }
    };
    drop(db);
    drop(log);
    if let Some(ack) = closed {
        let _ = ack.send(());
    }
}

/// Makes `writes` durable: log records (moves, tombstones) with one append and one
/// `fdatasync`; then, if there are headers or deletions, one database transaction that also
/// counts the commit, and a marker naming that count in the log.
fn commit(db: &Database, log: &mut MoveLog, writes: &[Write]) -> Result<(), StoreError> {
    let mut records = Vec::new();
    let mut headers = Vec::new();
    let mut deletes = Vec::new();
    for write in writes {
        match write {
            Write::Header { key, value, events } => headers.push((key, value, events)),
            Write::Log { value, .. } => frame(value, &mut records),
            Write::Delete { key } => {
                // The tombstone goes first: a log entry must never outlive its match unnamed.
                let tomb = LogEntry {
                    id: key.clone(),
                    deleted: true,
                    ..LogEntry::default()
                };
                frame(&prost::Message::encode_to_vec(&tomb), &mut records);
                deletes.push(key);
            }
        }
    }
    if !records.is_empty() {
        log.append(&records)?;
    }
    if !headers.is_empty() || !deletes.is_empty() {
        let mut txn = db.begin_write().map_err(db_error)?;
        // Reopened after a crash, the database loads its allocator state instead of
        // verifying every page (see `recover`'s module docs).
        txn.set_quick_repair(true);
        let count;
        {
            let mut table = txn.open_table(MATCHES).map_err(db_error)?;
            for (key, value, _) in &headers {
                table
                    .insert(key.as_str(), value.as_slice())
                    .map_err(db_error)?;
            }
            for key in deletes {
                table.remove(key.as_str()).map_err(db_error)?;
            }
            let mut meta = txn.open_table(META).map_err(db_error)?;
            count = meta
                .get(COMMITS)
                .map_err(db_error)?
                .map_or(0, |v| v.value())
                + 1;
            meta.insert(COMMITS, count).map_err(db_error)?;
        }
        for (_, _, events) in &headers {
            outbox::insert(&txn, events)?;
        }
        txn.commit().map_err(db_error)?;
        let mut marker = Vec::new();
        frame(&marker_record(count), &mut marker);
        log.append(&marker)?;
    }
    Ok(())
}
