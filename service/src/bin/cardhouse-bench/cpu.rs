//! CPU accounting from `/proc`: the machine's busy, I/O-wait, interrupt and stolen time, this
//! process's time, and the time of the PostgreSQL processes working for the bench.

/// The name of the load generator's threads (`main.rs` names them), so that the CPU they
/// take can be told from the servers' ([`CpuTicks::load`]).
pub(crate) const THREAD_NAME: &str = "bench-load";

/// CPU time in clock ticks (`USER_HZ`, 100 per second on Linux), from `/proc` (all zero
/// where there is none).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CpuTicks {
    /// All cores: busy, waiting for I/O, and everything (busy + idle + iowait).
    pub(crate) busy: u64,
    pub(crate) iowait: u64,
    pub(crate) total: u64,
    /// Of `busy`: interrupt and softirq time (loopback networking is largely softirq work;
    /// the part of it run in a process's context is counted in that process's time too),
    /// and time stolen by the hypervisor.
    pub(crate) interrupts: u64,
    pub(crate) steal: u64,
    /// This process: the load generator and every server in it.
    pub(crate) this_process: u64,
    /// Of `this_process`: the load generator's threads ([`THREAD_NAME`]); the
    /// rest is the servers'.
    pub(crate) load: u64,
    /// PostgreSQL's processes on this machine: its background processes (WAL writer,
    /// checkpointer, ...) and the backends of the bench's database, not those serving
    /// other databases (other work on the same server).
    pub(crate) postgres: u64,
}

/// The bench's database, once created.
pub(crate) static BENCH_DATABASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Whether the PostgreSQL process at `proc_dir` works for the bench: a background process,
/// or a backend connected to the bench's database. A backend shows its user, database and
/// client address in its command line (`postgres: 15/main: user db 127.0.0.1(4242) idle`).
fn ours(proc_dir: &std::path::Path) -> bool {
    let Ok(cmdline) = std::fs::read(proc_dir.join("cmdline")) else {
        return false;
    };
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    let mut words = cmdline.split_whitespace();
    if let Some(db) = BENCH_DATABASE.get()
        && words.clone().any(|w| w == db)
    {
        return true;
    }
    // A backend of another database names its client: a host(port) or [local].
    !words.any(|w| w == "[local]" || (w.contains('(') && w.ends_with(')')))
}

/// User plus system ticks of a process, from the text of its `/proc/<pid>/stat`, with its
/// command name.
pub(crate) fn process_ticks(stat: &str) -> Option<(&str, u64)> {
    let (head, rest) = stat.rsplit_once(')')?;
    let (_, name) = head.split_once('(')?;
    // After the command name: state is field 3, utime 14 and stime 15.
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some((name, ticks))
}

impl CpuTicks {
    pub(crate) fn now() -> CpuTicks {
        let mut t = CpuTicks::default();
        if let Ok(stat) = std::fs::read_to_string("/proc/stat")
            && let Some(line) = stat.lines().next()
        {
            // cpu user nice system idle iowait irq softirq steal guest guest_nice
            let v: Vec<u64> = line
                .split_whitespace()
                .skip(1)
                .filter_map(|x| x.parse().ok())
                .collect();
            if v.len() >= 8 {
                let (idle, iowait) = (v[3], v[4]);
                // guest time is already counted in user time.
                let total: u64 = v[..8].iter().sum();
                t.total = total;
                t.iowait = iowait;
                t.busy = total - idle - iowait;
                t.interrupts = v[5] + v[6];
                t.steal = v[7];
            }
        }
        if let Ok(stat) = std::fs::read_to_string("/proc/self/stat") {
            t.this_process = process_ticks(&stat).map_or(0, |(_, ticks)| ticks);
        }
        if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
            for task in tasks.flatten() {
                if let Ok(stat) = std::fs::read_to_string(task.path().join("stat"))
                    && let Some((name, ticks)) = process_ticks(&stat)
                    && name == THREAD_NAME
                {
                    t.load += ticks;
                }
            }
        }
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for entry in dir.flatten() {
                if !entry
                    .file_name()
                    .to_string_lossy()
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                {
                    continue;
                }
                if let Ok(stat) = std::fs::read_to_string(entry.path().join("stat"))
                    && let Some(("postgres", ticks)) = process_ticks(&stat)
                    && ours(&entry.path())
                {
                    t.postgres += ticks;
                }
            }
        }
        t
    }

    pub(crate) fn since(self, start: CpuTicks) -> CpuTicks {
        CpuTicks {
            busy: self.busy.saturating_sub(start.busy),
            iowait: self.iowait.saturating_sub(start.iowait),
            total: self.total.saturating_sub(start.total),
            interrupts: self.interrupts.saturating_sub(start.interrupts),
            steal: self.steal.saturating_sub(start.steal),
            this_process: self.this_process.saturating_sub(start.this_process),
            load: self.load.saturating_sub(start.load),
            postgres: self.postgres.saturating_sub(start.postgres),
        }
    }

    pub(crate) fn add(&mut self, d: CpuTicks) {
        self.busy += d.busy;
        self.iowait += d.iowait;
        self.total += d.total;
        self.interrupts += d.interrupts;
        self.steal += d.steal;
        self.this_process += d.this_process;
        self.load += d.load;
        self.postgres += d.postgres;
    }
}

#[cfg(test)]
mod tests {
    use super::process_ticks;

    #[test]
    fn process_ticks_reads_utime_and_stime() {
        let stat = "2217 (postgres) S 2215 2215 2215 0 -1 4194368 371 0 0 0 17 33 0 0 20 0 1 0 1618 223801344 1763 18446744073709551615";
        assert_eq!(process_ticks(stat), Some(("postgres", 50)));
        let odd = "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1 1 1 1";
        assert_eq!(process_ticks(odd), Some(("a) b (c)", 11)));
        assert_eq!(process_ticks("garbage"), None);
    }
}
