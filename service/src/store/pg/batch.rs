//! Group commit on the replica's side: concurrent requests of the same kind (changes of
//! different matches, or loads) are gathered into one statement, so that PostgreSQL pays one
//! round trip, one transaction and, for changes, one commit (one WAL flush) for all of them.
//!
//! A [`Batcher`] takes items at once (a caller queues its change and goes on waiting for its
//! own answer) and a dispatching task runs them in batches: it takes the oldest waiting
//! item and everything queued behind it (up to a batch's size), hands the batch to a task of
//! its own, and starts the next batch as soon as fewer than `in_flight` are running. With
//! one request in flight a batch is that one request, sent at once (no waiting for company);
//! under load, what arrives while the batches in flight run forms the next ones. Each item
//! carries its own way to answer, so an item is answered exactly once, whatever the batch
//! does.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, Semaphore, mpsc};

/// Items queued for a running [`Batcher`].
pub(crate) struct Batcher<T> {
    queue: mpsc::UnboundedSender<T>,
    /// Items queued and not yet run to their end, and a wake-up when that falls.
    unfinished: Arc<(AtomicUsize, Notify)>,
}

impl<T> Clone for Batcher<T> {
    fn clone(&self) -> Self {
        Batcher {
            queue: self.queue.clone(),
            unfinished: Arc::clone(&self.unfinished),
        }
    }
}

/// A batch's items counted as finished when it is dropped: after the batch ran, or if its
/// task panicked (whose items' answers are then dropped, which their callers see), so that
/// [`Batcher::drain`] never waits for a batch that will not end.
struct Done(Arc<(AtomicUsize, Notify)>, usize);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.0.fetch_sub(self.1, Ordering::AcqRel);
        self.0.1.notify_waiters();
    }
}

impl<T: Send + 'static> Batcher<T> {
    /// Starts the dispatching task: batches of at most `max_batch` items, at most
    /// `in_flight` of them running at once, each run by `run` (which answers every item).
    pub(crate) fn start<F, Fut>(max_batch: usize, in_flight: u32, run: F) -> Batcher<T>
    where
        F: Fn(Vec<T>) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (queue, mut incoming) = mpsc::unbounded_channel::<T>();
        let running = Arc::new(Semaphore::new(in_flight.max(1) as usize));
        let unfinished = Arc::new((AtomicUsize::new(0), Notify::new()));
        let finished = Arc::clone(&unfinished);
        tokio::spawn(async move {
            loop {
                // Wait for a free slot first: items arriving meanwhile join the next batch.
                let Ok(permit) = Arc::clone(&running).acquire_owned().await else {
                    return;
                };
                let Some(first) = incoming.recv().await else {
                    return;
                };
                let mut batch = Vec::with_capacity(max_batch.min(64));
                batch.push(first);
                while batch.len() < max_batch {
                    match incoming.try_recv() {
                        Ok(item) => batch.push(item),
                        Err(_) => break,
                    }
                }
                let done = Done(Arc::clone(&finished), batch.len());
                let work = run(batch);
                tokio::spawn(async move {
                    work.await;
                    drop(permit);
                    drop(done);
                });
            }
        });
        Batcher { queue, unfinished }
    }

    /// Queues `item`; `Err(item)` if the dispatching task has stopped (the runtime is
    /// ending).
    pub(crate) fn push(&self, item: T) -> Result<(), T> {
        self.unfinished.0.fetch_add(1, Ordering::AcqRel);
        self.queue.send(item).map_err(|e| {
            self.unfinished.0.fetch_sub(1, Ordering::AcqRel);
            e.0
        })
    }

    /// Waits until every item queued so far has been run to its end: for closing the store
    /// after its last writes.
    pub(crate) async fn drain(&self) {
        loop {
            let woken = self.unfinished.1.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if self.unfinished.0.load(Ordering::Acquire) == 0 {
                return;
            }
            woken.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::Batcher;

    type Item = (u32, oneshot::Sender<usize>);

    /// Answers every item with the size of its batch; records the batches' sizes.
    fn batcher(
        max_batch: usize,
        in_flight: u32,
        delay: Duration,
    ) -> (Batcher<Item>, std::sync::Arc<Mutex<Vec<usize>>>) {
        let sizes = std::sync::Arc::new(Mutex::new(Vec::new()));
        let seen = std::sync::Arc::clone(&sizes);
        let b = Batcher::start(max_batch, in_flight, move |batch: Vec<Item>| {
            let seen = std::sync::Arc::clone(&seen);
            async move {
                tokio::time::sleep(delay).await;
                let n = batch.len();
                seen.lock().unwrap().push(n);
                for (_, answer) in batch {
                    let _ = answer.send(n);
                }
            }
        });
        (b, sizes)
    }

    #[tokio::test]
    async fn one_item_alone_runs_at_once_as_a_batch_of_one() {
        let (b, _) = batcher(16, 2, Duration::ZERO);
        let (tx, rx) = oneshot::channel();
        b.push((1, tx)).ok().unwrap();
        assert_eq!(
            tokio::time::timeout(Duration::from_secs(5), rx)
                .await
                .unwrap(),
            Ok(1)
        );
    }

    #[tokio::test]
    async fn items_queued_while_batches_run_are_grouped_and_each_answered_once() {
        let (b, sizes) = batcher(8, 1, Duration::from_millis(20));
        let mut answers = Vec::new();
        for i in 0..30 {
            let (tx, rx) = oneshot::channel();
            b.push((i, tx)).ok().unwrap();
            answers.push(rx);
        }
        for rx in answers {
            let n = tokio::time::timeout(Duration::from_secs(5), rx)
                .await
                .unwrap()
                .unwrap();
            assert!((1..=8).contains(&n), "a batch of {n}");
        }
        let sizes = sizes.lock().unwrap().clone();
        assert_eq!(sizes.iter().sum::<usize>(), 30, "{sizes:?}");
        // One batch ran at a time, so everything queued behind the first was grouped.
        assert!(sizes.len() <= 5, "{sizes:?}");
        assert!(sizes.iter().all(|&n| n <= 8), "{sizes:?}");
    }

    #[tokio::test]
    async fn drain_waits_for_every_item_queued() {
        let (b, sizes) = batcher(4, 1, Duration::from_millis(30));
        let mut answers = Vec::new();
        for i in 0..10 {
            let (tx, rx) = oneshot::channel();
            b.push((i, tx)).ok().unwrap();
            answers.push(rx);
        }
        tokio::time::timeout(Duration::from_secs(5), b.drain())
            .await
            .unwrap();
        assert_eq!(sizes.lock().unwrap().iter().sum::<usize>(), 10);
        // Idle: returns at once.
        tokio::time::timeout(Duration::from_secs(1), b.drain())
            .await
            .unwrap();
    }
}
