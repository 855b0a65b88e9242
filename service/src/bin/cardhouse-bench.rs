//! `cardhouse-bench`: a bounded load generator for the gRPC service, loopback only.
//!
//! In one process and one run it starts, each on `127.0.0.1:0`:
//! * a bare tonic unary **echo** service (the baseline of what tonic costs on this machine),
//! * the **cardhouse** server with persistence on (a temporary data directory),
//!
//! then measures, one phase after the other for `--seconds` each:
//! 1. `Echo` requests per second and p50/p99 latency,
//! 2. `Matches.Act` requests per second and p50/p99 latency (one human seat, three random
//!    bots: each Act stores the move durably, then the bots' replies and any deal),
//! 3. `Engine.BatchStep` steps per second: each request plays `--batch-states` fresh Jass
//!    deals (`scope=deal`, `wys=auto`) with random actions until terminal; a **step** is one
//!    player action (a played card, a trump choice); the 36 dealt cards per deal are chance
//!    outcomes and are reported separately, not counted as steps.
//!
//! ```text
//! cargo run --release -p cardhouse-server --bin cardhouse-bench -- --seconds 5
//! ```

use std::time::{Duration, Instant};

use cardhouse_server::bench_pb::echo_client::EchoClient;
use cardhouse_server::bench_pb::echo_server::{Echo, EchoServer};
use cardhouse_server::bench_pb::{EchoRequest, EchoResponse};
use cardhouse_server::pb;
use cardhouse_server::pb::engine_client::EngineClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use cardhouse_server::{Config, StoreConfig, serve};
use clap::Parser;
use tonic::transport::{Channel, Server};
use tonic::{Request, Response, Status};

#[derive(Debug, Parser)]
#[command(
    name = "cardhouse-bench",
    about = "Loopback load test of the cardhouse gRPC service"
)]
struct Args {
    /// Seconds per phase and round.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Rounds: the phases alternate (echo, Matches, Engine, echo, ...) so that load from
    /// elsewhere on the machine hits all of them alike.
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
}

struct Report {
    name: &'static str,
    requests: u64,
    rps: f64,
    p50_us: u32,
    p99_us: u32,
    units_per_s: f64,
}

fn report(name: &'static str, samples: Vec<Sample>, elapsed: Duration) -> Report {
    let mut all: Vec<u32> = samples
        .iter()
        .flat_map(|s| s.latencies_us.iter().copied())
        .collect();
    let units: u64 = samples.iter().map(|s| s.units).sum();
    all.sort_unstable();
    let pct = |p: f64| -> u32 {
        if all.is_empty() {
            0
        } else {
            all[((all.len() - 1) as f64 * p).round() as usize]
        }
    };
    let secs = elapsed.as_secs_f64();
    Report {
        name,
        requests: all.len() as u64,
        rps: all.len() as f64 / secs,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        units_per_s: units as f64 / secs,
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

async fn new_match(
    client: &mut MatchesClient<Channel>,
    seed: u64,
) -> (String, String, pb::MatchView) {
    let created = client
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
        .await
        .expect("create match")
        .into_inner();
    let token = created.seat_tokens[0].token.clone();
    let view = client
        .get_view(authed(
            &token,
            pb::GetViewRequest {
                match_id: created.match_id.clone(),
            },
        ))
        .await
        .expect("view")
        .into_inner()
        .view
        .expect("view");
    (created.match_id, token, view)
}

async fn matches_phase(
    chans: &[Channel],
    args: &Args,
    deadline: Instant,
    budget: u64,
) -> Vec<Sample> {
    let per_task = budget / args.concurrency as u64 + 1;
    let mut tasks = Vec::new();
    for i in 0..args.concurrency {
        let mut client = MatchesClient::new(chans[i % chans.len()].clone());
        tasks.push(tokio::spawn(async move {
            let mut s = Sample::default();
            let mut seed = i as u64 * 1_000_003;
            let (mut id, mut token, mut view) = new_match(&mut client, seed).await;
            let mut auth: tonic::metadata::MetadataValue<tonic::metadata::Ascii> =
                format!("Bearer {token}").parse().expect("ascii token");
            let mut pick = seed;
            while Instant::now() < deadline && (s.latencies_us.len() as u64) < per_task {
                if view.status != pb::MatchStatus::Active as i32 || view.legal_actions.is_empty() {
                    seed += 1;
                    (id, token, view) = new_match(&mut client, seed).await;
                    auth = format!("Bearer {token}").parse().expect("ascii token");
                    continue;
                }
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
                view = client
                    .act(req)
                    .await
                    .expect("act")
                    .into_inner()
                    .view
                    .expect("view");
                s.latencies_us.push(t.elapsed().as_micros() as u32);
                s.units += 1;
            }
            s
        }));
    }
    join(tasks).await
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

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let phase = Duration::from_secs_f64(args.seconds.clamp(0.5, 120.0));
    let budget = args.max_requests;

    // The baseline: a bare tonic echo server.
    let echo_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let echo_addr = echo_listener.local_addr().expect("addr");
    let (echo_stop, echo_stopped) = tokio::sync::oneshot::channel::<()>();
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

    // cardhouse with persistence on.
    let dir = tempfile::tempdir().expect("temp dir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = Config {
        store: if args.in_memory {
            StoreConfig::Memory
        } else {
            StoreConfig::Dir(dir.path().to_owned())
        },
        ..Config::default()
    };
    let server = tokio::spawn(serve(listener, config, async {
        let _ = stopped.await;
    }));

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "cardhouse-bench: {cores} cores, {} rounds of {:.1}s per phase, concurrency {} over {} connections, loopback",
        args.rounds,
        phase.as_secs_f64(),
        args.concurrency,
        args.connections
    );

    let echo_chans = channels(echo_addr, args.connections).await;
    let chans = channels(addr, args.connections).await;
    let rounds = args.rounds.clamp(1, 100);
    let budget = budget / u64::from(rounds) + 1;
    let (mut echo_s, mut matches_s, mut batch_s) = (Vec::new(), Vec::new(), Vec::new());
    let (mut echo_t, mut matches_t, mut batch_t) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut chance = 0;
    for _ in 0..rounds {
        if args.matches_only {
            let t = Instant::now();
            matches_s.extend(matches_phase(&chans, &args, t + phase, budget).await);
            matches_t += t.elapsed();
            continue;
        }
        let t = Instant::now();
        echo_s.extend(echo_phase(&echo_chans, &args, t + phase, budget).await);
        echo_t += t.elapsed();

        let t = Instant::now();
        matches_s.extend(matches_phase(&chans, &args, t + phase, budget).await);
        matches_t += t.elapsed();
        if std::env::var_os("CARDHOUSE_BENCH_DEBUG").is_some() {
            eprintln!("matches phase took {:?}", t.elapsed());
        }

        let t = Instant::now();
        let (samples, c) = batch_phase(&chans, &args, t + phase, budget).await;
        batch_t += t.elapsed();
        batch_s.extend(samples);
        chance += c;
    }
    let echo_report = report("echo (bare tonic unary)", echo_s, echo_t);
    let matches_report = report(
        if args.in_memory {
            "Matches.Act (in memory)"
        } else {
            "Matches.Act (persisted)"
        },
        matches_s,
        matches_t,
    );
    let elapsed = batch_t;
    let batch_report = report("Engine.BatchStep", batch_s, batch_t);

    println!();
    println!("| rpc | requests | requests/s | p50 | p99 | steps/s |");
    println!("|---|---:|---:|---:|---:|---:|");
    for r in [&echo_report, &matches_report, &batch_report] {
        println!(
            "| {} | {} | {:.0} | {:.2} ms | {:.2} ms | {} |",
            r.name,
            r.requests,
            r.rps,
            f64::from(r.p50_us) / 1000.0,
            f64::from(r.p99_us) / 1000.0,
            if r.name.starts_with("Engine") {
                format!("{:.0}", r.units_per_s)
            } else {
                "-".to_owned()
            }
        );
    }
    println!();
    println!(
        "Matches.Act at {:.0}% of echo requests/s (target >= 50%)",
        100.0 * matches_report.rps / echo_report.rps.max(1.0)
    );
    println!(
        "Engine.BatchStep: {:.0} steps/s (player actions; target >= 1,000,000), plus {:.0} chance outcomes/s, {} states per request",
        batch_report.units_per_s,
        chance as f64 / elapsed.as_secs_f64(),
        args.batch_states
    );

    let _ = stop.send(());
    let _ = echo_stop.send(());
    drop(chans);
    drop(echo_chans);
    let _ = server.await;
    let _ = echo.await;
}
