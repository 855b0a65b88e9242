//! The report: rates, latency percentiles and CPU shares per phase, printed as Markdown
//! tables, and the ratios the README quotes.

use std::time::Duration;

use crate::cpu::CpuTicks;
use crate::load::Sample;
use crate::phases::{Load, Phase};

pub(crate) struct Report {
    name: String,
    requests: u64,
    rps: f64,
    p50_us: u32,
    p99_us: u32,
    units_per_s: f64,
    errors: u64,
    first_error: Option<String>,
    cpu: CpuTicks,
}

fn report(name: String, samples: Vec<Sample>, elapsed: Duration, cpu: CpuTicks) -> Report {
    let mut all: Vec<u32> = samples
        .iter()
        .flat_map(|s| s.latencies_us.iter().copied())
        .collect();
    let units: u64 = samples.iter().map(|s| s.units).sum();
    let errors: u64 = samples.iter().map(|s| s.errors).sum();
    let first_error = samples.into_iter().find_map(|s| s.first_error);
    all.sort_unstable();
    let pct = |p: f64| -> u32 {
        if all.is_empty() {
            0
        } else {
            all[((all.len() - 1) as f64 * p).round() as usize]
        }
    };
    let secs = elapsed.as_secs_f64().max(1e-9);
    Report {
        name,
        requests: all.len() as u64,
        rps: all.len() as f64 / secs,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        units_per_s: units as f64 / secs,
        errors,
        first_error,
        cpu,
    }
}

/// The report of every phase, and the chance outcomes per second of the Engine phase.
pub(crate) fn reports(phases: Vec<Phase>) -> (Vec<Report>, f64) {
    let mut chance_per_s = 0.0;
    let reports: Vec<Report> = phases
        .into_iter()
        .map(|p| {
            if matches!(p.load, Load::Batch(_)) {
                chance_per_s = p.chance as f64 / p.elapsed.as_secs_f64().max(1e-9);
            }
            report(p.name, p.samples, p.elapsed, p.cpu)
        })
        .collect();
    (reports, chance_per_s)
}

/// Prints the tables and the summary lines.
pub(crate) fn print(reports: &[Report], chance_per_s: f64, batch_states: u32) {
    let echo_rps = reports
        .iter()
        .find(|r| r.name.starts_with("echo"))
        .map(|r| r.rps);

    println!();
    println!("| rpc | requests | requests/s | p50 | p99 | of echo | steps/s |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in reports {
        println!(
            "| {} | {} | {:.0} | {:.2} ms | {:.2} ms | {} | {} |",
            r.name,
            r.requests,
            r.rps,
            f64::from(r.p50_us) / 1000.0,
            f64::from(r.p99_us) / 1000.0,
            match echo_rps {
                Some(echo) if r.name.starts_with("Matches") =>
                    format!("{:.1}%", 100.0 * r.rps / echo.max(1.0)),
                _ => "-".to_owned(),
            },
            if r.name.starts_with("Engine") {
                format!("{:.0}", r.units_per_s)
            } else {
                "-".to_owned()
            }
        );
    }
    if reports.iter().any(|r| r.cpu.total > 0) {
        // Where the time went: this process holds the load generator and every server (the
        // servers' share apart: the process less the load generator's threads);
        // PostgreSQL's server processes; the kernel's interrupt work (partly counted in the
        // processes too, so the columns may add up to more than the busy time and "other",
        // what is left, is a lower bound); time the hypervisor stole; and whatever else
        // ran meanwhile.
        println!();
        println!(
            "| phase | CPU busy | I/O wait | this process | PostgreSQL | interrupts | stolen | other | this process per request | of which servers | PostgreSQL per request |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for r in reports {
            let c = r.cpu;
            let share = |ticks: u64| 100.0 * ticks as f64 / c.total.max(1) as f64;
            let other = c
                .busy
                .saturating_sub(c.this_process + c.postgres + c.interrupts + c.steal);
            // USER_HZ is 100: a tick is 10 ms.
            let per_request = |ticks: u64| ticks as f64 * 10_000.0 / r.requests.max(1) as f64;
            println!(
                "| {} | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0} µs | {:.0} µs | {:.0} µs |",
                r.name,
                share(c.busy),
                share(c.iowait),
                share(c.this_process),
                share(c.postgres),
                share(c.interrupts),
                share(c.steal),
                share(other),
                per_request(c.this_process),
                per_request(c.this_process.saturating_sub(c.load)),
                per_request(c.postgres)
            );
        }
    }
    println!();
    for r in reports.iter().filter(|r| r.errors > 0) {
        println!(
            "{}: {} failed requests (not timed), the first: {}",
            r.name,
            r.errors,
            r.first_error.as_deref().unwrap_or("?")
        );
    }
    let by_name = |prefix: &str| reports.iter().find(|r| r.name.starts_with(prefix));
    if let (Some(echo), Some(act)) = (echo_rps, by_name("Matches.Act, one node")) {
        println!(
            "Matches.Act on one node at {:.0}% of echo requests/s (target >= 50%)",
            100.0 * act.rps / echo.max(1.0)
        );
    }
    if let (Some(plain), Some(tls)) = (
        by_name("Matches.Act, one node"),
        reports
            .iter()
            .find(|r| r.name.starts_with("Matches.Act, one node") && r.name.ends_with("TLS")),
    ) {
        // USER_HZ is 100: a tick is 10 ms.
        let per_request =
            |r: &Report| r.cpu.this_process as f64 * 10_000.0 / r.requests.max(1) as f64;
        println!(
            "TLS: Matches.Act at {:.0}% of the plaintext requests/s in the same run, p50 {:.2} ms against {:.2} ms, {:.0} µs of this process's CPU per request against {:.0} µs",
            100.0 * tls.rps / plain.rps.max(1.0),
            f64::from(tls.p50_us) / 1000.0,
            f64::from(plain.p50_us) / 1000.0,
            per_request(tls),
            per_request(plain),
        );
    }
    if let (Some(off), Some(on)) = (
        by_name("Matches.Act, one node"),
        reports.iter().find(|r| r.name.ends_with("metrics on")),
    ) {
        let per_request =
            |r: &Report| r.cpu.this_process as f64 * 10_000.0 / r.requests.max(1) as f64;
        println!(
            "Metrics: Matches.Act with recording on at {:.0}% of the requests/s without in the same run, p50 {:.2} ms against {:.2} ms, {:.0} µs of this process's CPU per request against {:.0} µs",
            100.0 * on.rps / off.rps.max(1.0),
            f64::from(on.p50_us) / 1000.0,
            f64::from(off.p50_us) / 1000.0,
            per_request(on),
            per_request(off),
        );
    }
    if let (Some(one), Some(two)) = (
        by_name("Matches.Act, PostgreSQL, 1"),
        by_name("Matches.Act, PostgreSQL, 2 replicas, round-robin"),
    ) {
        println!(
            "PostgreSQL: two replicas round-robin at {:.0}% of one replica{} (round-robin sends each move of a match to the other replica than the last: the worst case for the replicas' caches)",
            100.0 * two.rps / one.rps.max(1.0),
            match by_name("Matches.Act, PostgreSQL, 2 replicas, sticky") {
                Some(sticky) =>
                    format!(", sticky at {:.0}%", 100.0 * sticky.rps / one.rps.max(1.0)),
                None => String::new(),
            }
        );
    }
    if let Some(batch) = by_name("Engine") {
        println!(
            "Engine.BatchStep: {:.0} steps/s (player actions; target >= 1,000,000), plus {chance_per_s:.0} chance outcomes/s, {} states per request",
            batch.units_per_s, batch_states
        );
    }
}
