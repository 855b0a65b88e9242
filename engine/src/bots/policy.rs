//! The `policy` bot: a trained multi-layer perceptron over the observation of the seat to
//! act, evaluated here in plain Rust (no framework), greedy over the legal actions.
//!
//! The engine reads no files: a policy comes in as bytes, either those of a policy shipped
//! with the engine (compiled in, named `policy:<name>`, see [`shipped`]) or bytes the caller
//! read ([`Policy::from_bytes`]). Python's `cardhouse.train` writes the files.
//!
//! # File format (version 1, little-endian)
//!
//! | field | type | meaning |
//! | --- | --- | --- |
//! | magic | 8 bytes | `CHPOLICY` |
//! | version | u32 | 1 |
//! | name | u32 length + UTF-8 | the policy's name (shown as `policy:<name>`) |
//! | game | u32 length + UTF-8 | the registered game it plays (`jass`, ...) |
//! | info | u32 length + UTF-8 | free text: options it was trained with, how, figures |
//! | obs_len | u32 | the game's observation length (input width) |
//! | num_actions | u32 | the game's number of distinct actions (output width) |
//! | features | u32 | 0: the input is the observation; 1: the observation followed by the heuristic's action one-hot (`num_actions` values) |
//! | hint_bonus | f32 | with features 1, added to the logit of the heuristic's action (0 otherwise) |
//! | layers | u32 | number of linear layers, 1 to 8 |
//!
//! then per layer: `inputs: u32`, `outputs: u32`, the weights as `inputs × outputs` f32
//! (input-major: the `outputs` weights of input 0 first, i.e. PyTorch's `weight.T`), and
//! `outputs` f32 biases. The first layer's `inputs` is the input's length (`obs_len`, plus
//! `num_actions` with features 1), each next one's is the previous `outputs`, the last
//! `outputs` is `num_actions`. A ReLU follows every layer but the last, whose outputs (plus
//! the hint bonus) are the logits. Nothing may follow the last layer.
//!
//! The bot plays the legal action with the highest logit (the lowest action id on a tie). It
//! sees only the observation of its seat, which holds only what that seat may know, and with
//! features 1 the action the game's heuristic bot would choose for that seat (which also
//! decides from the seat's knowledge only, [`crate::State::heuristic_action`]), drawn with
//! the bot's `rng`: as deterministic as the heuristic.

use std::fmt;
use std::sync::Arc;

use crate::{Action, Error, Game, Rng, State};

/// Largest number of layers a file may declare.
const MAX_LAYERS: usize = 8;
/// Largest width of a layer (inputs or outputs).
const MAX_WIDTH: usize = 1 << 16;

/// The policies compiled into the engine (every game's [`crate::Game::POLICIES`]).
fn shipped_all() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    crate::registry::SHIPPED_POLICIES
        .iter()
        .flat_map(|game| game.iter().copied())
}

/// The names of the policies compiled into the engine.
#[must_use]
pub fn shipped_names() -> Vec<&'static str> {
    shipped_all().map(|(n, _)| n).collect()
}

/// The shipped policy `name`, parsed.
///
/// # Errors
/// [`Error::InvalidBot`] if no shipped policy has that name.
pub fn shipped(name: &str) -> Result<Arc<Policy>, Error> {
    let bytes = shipped_all()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| b)
        .ok_or_else(|| Error::InvalidBot {
            value: format!("policy:{}", name.chars().take(40).collect::<String>()),
            allowed: format!(
                "policy:NAME with a shipped policy: {}",
                shipped_names().join(", ")
            ),
        })?;
    Policy::from_bytes(bytes).map(Arc::new)
}

/// One linear layer, input-major weights.
#[derive(Clone, PartialEq)]
struct Layer {
    inputs: usize,
    outputs: usize,
    /// `inputs × outputs`, row `i` = the weights from input `i`.
    weights: Vec<f32>,
    bias: Vec<f32>,
}

/// A trained MLP policy (see the module docs for the format).
#[derive(Clone, PartialEq)]
pub struct Policy {
    name: String,
    game: String,
    info: String,
    obs_len: usize,
    num_actions: usize,
    /// The heuristic's action is an input (one-hot after the observation), and this bonus
    /// is added to its logit.
    hint: Option<f32>,
    layers: Vec<Layer>,
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let widths: Vec<usize> = std::iter::once(self.obs_len)
            .chain(self.layers.iter().map(|l| l.outputs))
            .collect();
        f.debug_struct("Policy")
            .field("name", &self.name)
            .field("game", &self.game)
            .field("widths", &widths)
            .finish_non_exhaustive()
    }
}

/// A little-endian reader over the file's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(format!(
                "truncated: {what} needs {n} bytes at offset {}, the file has {}",
                self.at,
                self.bytes.len()
            ));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<usize, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    fn text(&mut self, what: &str) -> Result<String, String> {
        let n = self.u32(what)?;
        if n > 1 << 20 {
            return Err(format!("{what} is {n} bytes long; at most 1 MiB"));
        }
        String::from_utf8(self.take(n, what)?.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
    }

    fn floats(&mut self, n: usize, what: &str) -> Result<Vec<f32>, String> {
        let bytes = self.take(n * 4, what)?;
        let out: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if out.iter().any(|x| !x.is_finite()) {
            return Err(format!("{what} holds a value that is not finite"));
        }
        Ok(out)
    }
}

impl Policy {
    /// The magic bytes that start a policy file.
    pub const MAGIC: &'static [u8; 8] = b"CHPOLICY";
    /// The format version this engine reads and writes.
    pub const VERSION: usize = 1;

    /// Parses a policy file (see the module docs).
    ///
    /// # Errors
    /// [`Error::InvalidPolicy`] naming what is wrong (magic, version, truncation, widths
    /// that do not chain, values that are not finite, trailing bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Policy, Error> {
        Policy::parse(bytes).map_err(|reason| Error::InvalidPolicy { reason })
    }

    fn parse(bytes: &[u8]) -> Result<Policy, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "the magic bytes")? != Self::MAGIC {
            return Err("not a cardhouse policy file (it must start with CHPOLICY)".into());
        }
        let version = r.u32("the version")?;
        if version != Self::VERSION {
            return Err(format!(
                "format version {version}; this engine reads version {}",
                Self::VERSION
            ));
        }
        let name = r.text("the name")?;
        let game = r.text("the game")?;
        let info = r.text("the info")?;
        let obs_len = r.u32("obs_len")?;
        let num_actions = r.u32("num_actions")?;
        let features = r.u32("features")?;
        let bonus = r.floats(1, "hint_bonus")?[0];
        let hint = match features {
            0 if bonus == 0.0 => None,
            0 => return Err("hint_bonus must be 0 with features 0".into()),
            1 => Some(bonus),
            f => {
                return Err(format!(
                    "features {f}; allowed 0 (observation) or 1 (observation and heuristic action)"
                ));
            }
        };
        let count = r.u32("the layer count")?;
        if !(1..=MAX_LAYERS).contains(&count) {
            return Err(format!("{count} layers; allowed 1 to {MAX_LAYERS}"));
        }
        let mut layers = Vec::with_capacity(count);
        let mut width = obs_len + if hint.is_some() { num_actions } else { 0 };
        for k in 0..count {
            let inputs = r.u32("a layer's inputs")?;
            let outputs = r.u32("a layer's outputs")?;
            if inputs != width {
                return Err(format!(
                    "layer {k} has {inputs} inputs; it must have {width} (the {})",
                    if k == 0 {
                        "input length"
                    } else {
                        "previous layer's outputs"
                    }
                ));
            }
            if outputs == 0 || outputs > MAX_WIDTH || inputs > MAX_WIDTH {
                return Err(format!(
                    "layer {k} is {inputs} × {outputs}; widths are 1 to {MAX_WIDTH}"
                ));
            }
            let weights = r.floats(inputs * outputs, "the weights")?;
            let bias = r.floats(outputs, "the biases")?;
            layers.push(Layer {
                inputs,
                outputs,
                weights,
                bias,
            });
            width = outputs;
        }
        if width != num_actions {
            return Err(format!(
                "the last layer has {width} outputs; it must have num_actions = {num_actions}"
            ));
        }
        if r.at != bytes.len() {
            return Err(format!(
                "{} bytes follow the last layer",
                bytes.len() - r.at
            ));
        }
        Ok(Policy {
            name,
            game,
            info,
            obs_len,
            num_actions,
            hint,
            layers,
        })
    }

    /// The policy as a file (the inverse of [`Policy::from_bytes`]).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let u32 = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&(v as u32).to_le_bytes());
        let text = |out: &mut Vec<u8>, s: &str| {
            u32(out, s.len());
            out.extend_from_slice(s.as_bytes());
        };
        out.extend_from_slice(Self::MAGIC);
        u32(&mut out, Self::VERSION);
        text(&mut out, &self.name);
        text(&mut out, &self.game);
        text(&mut out, &self.info);
        u32(&mut out, self.obs_len);
        u32(&mut out, self.num_actions);
        u32(&mut out, usize::from(self.hint.is_some()));
        out.extend_from_slice(&self.hint.unwrap_or(0.0).to_le_bytes());
        u32(&mut out, self.layers.len());
        for l in &self.layers {
            u32(&mut out, l.inputs);
            u32(&mut out, l.outputs);
            for x in l.weights.iter().chain(&l.bias) {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// The policy's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The game it plays.
    #[must_use]
    pub fn game(&self) -> &str {
        &self.game
    }

    /// The free text stored with it (how it was trained).
    #[must_use]
    pub fn info(&self) -> &str {
        &self.info
    }

    /// Number of parameters.
    #[must_use]
    pub fn num_parameters(&self) -> usize {
        self.layers
            .iter()
            .map(|l| l.weights.len() + l.bias.len())
            .sum::<usize>()
            + usize::from(self.hint.is_some())
    }

    /// Whether the heuristic's action is an input (features 1), and its logit bonus.
    #[must_use]
    pub fn hint_bonus(&self) -> Option<f32> {
        self.hint
    }

    /// Checks that this policy can play `game_name`, whose observations have `obs_len`
    /// values and whose action space has `num_actions` ids.
    ///
    /// # Errors
    /// [`Error::InvalidPolicy`] saying which of the three differs.
    pub fn check_game(
        &self,
        game_name: &str,
        obs_len: usize,
        num_actions: usize,
    ) -> Result<(), Error> {
        let reason = if game_name != self.game {
            format!("policy:{} plays {}, not {game_name}", self.name, self.game)
        } else if obs_len != self.obs_len || num_actions != self.num_actions {
            format!(
                "policy:{} was trained on {} observation values and {} actions; this {game_name} \
                 has {obs_len} and {num_actions} (other options?)",
                self.name, self.obs_len, self.num_actions
            )
        } else {
            return Ok(());
        };
        Err(Error::InvalidPolicy { reason })
    }

    /// The logits of `obs` (one per action id), with the heuristic's action `hint` for a
    /// policy that takes it (ignored otherwise).
    ///
    /// # Errors
    /// [`Error::BufferSize`] if `obs` does not have the game's observation length;
    /// [`Error::InvalidPolicy`] if the policy takes a hint and none (or one outside the
    /// action space) is given.
    pub fn logits(&self, obs: &[f32], hint: Option<Action>) -> Result<Vec<f32>, Error> {
        if obs.len() != self.obs_len {
            return Err(Error::BufferSize {
                got: obs.len(),
                expected: self.obs_len,
            });
        }
        let mut x = obs.to_vec();
        let hint = match (self.hint, hint) {
            (None, _) => None,
            (Some(bonus), Some(h)) if (h as usize) < self.num_actions => {
                x.resize(self.obs_len + self.num_actions, 0.0);
                x[self.obs_len + h as usize] = 1.0;
                Some((h as usize, bonus))
            }
            (Some(_), _) => {
                return Err(Error::InvalidPolicy {
                    reason: format!(
                        "policy:{} takes the heuristic's action (0 to {}) as an input",
                        self.name,
                        self.num_actions - 1
                    ),
                });
            }
        };
        for (k, layer) in self.layers.iter().enumerate() {
            let mut y = layer.bias.clone();
            for (i, &xi) in x.iter().enumerate() {
                // Observations are mostly zeros, and so are hidden units after a ReLU.
                if xi != 0.0 {
                    let row = &layer.weights[i * layer.outputs..(i + 1) * layer.outputs];
                    for (yo, &w) in y.iter_mut().zip(row) {
                        *yo += xi * w;
                    }
                }
            }
            if k + 1 < self.layers.len() {
                for v in &mut y {
                    *v = v.max(0.0);
                }
            }
            x = y;
        }
        if let Some((h, bonus)) = hint {
            x[h] += bonus;
        }
        Ok(x)
    }

    /// The legal action of the seat to act with the highest logit (lowest id on a tie),
    /// from `seat`'s observation (and the heuristic's action for `seat`, drawn with `rng`,
    /// if the policy takes it).
    ///
    /// # Errors
    /// [`Error::InvalidPolicy`] if the state's game is not the policy's;
    /// [`Error::GameOver`] if there is no legal action.
    pub fn action<S: State, R: Rng + ?Sized>(
        &self,
        state: &S,
        seat: usize,
        rng: &mut R,
    ) -> Result<Action, Error> {
        let game = state.game();
        self.check_game(
            <S::Game as Game>::NAME,
            game.observation_len(),
            game.num_distinct_actions(),
        )?;
        let mut obs = vec![0.0; self.obs_len];
        state.write_observation(seat, &mut obs)?;
        let hint = match self.hint {
            Some(_) => Some(state.heuristic_action(seat, rng)?),
            None => None,
        };
        let logits = self.logits(&obs, hint)?;
        let mut best: Option<(Action, f32)> = None;
        for a in state.legal_actions().iter() {
            let v = logits.get(a as usize).copied().unwrap_or(f32::NEG_INFINITY);
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((a, v));
            }
        }
        best.map(|(a, _)| a).ok_or(Error::GameOver)
    }
}

/// Builds a policy from its parts (what `cardhouse.train` exports, for tests and tools):
/// `hint` is the logit bonus of a policy that takes the heuristic's action (features 1),
/// `layers` are `(inputs, outputs, weights input-major, biases)`.
///
/// # Errors
/// As [`Policy::from_bytes`] (the parts must chain as a file's would).
pub fn from_parts(
    name: &str,
    game: &str,
    info: &str,
    obs_len: usize,
    num_actions: usize,
    hint: Option<f32>,
    layers: Vec<(usize, usize, Vec<f32>, Vec<f32>)>,
) -> Result<Policy, Error> {
    let policy = Policy {
        name: name.to_owned(),
        game: game.to_owned(),
        info: info.to_owned(),
        obs_len,
        num_actions,
        hint,
        layers: layers
            .into_iter()
            .map(|(inputs, outputs, weights, bias)| Layer {
                inputs,
                outputs,
                weights,
                bias,
            })
            .collect(),
    };
    // The checks of the parser, once.
    Policy::from_bytes(&policy.to_bytes())
}
