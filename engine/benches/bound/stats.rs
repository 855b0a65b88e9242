//! The equivalence check of a same-work bound: the same statistics of many random deals,
//! collected from the engine's random player and from the bound, each mean compared with the
//! other within a tolerance in standard errors of their difference. A bound that made other
//! decisions than the engine (another number of choices, or choices of another meaning at
//! some decision point) would move some of these means, and its ratio would mean nothing.

/// Per-deal values of named statistics, summed (and squared) for their means and errors.
pub struct Sample {
    sum: Vec<f64>,
    sq: Vec<f64>,
    n: usize,
}

impl Sample {
    pub fn new(stats: usize) -> Sample {
        Sample {
            sum: vec![0.0; stats],
            sq: vec![0.0; stats],
            n: 0,
        }
    }

    /// One deal's values, in the order of the names given to [`compare`].
    pub fn add(&mut self, values: &[f64]) {
        for (i, &v) in values.iter().enumerate() {
            self.sum[i] += v;
            self.sq[i] += v * v;
        }
        self.n += 1;
    }

    fn mean(&self, i: usize) -> f64 {
        self.sum[i] / self.n as f64
    }

    /// The squared standard error of the mean of statistic `i`.
    fn var_of_mean(&self, i: usize) -> f64 {
        let n = self.n as f64;
        let m = self.mean(i);
        (self.sq[i] / n - m * m).max(0.0) / (n - 1.0)
    }
}

/// The number of standard errors of the difference within which each mean must agree.
pub const TOLERANCE: f64 = 4.0;

/// Prints each statistic's mean for the engine and the bound, their difference in standard
/// errors of the difference (`z`), and returns whether every `|z|` is within [`TOLERANCE`].
pub fn compare(title: &str, names: &[&str], engine: &Sample, bound: &Sample) -> bool {
    println!(
        "{title}: engine against same-work bound, {} and {} random deals (|z| <= {TOLERANCE} each)",
        engine.n, bound.n
    );
    let mut ok = true;
    for (i, name) in names.iter().enumerate() {
        let (e, b) = (engine.mean(i), bound.mean(i));
        let se = (engine.var_of_mean(i) + bound.var_of_mean(i)).sqrt();
        let z = if se > 0.0 {
            (e - b) / se
        } else if e == b {
            0.0
        } else {
            f64::INFINITY
        };
        let flag = if z.abs() <= TOLERANCE {
            ""
        } else {
            "  <-- differs"
        };
        ok &= z.abs() <= TOLERANCE;
        println!("  {name:<40} engine {e:>10.4}  bound {b:>10.4}  z {z:>6.2}{flag}");
    }
    ok
}
