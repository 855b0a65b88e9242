//! The bot workers: a fixed number of threads (`--bot-workers`), shared by every match,
//! taking jobs in the order they came (one job is one chunk of one match's bot and chance
//! moves, and a match queues its next chunk only after the last one was committed, so
//! matches take turns and none starves another). The threads run at the lowest priority of
//! the normal scheduler (`nice` 19; on Linux also `SCHED_BATCH`, so a bot that wakes never
//! preempts a request thread), so a human's request is never queued behind bot work and is
//! served first when both want a core. Not `SCHED_IDLE`: a bot thread starved while holding
//! one of the runtime's locks (it hands its results to the runtime) would stall requests.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How much less the bot threads weigh with the scheduler (`nice`, 0 to 19).
const BOT_NICENESS: i32 = 19;

/// One chunk of bot work.
type Job = Box<dyn FnOnce() + Send>;

/// The pool's counters, for the metrics endpoint and the admin surface.
#[derive(Debug, Default)]
pub(super) struct PoolStats {
    /// Jobs waiting for a worker.
    pub(super) queued: AtomicUsize,
    /// Workers running a job.
    pub(super) busy: AtomicUsize,
    /// Bot moves decided (by the slow bots, on the workers), and the time they took.
    pub(super) moves: AtomicU64,
    pub(super) think_micros: AtomicU64,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    stopping: bool,
}

/// The bot worker pool.
pub(super) struct BotPool {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    /// Set at shutdown: thinking bots stop at their next check.
    pub(super) stopping: Arc<AtomicBool>,
    pub(super) stats: Arc<PoolStats>,
    workers: usize,
}

impl std::fmt::Debug for BotPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotPool")
            .field("workers", &self.workers)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl BotPool {
    /// Starts `workers` threads (at least one).
    ///
    /// # Errors
    /// If a thread cannot be started (its message).
    pub(super) fn start(workers: usize) -> Result<BotPool, String> {
        let workers = workers.max(1);
        let queue: Arc<(Mutex<Queue>, Condvar)> = Arc::default();
        for i in 0..workers {
            let queue = Arc::clone(&queue);
            std::thread::Builder::new()
                .name(format!("cardhouse-bot-{i}"))
                .spawn(move || work(&queue))
                .map_err(|e| format!("cannot start bot worker thread {i}: {e}"))?;
        }
        Ok(BotPool {
            queue,
            stopping: Arc::default(),
            stats: Arc::default(),
            workers,
        })
    }

    /// Number of worker threads.
    pub(super) fn workers(&self) -> usize {
        self.workers
    }

    /// Queues `job` behind every job already waiting.
    pub(super) fn submit(&self, job: impl FnOnce() + Send + 'static) {
        let stats = Arc::clone(&self.stats);
        stats.queued.fetch_add(1, Ordering::AcqRel);
        let job: Job = Box::new(move || {
            stats.queued.fetch_sub(1, Ordering::AcqRel);
            stats.busy.fetch_add(1, Ordering::AcqRel);
            job();
            stats.busy.fetch_sub(1, Ordering::AcqRel);
        });
        let (lock, ready) = &*self.queue;
        if let Ok(mut q) = lock.lock() {
            if q.stopping {
                return;
            }
            q.jobs.push_back(job);
            ready.notify_one();
        }
    }

    /// Records one bot move decided in `took`.
    pub(super) fn record_move(&self, took: Duration) {
        self.stats.moves.fetch_add(1, Ordering::Relaxed);
        self.stats
            .think_micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    /// Stops the pool: jobs waiting are dropped, thinking bots stop at their next check, and
    /// the threads end once their job returns.
    pub(super) fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        let (lock, ready) = &*self.queue;
        if let Ok(mut q) = lock.lock() {
            q.stopping = true;
            self.stats.queued.fetch_sub(q.jobs.len(), Ordering::AcqRel);
            q.jobs.clear();
        }
        ready.notify_all();
    }
}

impl Drop for BotPool {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A worker thread: lowers its own priority, then runs jobs until the pool stops.
fn work(queue: &(Mutex<Queue>, Condvar)) {
    lower_priority();
    let (lock, ready) = queue;
    loop {
        let job = {
            let Ok(mut q) = lock.lock() else { return };
            loop {
                if q.stopping {
                    return;
                }
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                q = match ready.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        job();
    }
}

/// Makes the calling thread yield to the request threads: `SCHED_BATCH` on Linux, and
/// `nice` [`BOT_NICENESS`].
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        use thread_priority::{
            NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
            set_thread_priority_and_policy, thread_native_id,
        };
        let batch = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Batch);
        let priority = ThreadPriority::Crossplatform(0.try_into().unwrap_or_default());
        if let Err(e) = set_thread_priority_and_policy(thread_native_id(), priority, batch) {
            tracing::warn!(error = ?e, "cannot put a bot worker in the batch class");
        }
    }
    #[cfg(unix)]
    {
        let tid = rustix::thread::gettid();
        if let Err(e) = rustix::process::setpriority_process(Some(tid), BOT_NICENESS) {
            tracing::warn!(error = %e, "cannot lower the priority of a bot worker thread");
        }
    }
}
