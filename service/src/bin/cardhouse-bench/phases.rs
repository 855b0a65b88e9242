//! The phases of a run: what each one loads, and its measurements summed over the rounds.

use std::time::{Duration, Instant};

use tonic::transport::Channel;

use crate::args::Args;
use crate::cpu::CpuTicks;
use crate::load::{Routing, Sample, batch_phase, echo_phase, matches_phase};

/// What a phase runs.
pub(crate) enum Load {
    Echo(Vec<Channel>),
    Act {
        replicas: Vec<Vec<Channel>>,
        routing: Routing,
        concurrency: usize,
    },
    Batch(Vec<Channel>),
}

/// One row of the table: its load and everything measured over the rounds.
pub(crate) struct Phase {
    pub(crate) name: String,
    pub(crate) load: Load,
    pub(crate) samples: Vec<Sample>,
    pub(crate) elapsed: Duration,
    pub(crate) chance: u64,
    pub(crate) cpu: CpuTicks,
    /// Metrics recorded during this phase (with `--metrics`; off in every other phase).
    pub(crate) metrics: bool,
}

impl Phase {
    pub(crate) fn new(name: impl Into<String>, load: Load) -> Phase {
        Phase {
            name: name.into(),
            load,
            samples: Vec::new(),
            elapsed: Duration::ZERO,
            chance: 0,
            cpu: CpuTicks::default(),
            metrics: false,
        }
    }

    /// The same phase with the server's metrics recording on.
    pub(crate) fn with_metrics(mut self) -> Phase {
        self.metrics = true;
        self
    }

    pub(crate) async fn run(&mut self, args: &Args, length: Duration, budget: u64) {
        if args.metrics {
            cardhouse_server::metrics::pause(!self.metrics);
        }
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
