//! The load generator: clients and channels, and the echo, `Matches.Act` and
//! `Engine.BatchStep` loads, each a set of concurrent tasks that time their requests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cardhouse_server::bench_pb::EchoRequest;
use cardhouse_server::bench_pb::echo_client::EchoClient;
use cardhouse_server::pb;
use cardhouse_server::pb::engine_client::EngineClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Channel;
use tonic::{Request, Status};

use crate::args::Args;
use crate::cpu::CpuTicks;

/// Latencies (µs) and counts of one phase.
#[derive(Debug, Default)]
pub(crate) struct Sample {
    pub(crate) latencies_us: Vec<u32>,
    pub(crate) units: u64,
    /// Failed requests (not in the latencies), and the first failure's status.
    pub(crate) errors: u64,
    pub(crate) first_error: Option<String>,
}

/// The load generator's runtime: the clients' connections and requests run on threads of
/// their own, apart from the servers' (set once, at start).
pub(crate) static LOAD: std::sync::OnceLock<tokio::runtime::Handle> = std::sync::OnceLock::new();

/// Runs `task` on the load generator's runtime (or, without one, the current one).
pub(crate) fn spawn<T: Send + 'static>(
    task: impl std::future::Future<Output = T> + Send + 'static,
) -> tokio::task::JoinHandle<T> {
    match LOAD.get() {
        Some(load) => load.spawn(task),
        None => tokio::spawn(task),
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

pub(crate) async fn channels(addr: std::net::SocketAddr, n: usize) -> Vec<Channel> {
    // Connected on the load generator's runtime, where their connections' tasks then run.
    spawn(async move {
        let mut out = Vec::new();
        for _ in 0..n.max(1) {
            out.push(connect(addr).await);
        }
        out
    })
    .await
    .expect("connecting the load generator's channels")
}

fn authed<T>(token: &str, msg: T) -> Request<T> {
    let mut req = Request::new(msg);
    req.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii token"),
    );
    req
}

pub(crate) async fn echo_phase(
    chans: &[Channel],
    args: &Args,
    deadline: Instant,
    budget: u64,
) -> Vec<Sample> {
    let per_task = budget / args.concurrency as u64 + 1;
    let mut tasks = Vec::new();
    for i in 0..args.concurrency {
        let mut client = EchoClient::new(chans[i % chans.len()].clone());
        tasks.push(spawn(async move {
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
pub(crate) enum Routing {
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
            bots: Default::default(),
            time_control: None,
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
pub(crate) async fn matches_phase(
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
        tasks.push(spawn(async move {
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
                    expected_move_number: Some(view.move_number),
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

pub(crate) async fn batch_phase(
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
        tasks.push(spawn(async move {
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
