//! `cardhouse-bench`: a bounded load generator for the gRPC service, loopback only.
//!
//! In one process and one run it starts, each on `127.0.0.1:0`:
//! * a bare tonic unary **echo** service (the baseline of what tonic costs on this machine),
//! * the **cardhouse** server with persistence on (a temporary data directory),
//! * with `--tls`: a second cardhouse server like the first, serving TLS (a certificate made
//!   at start),
//! * with `--events <nats-url>`: a second cardhouse server like the first, publishing every
//!   match's events to that NATS JetStream (its outbox written with each move),
//! * with `--metrics`: no other server, but a second `Matches.Act` phase on the first one with
//!   the Prometheus recording on (every other phase runs with it paused),
//! * with `--postgres <admin-url>`: two more cardhouse servers (**replicas**) sharing one
//!   fresh PostgreSQL database (`cardhouse_bench_<pid>`, created through the admin URL and
//!   dropped at the end),
//!
//! then measures, one phase after the other for `--seconds` each, the phases alternating
//! round after round so that load from elsewhere on the machine hits all of them alike:
//! 1. `Echo` requests per second and p50/p99 latency,
//! 2. `Matches.Act` requests per second and p50/p99 latency (one human seat, three random
//!    bots: each Act stores the move durably, then the bots' replies and any deal); with
//!    `--tls` the same against the TLS server, over TLS connections; with `--events` the
//!    same against the server publishing events; with `--metrics` the
//!    same with the metrics recording on,
//! 3. with `--postgres`: the same `Matches.Act` load on PostgreSQL, (a) all of it on one
//!    replica, (b) on two replicas with each client's requests alternating between them, as
//!    a round-robin gRPC load balancer would send them (the worst case for the replicas'
//!    caches: every request finds the match last changed by the other replica), and (c) on
//!    two replicas with each match staying on one replica ("sticky"),
//! 4. `Engine.BatchStep` steps per second: each request plays `--batch-states` fresh Jass
//!    deals (`scope=deal`, `wys=auto`) with random actions until terminal; a **step** is one
//!    player action (a played card, a trump choice); the 36 dealt cards per deal are chance
//!    outcomes and are reported separately, not counted as steps.
//!
//! ```text
//! cargo run --release -p cardhouse-server --bin cardhouse-bench -- --seconds 5
//! cargo run --release -p cardhouse-server --bin cardhouse-bench -- \
//!     --postgres postgres://postgres@127.0.0.1:5432/postgres
//! ```
//!
//! | module | owns | may call |
//! |---|---|---|
//! | `main.rs` | the run: the servers started, the phases alternated, the report printed | `args`, `cpu`, `load`, `phases`, `postgres`, `report`, `servers`, `tls` |
//! | [`args`] | the command line | — |
//! | [`servers`] | the echo and cardhouse servers in this process | — |
//! | [`postgres`] | the run's database | — |
//! | [`load`] | the load generator | `args`, `cpu` |
//! | [`phases`] | what each phase runs and measures | `args`, `cpu`, `load` |
//! | [`cpu`] | CPU accounting from `/proc` | — |
//! | [`report`] | the tables | `cpu`, `load`, `phases` |
//! | [`tls`] | the TLS server's certificate and its clients | `load` |
//!
//! (`tests/module_map.rs` checks this table against the code.)

mod args;
mod cpu;
mod load;
mod phases;
mod postgres;
mod report;
mod servers;
mod tls;

use std::time::Duration;

use cardhouse_server::{Config, DirConfig, PgConfig, StoreConfig};
use clap::Parser;

use crate::args::Args;
use crate::cpu::BENCH_DATABASE;
use crate::load::{Routing, channels};
use crate::phases::{Load, Phase};
use crate::postgres::{BenchDatabase, pg_error};
use crate::servers::{start_echo, start_replica};

/// The `cardhouse` binary's allocator, so that the servers here cost what they cost there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn exit_with(message: &str) -> ! {
    eprintln!("cardhouse-bench: {message}");
    std::process::exit(1);
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    // The load generator runs on threads of its own (see `load::LOAD`), so that the CPU the
    // servers take can be told from the clients'.
    let load_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(std::thread::available_parallelism().map_or(1, |n| n.get()))
        .thread_name(cpu::THREAD_NAME)
        .enable_all()
        .build()
        .unwrap_or_else(|e| exit_with(&format!("the load generator's runtime: {e}")));
    let _ = load::LOAD.set(load_runtime.handle().clone());
    let length = Duration::from_secs_f64(args.seconds.clamp(0.5, 120.0));
    let concurrency = args.concurrency.max(1);
    let pg_concurrency = args.pg_concurrency.unwrap_or(concurrency).max(1);

    // The baseline: a bare tonic echo server.
    let (echo_addr, echo_stop, echo) = start_echo().await;
    if args.metrics {
        // Installed once for the process; each phase pauses or resumes the recording.
        cardhouse_server::metrics::install()
            .unwrap_or_else(|e| exit_with(&format!("metrics: {e}")));
    }

    // cardhouse on one node, with its embedded store (or none).
    let dir = tempfile::tempdir().expect("temp dir");
    let local = start_replica(Config {
        store: if args.in_memory {
            StoreConfig::Memory
        } else {
            StoreConfig::Dir(DirConfig::new(dir.path()))
        },
        ..Config::default()
    })
    .await
    .unwrap_or_else(|e| exit_with(&format!("the server did not start: {e}")));

    // The same over TLS, with a store of its own.
    let tls_dir = tempfile::tempdir().expect("temp dir");
    let mut tls_local = None;
    if args.tls {
        let certs = tls::BenchTls::new().unwrap_or_else(|e| exit_with(&e));
        let replica = start_replica(Config {
            store: if args.in_memory {
                StoreConfig::Memory
            } else {
                StoreConfig::Dir(DirConfig::new(tls_dir.path()))
            },
            tls: Some(certs.files.clone()),
            ..Config::default()
        })
        .await
        .unwrap_or_else(|e| exit_with(&format!("the TLS server did not start: {e}")));
        tls_local = Some((replica, certs));
    }

    // The same with match events out, with a store of its own.
    let events_dir = tempfile::tempdir().expect("temp dir");
    let mut events_local = None;
    if let Some(url) = &args.events {
        let replica = start_replica(Config {
            store: if args.in_memory {
                StoreConfig::Memory
            } else {
                StoreConfig::Dir(DirConfig::new(events_dir.path()))
            },
            events: Some(cardhouse_server::relay::EventsConfig {
                url: url.clone(),
                format: cardhouse_server::relay::EventFormat::Proto,
            }),
            ..Config::default()
        })
        .await
        .unwrap_or_else(|e| exit_with(&format!("the events server did not start: {e}")));
        events_local = Some(replica);
    }

    // cardhouse on PostgreSQL: two replicas on one fresh database.
    let mut pg = None;
    let mut pg_about = String::new();
    let mut pg_pool_size = 0;
    if let Some(admin) = &args.postgres {
        let (db, about) = BenchDatabase::create(admin).await.unwrap_or_else(|e| {
            exit_with(&format!("creating the bench database: {}", pg_error(&e)))
        });
        pg_about = about;
        let _ = BENCH_DATABASE.set(db.name.clone());
        let store = PgConfig::new(db.url.clone());
        pg_pool_size = args.pg_pool_size.unwrap_or(store.pool_size);
        let config = Config {
            store: StoreConfig::Postgres(PgConfig {
                pool_size: pg_pool_size,
                ..store
            }),
            ..Config::default()
        };
        // One after the other: the first creates the schema.
        let mut replicas = Vec::new();
        for _ in 0..2 {
            match start_replica(config.clone()).await {
                Ok(r) => replicas.push(r),
                Err(e) => {
                    for r in replicas {
                        r.stop().await;
                    }
                    db.drop_now().await;
                    exit_with(&format!("a PostgreSQL replica did not start: {e}"));
                }
            }
        }
        pg = Some((db, replicas));
    }

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "cardhouse-bench: {cores} cores, {} rounds of {:.1}s per phase, concurrency {} over {} connections per server, loopback",
        args.rounds,
        length.as_secs_f64(),
        concurrency,
        args.connections
    );
    match &pg {
        Some((db, _)) => println!(
            "PostgreSQL: database {} ({pg_about}), two replicas with {pg_pool_size} pooled connections each, {pg_concurrency} Act requests in flight",
            db.name
        ),
        None => println!(
            "PostgreSQL phases skipped: no --postgres <admin-url> (env CARDHOUSE_BENCH_POSTGRES)"
        ),
    }

    let chans = channels(local.addr, args.connections).await;
    let mut phases = Vec::new();
    if !args.matches_only {
        let echo_chans = channels(echo_addr, args.connections).await;
        phases.push(Phase::new(
            "echo (bare tonic unary)",
            Load::Echo(echo_chans),
        ));
    }
    phases.push(Phase::new(
        if args.in_memory {
            "Matches.Act, one node, in memory"
        } else {
            "Matches.Act, one node, redb (persisted)"
        },
        Load::Act {
            replicas: vec![chans.clone()],
            routing: Routing::Sticky,
            concurrency,
        },
    ));
    if args.metrics {
        phases.push(
            Phase::new(
                if args.in_memory {
                    "Matches.Act, one node, in memory, metrics on"
                } else {
                    "Matches.Act, one node, redb (persisted), metrics on"
                },
                Load::Act {
                    replicas: vec![chans.clone()],
                    routing: Routing::Sticky,
                    concurrency,
                },
            )
            .with_metrics(),
        );
    }
    if let Some((replica, certs)) = &tls_local {
        let tls_chans = tls::tls_channels(replica.addr, certs, args.connections).await;
        phases.push(Phase::new(
            if args.in_memory {
                "Matches.Act, one node, in memory, TLS"
            } else {
                "Matches.Act, one node, redb (persisted), TLS"
            },
            Load::Act {
                replicas: vec![tls_chans],
                routing: Routing::Sticky,
                concurrency,
            },
        ));
    }
    if let Some(replica) = &events_local {
        phases.push(Phase::new(
            if args.in_memory {
                "Matches.Act, one node, in memory, --events"
            } else {
                "Matches.Act, one node, redb (persisted), --events"
            },
            Load::Act {
                replicas: vec![channels(replica.addr, args.connections).await],
                routing: Routing::Sticky,
                concurrency,
            },
        ));
    }
    if let Some((_, replicas)) = &pg {
        let mut pg_chans = Vec::new();
        for r in replicas {
            pg_chans.push(channels(r.addr, args.connections).await);
        }
        phases.push(Phase::new(
            "Matches.Act, PostgreSQL, 1 replica",
            Load::Act {
                replicas: vec![pg_chans[0].clone()],
                routing: Routing::Sticky,
                concurrency: pg_concurrency,
            },
        ));
        phases.push(Phase::new(
            "Matches.Act, PostgreSQL, 2 replicas, round-robin",
            Load::Act {
                replicas: pg_chans.clone(),
                routing: Routing::RoundRobin,
                concurrency: pg_concurrency,
            },
        ));
        if !args.no_sticky {
            phases.push(Phase::new(
                "Matches.Act, PostgreSQL, 2 replicas, sticky",
                Load::Act {
                    replicas: pg_chans,
                    routing: Routing::Sticky,
                    concurrency: pg_concurrency,
                },
            ));
        }
    }
    if !args.matches_only {
        phases.push(Phase::new("Engine.BatchStep", Load::Batch(chans.clone())));
    }

    let rounds = args.rounds.clamp(1, 100);
    let budget = args.max_requests / u64::from(rounds) + 1;
    for _ in 0..rounds {
        for phase in &mut phases {
            phase.run(&args, length, budget).await;
        }
    }

    let (reports, chance_per_s) = report::reports(phases);
    report::print(&reports, chance_per_s, args.batch_states);

    drop(chans);
    local.stop().await;
    if let Some(replica) = events_local {
        replica.stop().await;
    }
    if let Some((replica, _)) = tls_local {
        replica.stop().await;
    }
    if let Some((db, replicas)) = pg {
        for r in replicas {
            r.stop().await;
        }
        db.drop_now().await;
    }
    let _ = echo_stop.send(());
    let _ = echo.await;
    load_runtime.shutdown_background();
}
