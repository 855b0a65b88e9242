//! The deadlines of the clocks this process knows of, earliest first: armed after every
//! change that leaves a clock running, taken when due by the timeout task (`timeouts.rs`),
//! which checks each against its match (a deadline a later change replaced is ignored
//! there). A shared store's matches clocked by other replicas are found by the store's poll
//! instead.

use std::collections::BTreeSet;
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::matches::table::Table;

/// The armed deadlines, `(deadline in Unix ms, match id)`.
#[derive(Debug, Default)]
pub(super) struct Timers {
    due: Mutex<BTreeSet<(u64, String)>>,
    /// Woken when a deadline earlier than every other is armed.
    pub(super) armed: Notify,
}

impl Timers {
    /// Arms the running clock of match `id`'s `table`, if one runs.
    pub(super) fn arm(&self, id: &str, table: Option<&Table>) {
        let Some((_, deadline)) = table.and_then(|t| t.clock) else {
            return;
        };
        let Ok(mut due) = self.due.lock() else {
            return;
        };
        let earliest = due.first().is_none_or(|(d, _)| deadline < *d);
        due.insert((deadline, id.to_owned()));
        drop(due);
        if earliest {
            self.armed.notify_one();
        }
    }

    /// The matches whose deadlines are at or before `now`, taken out.
    pub(super) fn take_due(&self, now: u64) -> Vec<String> {
        let Ok(mut due) = self.due.lock() else {
            return Vec::new();
        };
        let later = due.split_off(&(now.saturating_add(1), String::new()));
        let taken = std::mem::replace(&mut *due, later);
        taken.into_iter().map(|(_, id)| id).collect()
    }

    /// The earliest armed deadline.
    pub(super) fn next(&self) -> Option<u64> {
        self.due.lock().ok()?.first().map(|(d, _)| *d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clocked(deadline: u64) -> Table {
        Table {
            clock: Some((0, deadline)),
            ..Table::default()
        }
    }

    #[test]
    fn deadlines_are_taken_when_due_earliest_first() {
        let timers = Timers::default();
        timers.arm("b", Some(&clocked(200)));
        timers.arm("a", Some(&clocked(100)));
        timers.arm("c", Some(&Table::default())); // no clock runs: nothing armed
        timers.arm("d", None);
        assert_eq!(timers.next(), Some(100));
        assert!(timers.take_due(99).is_empty());
        assert_eq!(timers.take_due(100), vec!["a".to_owned()]);
        assert_eq!(timers.next(), Some(200));
        assert_eq!(timers.take_due(1_000), vec!["b".to_owned()]);
        assert_eq!(timers.next(), None);
    }
}
