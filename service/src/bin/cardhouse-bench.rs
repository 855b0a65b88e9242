//! `cardhouse-bench`: a bounded load generator for the gRPC service, loopback only.
//!
//! In one process and one run it starts, each on `127.0.0.1:0`:
//! * a bare tonic unary **echo** service (the baseline of what tonic costs on this machine),
//! * the **cardhouse** server with persistence on (a temporary data directory),
//! * with `--postgres <admin-url>`: two more cardhouse servers (**replicas**) sharing one
//!   fresh PostgreSQL database (`cardhouse_bench_<pid>`, created through the admin URL and
//!   dropped at the end),
//!
//! then measures, one phase after the other for `--seconds` each, the phases alternating
//! round after round so that load from elsewhere on the machine hits all of them alike:
//! 1. `Echo` requests per second and p50/p99 latency,
//! 2. `Matches.Act` requests per second and p50/p99 latency (one human seat, three random
//!    bots: each Act stores the move durably, then the bots' replies and any deal),
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

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cardhouse_server::bench_pb::echo_client::EchoClient;
use cardhouse_server::bench_pb::echo_server::{Echo, EchoServer};
use cardhouse_server::bench_pb::{EchoRequest, EchoResponse};
use cardhouse_server::pb;
use cardhouse_server::pb::engine_client::EngineClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use cardhouse_server::server::{ServeError, serve_with_ready};
use cardhouse_server::{Config, StoreConfig};
use clap::Parser;
use tokio::sync::oneshot;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::{Channel, Server};
use tonic::{Request, Response, Status};

// The TLS phase's certificates, in the folder the bench is moving to.
#[path = "cardhouse-bench/tls.rs"]
mod tls;

#[derive(Debug, Parser)]
#[command(
    name = "cardhouse-bench",
    about = "Loopback load test of the cardhouse gRPC service"
)]
struct Args {
    /// Seconds per phase and round.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Rounds: the phases alternate (echo, Matches, the PostgreSQL ones, Engine, echo, ...)
    /// so that load from elsewhere on the machine hits all of them alike.
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// Concurrent requests in flight (echo and Matches phases alike).
    #[arg(long, default_value_t = 256)]
    concurrency: usize,
    /// HTTP/2 connections the concurrent requests share.
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// States per BatchStep request.
    #[arg(long, default_value_t = 2000)]
    batch_states: u32,
    /// Concurrent BatchStep requests.
    #[arg(long, default_value_t = 2)]
    batch_concurrency: usize,
    /// Skip the echo and Engine phases (for profiling the Matches path).
    #[arg(long)]
    matches_only: bool,
    /// Keep matches in memory (no persistence), to see what the store costs.
    #[arg(long)]
    in_memory: bool,
    /// Stop a phase after this many requests even if time remains.
    #[arg(long, default_value_t = 5_000_000)]
    max_requests: u64,
    /// Also measure `Matches.Act` on PostgreSQL: a URL of an existing database with the right
    /// to create databases (e.g. `postgres://postgres@127.0.0.1:5432/postgres`). The bench
    /// creates `cardhouse_bench_<pid>` beside it, runs two replicas on it and drops it at
    /// the end. Without it the PostgreSQL phases are skipped.
    #[arg(long, env = "CARDHOUSE_BENCH_POSTGRES")]
    postgres: Option<String>,
    /// Concurrent `Act` requests in the PostgreSQL phases (default: `--concurrency`); in the
    /// two-replica phases they are spread over both replicas.
    #[arg(long)]
    pg_concurrency: Option<usize>,
    /// Connections each PostgreSQL replica keeps to the database (the server's
    /// `--store-pool-size`; default: the server's default).
    #[arg(long)]
    pg_pool_size: Option<usize>,
    /// Skip the two-replica "sticky" phase (each match on one replica).
    #[arg(long)]
    no_sticky: bool,
    /// Also measure `Matches.Act` over TLS: a second one-node server like the first, serving
    /// TLS with a certificate made at start, its clients on TLS connections (the same
    /// number); the phases alternate with the plaintext one.
    #[arg(long)]
    tls: bool,
}

#[derive(Debug, Default)]
struct EchoService;

#[tonic::async_trait]
impl Echo for EchoService {
    async fn echo(&self, req: Request<EchoRequest>) -> Result<Response<EchoResponse>, Status> {
        Ok(Response::new(EchoResponse {
            payload: req.into_inner().payload,
        }))
    }
}

/// Latencies (µs) and counts of one phase.
#[derive(Debug, Default)]
struct Sample {
    latencies_us: Vec<u32>,
    units: u64,
    /// Failed requests (not in the latencies), and the first failure's status.
    errors: u64,
    first_error: Option<String>,
}

struct Report {
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

async fn connect(addr: std::net::SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .expect("valid uri")
        .tcp_nodelay(true)
        .connect()
        .await
        .expect("loopback connect")
}

async fn tls_channels(addr: std::net::SocketAddr, tls: &tls::BenchTls, n: usize) -> Vec<Channel> {
    let mut out = Vec::new();
    for _ in 0..n.max(1) {
        out.push(
            Channel::from_shared(format!("https://{addr}"))
                .expect("valid uri")
                .tls_config(tls.client())
                .expect("client TLS")
                .tcp_nodelay(true)
                .connect()
                .await
                .expect("loopback TLS connect"),
        );
    }
    out
}

async fn channels(addr: std::net::SocketAddr, n: usize) -> Vec<Channel> {
    let mut out = Vec::new();
    for _ in 0..n.max(1) {
        out.push(connect(addr).await);
    }
    out
}

fn authed<T>(token: &str, msg: T) -> Request<T> {
    let mut req = Request::new(msg);
    req.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii token"),
    );
    req
}

async fn echo_phase(chans: &[Channel], args: &Args, deadline: Instant, budget: u64) -> Vec<Sample> {
    let per_task = budget / args.concurrency as u64 + 1;
    let mut tasks = Vec::new();
    for i in 0..args.concurrency {
        let mut client = EchoClient::new(chans[i % chans.len()].clone());
        tasks.push(tokio::spawn(async move {
            let mut s = Sample::default();
            while Instant::now() < deadline && (s.latencies_us.len() as u64) < per_task {
                let t = Instant::now();
                client
                    .echo(EchoRequest {
                        payload: vec![7; 32],
                    })
                    .await
                    .expect("echo");
                s.latencies_us.push(t.elapsed().as_micros() as u32);
                s.units += 1;
            }
            s
        }));
    }
    join(tasks).await
}

/// How a load task spreads its requests over the replicas it is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Routing {
    /// Each request goes to the next replica, as a round-robin load balancer sends them.
    RoundRobin,
    /// Every request of a task (so of its matches) goes to the same replica.
    Sticky,
}

/// One load task's clients, one per replica.
struct Route {
    clients: Vec<MatchesClient<Channel>>,
    routing: Routing,
    next: usize,
}

impl Route {
    fn new(replicas: &[Vec<Channel>], task: usize, routing: Routing) -> Route {
        Route {
            clients: replicas
                .iter()
                .map(|chans| {
                    MatchesClient::new(chans[(task / replicas.len()) % chans.len()].clone())
                })
                .collect(),
            routing,
            next: task % replicas.len(),
        }
    }

    fn client(&mut self) -> &mut MatchesClient<Channel> {
        let i = self.next % self.clients.len();
        if self.routing == Routing::RoundRobin {
            self.next += 1;
        }
        &mut self.clients[i]
    }
}

async fn new_match(
    route: &mut Route,
    seed: u64,
) -> Result<(String, String, pb::MatchView), Status> {
    let created = route
        .client()
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: Default::default(),
            seed: Some(seed),
            seats: vec![
                pb::SeatKind::Human as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
            ],
            ismcts_iterations: None,
        })
        .await?
        .into_inner();
    let token = created.seat_tokens[0].token.clone();
    let view = get_view(route, &created.match_id, &token).await?;
    Ok((created.match_id, token, view))
}

async fn get_view(route: &mut Route, id: &str, token: &str) -> Result<pb::MatchView, Status> {
    route
        .client()
        .get_view(authed(
            token,
            pb::GetViewRequest {
                match_id: id.to_owned(),
            },
        ))
        .await?
        .into_inner()
        .view
        .ok_or_else(|| Status::internal("no view in GetView"))
}

impl Sample {
    fn error(&mut self, status: &Status) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(format!("{:?}: {}", status.code(), status.message()));
        }
    }
}

/// `Matches.Act` load: `concurrency` tasks, each playing its own matches (seat 0 human,
/// three random bots) and sending its requests to `replicas` as `routing` says. A failed
/// request is counted (not timed) and the task carries on with a fresh view or match.
///
/// Each task creates its first match before the clock starts (all of them at once would
/// otherwise fill the first part of a short phase, most of all on PostgreSQL, where every
/// creation updates the one row counting the matches); a match created later, when one
/// ended, is timed. Returns the samples, the time measured and the CPU used in it.
async fn matches_phase(
    replicas: &[Vec<Channel>],
    routing: Routing,
    concurrency: usize,
    length: Duration,
    budget: u64,
) -> (Vec<Sample>, Duration, CpuTicks) {
    let per_task = budget / concurrency as u64 + 1;
    let ready = Arc::new(tokio::sync::Barrier::new(concurrency + 1));
    let mut tasks = Vec::new();
    for i in 0..concurrency {
        let mut route = Route::new(replicas, i, routing);
        let ready = Arc::clone(&ready);
        tasks.push(tokio::spawn(async move {
            let mut s = Sample::default();
            let mut seed = i as u64 * 1_000_003;
            let mut current: Option<(String, pb::MatchView, MetadataValue<Ascii>)> = None;
            let mut pick = seed;
            for _ in 0..3 {
                seed += 1;
                match new_match(&mut route, seed).await {
                    Ok((id, token, view)) => {
                        let auth = format!("Bearer {token}").parse().expect("ascii token");
                        current = Some((id, view, auth));
                        break;
                    }
                    Err(e) => s.error(&e),
                }
            }
            ready.wait().await;
            let deadline = Instant::now() + length;
            while Instant::now() < deadline && (s.latencies_us.len() as u64) < per_task {
                let Some((id, view, auth)) = current.as_mut().filter(|(_, v, _)| {
                    v.status == pb::MatchStatus::Active as i32 && !v.legal_actions.is_empty()
                }) else {
                    seed += 1;
                    match new_match(&mut route, seed).await {
                        Ok((id, token, view)) => {
                            let auth = format!("Bearer {token}").parse().expect("ascii token");
                            current = Some((id, view, auth));
                        }
                        Err(e) => s.error(&e),
                    }
                    continue;
                };
                pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let action =
                    view.legal_actions[(pick >> 33) as usize % view.legal_actions.len()].id();
                let t = Instant::now();
                let mut req = Request::new(pb::ActRequest {
                    match_id: id.clone(),
                    action: Some(pb::act_request::Action::ActionId(action)),
                    expected_move_number: view.move_number,
                    include_view: false,
                });
                req.metadata_mut().insert("authorization", auth.clone());
                match route.client().act(req).await {
                    Ok(r) => {
                        s.latencies_us.push(t.elapsed().as_micros() as u32);
                        s.units += 1;
                        *view = r.into_inner().view.expect("view in ActResponse");
                    }
                    Err(e) => {
                        s.error(&e);
                        // Carry on from what the server has now (or with a new match).
                        let mut req = Request::new(pb::GetViewRequest {
                            match_id: id.clone(),
                        });
                        req.metadata_mut().insert("authorization", auth.clone());
                        match route.client().get_view(req).await {
                            Ok(r) => *view = r.into_inner().view.expect("view in GetView"),
                            Err(e) => {
                                s.error(&e);
                                current = None;
                            }
                        }
                    }
                }
            }
            s
        }));
    }
    ready.wait().await;
    let (start, cpu) = (Instant::now(), CpuTicks::now());
    let samples = join(tasks).await;
    (samples, start.elapsed(), CpuTicks::now().since(cpu))
}

async fn batch_phase(
    chans: &[Channel],
    args: &Args,
    deadline: Instant,
    budget: u64,
) -> (Vec<Sample>, u64) {
    let per_task = budget / args.batch_concurrency as u64 + 1;
    let mut tasks = Vec::new();
    for i in 0..args.batch_concurrency {
        let mut client =
            EngineClient::new(chans[i % chans.len()].clone()).max_decoding_message_size(256 << 20);
        let count = args.batch_states;
        tasks.push(tokio::spawn(async move {
            let mut s = Sample::default();
            let mut chance = 0;
            let mut seed = i as u64;
            while Instant::now() < deadline && (s.latencies_us.len() as u64) < per_task {
                seed += 1_000;
                let t = Instant::now();
                let r = client
                    .batch_step(pb::BatchStepRequest {
                        start: Some(pb::batch_step_request::Start::Fresh(pb::FreshStates {
                            game: "jass".into(),
                            options: [("scope", "deal"), ("wys", "auto")]
                                .into_iter()
                                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                                .collect(),
                            count,
                        })),
                        policy: Some(pb::batch_step_request::Policy::Random(pb::RandomPolicy {
                            seed,
                        })),
                        max_steps: 0,
                        return_states: false,
                    })
                    .await
                    .expect("batch step")
                    .into_inner();
                s.latencies_us.push(t.elapsed().as_micros() as u32);
                s.units += r.total_steps;
                chance += r.total_chance_outcomes;
            }
            (s, chance)
        }));
    }
    let mut samples = Vec::new();
    let mut chance = 0;
    for t in tasks {
        let (s, c) = t.await.expect("task");
        samples.push(s);
        chance += c;
    }
    (samples, chance)
}

async fn join(tasks: Vec<tokio::task::JoinHandle<Sample>>) -> Vec<Sample> {
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.expect("load task"));
    }
    out
}

/// A server started in this process, with what it takes to stop it.
struct Replica {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), ServeError>>,
}

/// Starts a server on `127.0.0.1:0` and waits until it can serve (its store open, its
/// schema migrated), or returns why it could not start.
async fn start_replica(config: Config) -> Result<Replica, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("bind: {e}"))?;
    let addr = listener.local_addr().map_err(|e| format!("addr: {e}"))?;
    let (stop, stopped) = oneshot::channel::<()>();
    let (ready_tx, ready_rx) = oneshot::channel::<()>();
    let mut task = tokio::spawn(serve_with_ready(
        listener,
        config,
        async {
            let _ = stopped.await;
        },
        move |_| {
            let _ = ready_tx.send(());
        },
    ));
    match tokio::time::timeout(Duration::from_secs(120), ready_rx).await {
        Ok(Ok(())) => Ok(Replica { addr, stop, task }),
        // The server ended before it was ready.
        Ok(Err(_)) => Err(match (&mut task).await {
            Ok(Err(e)) => e.to_string(),
            Ok(Ok(())) => "the server stopped before it was ready".to_owned(),
            Err(e) => e.to_string(),
        }),
        Err(_) => {
            task.abort();
            Err("not ready after 120 s".to_owned())
        }
    }
}

impl Replica {
    async fn stop(self) {
        let _ = self.stop.send(());
        match self.task.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("server at {}: {e}", self.addr),
            Err(e) => eprintln!("server at {}: {e}", self.addr),
        }
    }
}

/// The URL of database `db` on the PostgreSQL server that `admin` (a `postgres://` URL or
/// a `key=value` connection string) points at.
fn database_url(admin: &str, db: &str) -> String {
    let Some(scheme_end) = admin.find("://") else {
        // key=value form: a later dbname overrides an earlier one.
        return format!("{admin} dbname={db}");
    };
    let (base, query) = admin.split_at(admin.find('?').unwrap_or(admin.len()));
    let authority_start = scheme_end + 3;
    let base = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    format!("{base}/{db}{query}")
}

/// A PostgreSQL error with the server's message (tokio-postgres shows only "db error").
fn pg_error(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{e}: {}", db.message()),
        None => format!("{e}"),
    }
}

async fn pg_connect(url: &str) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// A database created for this run, dropped by [`BenchDatabase::drop_now`] or, should the
/// bench fail first, when this value is dropped.
struct BenchDatabase {
    admin: String,
    name: String,
    url: String,
    dropped: bool,
}

impl BenchDatabase {
    /// Creates `cardhouse_bench_<pid>` and says what PostgreSQL it is on.
    async fn create(admin: &str) -> Result<(BenchDatabase, String), tokio_postgres::Error> {
        let client = pg_connect(admin).await?;
        let name = format!("cardhouse_bench_{}", std::process::id());
        // Separate statements: CREATE DATABASE cannot run in the implicit transaction of a
        // multi-statement query.
        client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .await?;
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await?;
        let mut about = Vec::new();
        for setting in [
            "server_version",
            "fsync",
            "synchronous_commit",
            "max_connections",
        ] {
            let row = client.query_one(&format!("SHOW {setting}"), &[]).await?;
            about.push(format!("{setting} {}", row.get::<_, String>(0)));
        }
        let db = BenchDatabase {
            admin: admin.to_owned(),
            url: database_url(admin, &name),
            name,
            dropped: false,
        };
        Ok((db, about.join(", ")))
    }

    async fn drop_database(admin: &str, name: &str) -> Result<(), tokio_postgres::Error> {
        let client = pg_connect(admin).await?;
        // FORCE (PostgreSQL 13+) ends connections a stopped server may not have closed yet.
        let forced = client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await;
        if forced.is_err() {
            client
                .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
                .await?;
        }
        Ok(())
    }

    async fn drop_now(mut self) {
        self.dropped = true;
        match Self::drop_database(&self.admin, &self.name).await {
            Ok(()) => println!("dropped database {}", self.name),
            Err(e) => eprintln!("could not drop database {}: {}", self.name, pg_error(&e)),
        }
    }
}

impl Drop for BenchDatabase {
    fn drop(&mut self) {
        if self.dropped {
            return;
        }
        // On a panic: drop the database from a thread of its own (this may run inside the
        // runtime, which cannot block on a future itself).
        let (admin, name) = (self.admin.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?
                .block_on(Self::drop_database(&admin, &name))
                .ok()
        })
        .join();
        if !matches!(dropped, Ok(Some(()))) {
            eprintln!("could not drop database {}", self.name);
        }
    }
}

/// What a phase runs.
enum Load {
    Echo(Vec<Channel>),
    Act {
        replicas: Vec<Vec<Channel>>,
        routing: Routing,
        concurrency: usize,
    },
    Batch(Vec<Channel>),
}

/// One row of the table: its load and everything measured over the rounds.
struct Phase {
    name: String,
    load: Load,
    samples: Vec<Sample>,
    elapsed: Duration,
    chance: u64,
    cpu: CpuTicks,
}

/// CPU time in clock ticks (`USER_HZ`, 100 per second on Linux), from `/proc` (all zero
/// where there is none).
#[derive(Clone, Copy, Debug, Default)]
struct CpuTicks {
    /// All cores: busy, waiting for I/O, and everything (busy + idle + iowait).
    busy: u64,
    iowait: u64,
    total: u64,
    /// Of `busy`: interrupt and softirq time (loopback networking is largely softirq work;
    /// the part of it run in a process's context is counted in that process's time too),
    /// and time stolen by the hypervisor.
    interrupts: u64,
    steal: u64,
    /// This process: the load generator and every server in it.
    this_process: u64,
    /// PostgreSQL's processes on this machine: its background processes (WAL writer,
    /// checkpointer, ...) and the backends of the bench's database, not those serving
    /// other databases (other work on the same server).
    postgres: u64,
}

/// The bench's database, once created.
static BENCH_DATABASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

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
fn process_ticks(stat: &str) -> Option<(&str, u64)> {
    let (head, rest) = stat.rsplit_once(')')?;
    let (_, name) = head.split_once('(')?;
    // After the command name: state is field 3, utime 14 and stime 15.
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some((name, ticks))
}

impl CpuTicks {
    fn now() -> CpuTicks {
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

    fn since(self, start: CpuTicks) -> CpuTicks {
        CpuTicks {
            busy: self.busy.saturating_sub(start.busy),
            iowait: self.iowait.saturating_sub(start.iowait),
            total: self.total.saturating_sub(start.total),
            interrupts: self.interrupts.saturating_sub(start.interrupts),
            steal: self.steal.saturating_sub(start.steal),
            this_process: self.this_process.saturating_sub(start.this_process),
            postgres: self.postgres.saturating_sub(start.postgres),
        }
    }

    fn add(&mut self, d: CpuTicks) {
        self.busy += d.busy;
        self.iowait += d.iowait;
        self.total += d.total;
        self.interrupts += d.interrupts;
        self.steal += d.steal;
        self.this_process += d.this_process;
        self.postgres += d.postgres;
    }
}

impl Phase {
    fn new(name: impl Into<String>, load: Load) -> Phase {
        Phase {
            name: name.into(),
            load,
            samples: Vec::new(),
            elapsed: Duration::ZERO,
            chance: 0,
            cpu: CpuTicks::default(),
        }
    }

    async fn run(&mut self, args: &Args, length: Duration, budget: u64) {
        let cpu = CpuTicks::now();
        let t = Instant::now();
        let deadline = t + length;
        let (elapsed, cpu) = match &self.load {
            Load::Echo(chans) => {
                self.samples
                    .extend(echo_phase(chans, args, deadline, budget).await);
                (t.elapsed(), CpuTicks::now().since(cpu))
            }
            Load::Act {
                replicas,
                routing,
                concurrency,
            } => {
                let (samples, elapsed, cpu) =
                    matches_phase(replicas, *routing, *concurrency, length, budget).await;
                self.samples.extend(samples);
                (elapsed, cpu)
            }
            Load::Batch(chans) => {
                let (samples, chance) = batch_phase(chans, args, deadline, budget).await;
                self.samples.extend(samples);
                self.chance += chance;
                (t.elapsed(), CpuTicks::now().since(cpu))
            }
        };
        self.elapsed += elapsed;
        self.cpu.add(cpu);
        if std::env::var_os("CARDHOUSE_BENCH_DEBUG").is_some() {
            eprintln!("{}: {:?} measured of {:?}", self.name, elapsed, t.elapsed());
        }
    }
}

fn exit_with(message: &str) -> ! {
    eprintln!("cardhouse-bench: {message}");
    std::process::exit(1);
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let length = Duration::from_secs_f64(args.seconds.clamp(0.5, 120.0));
    let concurrency = args.concurrency.max(1);
    let pg_concurrency = args.pg_concurrency.unwrap_or(concurrency).max(1);

    // The baseline: a bare tonic echo server.
    let echo_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let echo_addr = echo_listener.local_addr().expect("addr");
    let (echo_stop, echo_stopped) = oneshot::channel::<()>();
    let echo = tokio::spawn(
        Server::builder()
            .add_service(EchoServer::new(EchoService))
            .serve_with_incoming_shutdown(
                tonic::transport::server::TcpIncoming::from(echo_listener).with_nodelay(Some(true)),
                async {
                    let _ = echo_stopped.await;
                },
            ),
    );

    // cardhouse on one node, with its embedded store (or none).
    let dir = tempfile::tempdir().expect("temp dir");
    let local = start_replica(Config {
        store: if args.in_memory {
            StoreConfig::Memory
        } else {
            StoreConfig::Dir(dir.path().to_owned())
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
                StoreConfig::Dir(tls_dir.path().to_owned())
            },
            tls: Some(certs.files.clone()),
            ..Config::default()
        })
        .await
        .unwrap_or_else(|e| exit_with(&format!("the TLS server did not start: {e}")));
        tls_local = Some((replica, certs));
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
        let defaults = Config::default();
        let config = Config {
            store: StoreConfig::Postgres(db.url.clone()),
            store_pool_size: args.pg_pool_size.unwrap_or(defaults.store_pool_size),
            ..defaults
        };
        pg_pool_size = config.store_pool_size;
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
    if let Some((replica, certs)) = &tls_local {
        let tls_chans = tls_channels(replica.addr, certs, args.connections).await;
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
    let echo_rps = reports
        .iter()
        .find(|r| r.name.starts_with("echo"))
        .map(|r| r.rps);

    println!();
    println!("| rpc | requests | requests/s | p50 | p99 | of echo | steps/s |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in &reports {
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
        // Where the time went: this process holds the load generator and every server;
        // PostgreSQL's server processes; the kernel's interrupt work (partly counted in the
        // processes too, so the columns may add up to more than the busy time and "other",
        // what is left, is a lower bound); time the hypervisor stole; and whatever else
        // ran meanwhile.
        println!();
        println!(
            "| phase | CPU busy | I/O wait | this process | PostgreSQL | interrupts | stolen | other | this process per request | PostgreSQL per request |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for r in &reports {
            let c = r.cpu;
            let share = |ticks: u64| 100.0 * ticks as f64 / c.total.max(1) as f64;
            let other = c
                .busy
                .saturating_sub(c.this_process + c.postgres + c.interrupts + c.steal);
            // USER_HZ is 100: a tick is 10 ms.
            let per_request = |ticks: u64| ticks as f64 * 10_000.0 / r.requests.max(1) as f64;
            println!(
                "| {} | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0} µs | {:.0} µs |",
                r.name,
                share(c.busy),
                share(c.iowait),
                share(c.this_process),
                share(c.postgres),
                share(c.interrupts),
                share(c.steal),
                share(other),
                per_request(c.this_process),
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
            batch.units_per_s, args.batch_states
        );
    }

    drop(chans);
    local.stop().await;
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
}

#[cfg(test)]
mod tests {
    use super::{database_url, process_ticks};

    #[test]
    fn process_ticks_reads_utime_and_stime() {
        let stat = "2217 (postgres) S 2215 2215 2215 0 -1 4194368 371 0 0 0 17 33 0 0 20 0 1 0 1618 223801344 1763 18446744073709551615";
        assert_eq!(process_ticks(stat), Some(("postgres", 50)));
        let odd = "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1 1 1 1";
        assert_eq!(process_ticks(odd), Some(("a) b (c)", 11)));
        assert_eq!(process_ticks("garbage"), None);
    }

    #[test]
    fn database_url_replaces_the_database() {
        let cases = [
            (
                "postgres://postgres@127.0.0.1:5432/postgres",
                "postgres://postgres@127.0.0.1:5432/b",
            ),
            ("postgres://u:p@h:5432", "postgres://u:p@h:5432/b"),
            ("postgresql://h/", "postgresql://h/b"),
            (
                "postgres://h/db?sslmode=disable",
                "postgres://h/b?sslmode=disable",
            ),
            (
                "postgres://h?connect_timeout=3",
                "postgres://h/b?connect_timeout=3",
            ),
            ("host=h user=u dbname=x", "host=h user=u dbname=x dbname=b"),
        ];
        for (admin, want) in cases {
            assert_eq!(database_url(admin, "b"), want, "{admin}");
        }
    }
}
