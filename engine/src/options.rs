//! Game options: what a caller passes, how each game declares them, and their validation.
//!
//! Callers pass [`Options`], a map from the snake_case names of the rules files to
//! [`OptionValue`]s. Values may also arrive as strings (`"1000"`, `"true"`) because gRPC
//! metadata and command lines carry text. Each game declares its options as [`OptionSpec`]s
//! and validates with [`OptionSpec::resolve`]: an unknown key or a bad value is an
//! [`Error`] naming the key and what is allowed; nothing falls back to a default silently.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Error;

/// An option value as a caller gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A name from a list of choices, or any value written as text.
    Str(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Str(s) => f.write_str(s),
        }
    }
}

impl From<bool> for OptionValue {
    fn from(v: bool) -> Self {
        OptionValue::Bool(v)
    }
}
impl From<i64> for OptionValue {
    fn from(v: i64) -> Self {
        OptionValue::Int(v)
    }
}
impl From<i32> for OptionValue {
    fn from(v: i32) -> Self {
        OptionValue::Int(i64::from(v))
    }
}
impl From<&str> for OptionValue {
    fn from(v: &str) -> Self {
        OptionValue::Str(v.to_owned())
    }
}
impl From<String> for OptionValue {
    fn from(v: String) -> Self {
        OptionValue::Str(v)
    }
}

/// Options as given: option name → value. Missing options take their defaults.
pub type Options = BTreeMap<String, OptionValue>;

/// Builds [`Options`] from pairs: `options([("scope", "deal".into())])`.
#[must_use]
pub fn options<K: Into<String>, I: IntoIterator<Item = (K, OptionValue)>>(pairs: I) -> Options {
    pairs.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

/// The kind of value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false` (also the strings `"true"`/`"false"`).
    Bool,
    /// An integer in `min..=max`.
    Int {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// One of these names.
    Choice(&'static [&'static str]),
}

/// One option of a game: its name, kind, default and a one-line rule comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// snake_case name from the rules file.
    pub name: &'static str,
    /// What values it takes.
    pub kind: OptionKind,
    /// The default, written as the canonical text of a value.
    pub default: &'static str,
    /// What the option changes.
    pub doc: &'static str,
}

/// A validated option value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A boolean option.
    Bool(bool),
    /// An integer option.
    Int(i64),
    /// A choice option: the index into its list of names.
    Choice(usize),
}

impl OptionSpec {
    /// Text describing the allowed values, used in error messages.
    #[must_use]
    pub fn allowed(&self) -> String {
        match self.kind {
            OptionKind::Bool => "true or false".to_owned(),
            OptionKind::Int { min, max } => format!("an integer from {min} to {max}"),
            OptionKind::Choice(names) => format!("one of {}", names.join(", ")),
        }
    }

    /// Validates `value` for this option of `game`.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] naming the key, the value and what is allowed.
    pub fn check(&self, game: &str, value: &OptionValue) -> Result<Resolved, Error> {
        let bad = || Error::InvalidOption {
            game: game.to_owned(),
            key: self.name.to_owned(),
            value: value.to_string(),
            allowed: self.allowed(),
        };
        match (self.kind, value) {
            (OptionKind::Bool, OptionValue::Bool(b)) => Ok(Resolved::Bool(*b)),
            (OptionKind::Bool, OptionValue::Str(s)) => match s.as_str() {
                "true" => Ok(Resolved::Bool(true)),
                "false" => Ok(Resolved::Bool(false)),
                _ => Err(bad()),
            },
            (OptionKind::Int { min, max }, OptionValue::Int(i)) if (min..=max).contains(i) => {
                Ok(Resolved::Int(*i))
            }
            (OptionKind::Int { min, max }, OptionValue::Str(s)) => match s.trim().parse::<i64>() {
                Ok(i) if (min..=max).contains(&i) => Ok(Resolved::Int(i)),
                _ => Err(bad()),
            },
            (OptionKind::Choice(names), OptionValue::Str(s)) => names
                .iter()
                .position(|n| n == s)
                .map(Resolved::Choice)
                .ok_or_else(bad),
            // A choice among names that are numbers (a seat: `random`, `0`, `1`, …) also
            // accepts the integer, as Python and gRPC callers pass it.
            (OptionKind::Choice(names), OptionValue::Int(i)) => names
                .iter()
                .position(|n| *n == i.to_string())
                .map(Resolved::Choice)
                .ok_or_else(bad),
            _ => Err(bad()),
        }
    }

    /// The default as a resolved value.
    ///
    /// # Panics
    /// Never for the engine's own specs: a unit test checks that every default is valid.
    #[must_use]
    pub fn default_value(&self) -> Resolved {
        self.check("", &OptionValue::Str(self.default.to_owned()))
            .expect("option defaults are valid (checked by tests)")
    }

    /// The canonical [`OptionValue`] of a resolved value of this option.
    #[must_use]
    pub fn value_of(&self, resolved: Resolved) -> OptionValue {
        match (self.kind, resolved) {
            (OptionKind::Choice(names), Resolved::Choice(i)) => {
                OptionValue::Str(names[i].to_owned())
            }
            (_, Resolved::Bool(b)) => OptionValue::Bool(b),
            (_, Resolved::Int(i)) => OptionValue::Int(i),
            (_, Resolved::Choice(i)) => OptionValue::Int(i as i64),
        }
    }

    /// Resolves every spec from `given`: defaults for missing keys, an error for unknown keys
    /// or bad values. The result is in spec order.
    ///
    /// # Errors
    /// [`Error::UnknownOption`] or [`Error::InvalidOption`].
    pub fn resolve(
        game: &str,
        specs: &[OptionSpec],
        given: &Options,
    ) -> Result<Vec<Resolved>, Error> {
        for key in given.keys() {
            if !specs.iter().any(|s| s.name == key) {
                return Err(Error::UnknownOption {
                    game: game.to_owned(),
                    key: key.clone(),
                    allowed: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                });
            }
        }
        specs
            .iter()
            .map(|spec| match given.get(spec.name) {
                Some(v) => spec.check(game, v),
                None => Ok(spec.default_value()),
            })
            .collect()
    }
}

/// The `scope` option every game has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Played to the target score, as people play (default).
    Match,
    /// One deal, then terminal (for reinforcement learning).
    Deal,
}

/// The spec of the `scope` option, shared by all games.
pub const SCOPE_SPEC: OptionSpec = OptionSpec {
    name: "scope",
    kind: OptionKind::Choice(&["match", "deal"]),
    default: "match",
    doc: "match: play to the target score; deal: the state is terminal after one deal",
};

impl Scope {
    /// From a resolved `scope` value.
    #[must_use]
    pub fn from_resolved(r: Resolved) -> Scope {
        if r == Resolved::Choice(1) {
            Scope::Deal
        } else {
            Scope::Match
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] = &[
        SCOPE_SPEC,
        OptionSpec {
            name: "n",
            kind: OptionKind::Int { min: 1, max: 9 },
            default: "3",
            doc: "",
        },
        OptionSpec {
            name: "b",
            kind: OptionKind::Bool,
            default: "false",
            doc: "",
        },
    ];

    #[test]
    fn defaults_fill_missing_keys() {
        let r = OptionSpec::resolve("g", SPECS, &Options::new()).unwrap();
        assert_eq!(
            r,
            vec![Resolved::Choice(0), Resolved::Int(3), Resolved::Bool(false)]
        );
    }

    #[test]
    fn strings_are_accepted_for_every_kind() {
        let given = options([
            ("scope", "deal".into()),
            ("n", "7".into()),
            ("b", "true".into()),
        ]);
        let r = OptionSpec::resolve("g", SPECS, &given).unwrap();
        assert_eq!(
            r,
            vec![Resolved::Choice(1), Resolved::Int(7), Resolved::Bool(true)]
        );
    }

    #[test]
    fn unknown_key_names_the_allowed_keys() {
        let err = OptionSpec::resolve("g", SPECS, &options([("nope", 1.into())])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown option `nope` for game `g`; its options are: scope, n, b"
        );
    }

    #[test]
    fn bad_values_name_what_is_allowed() {
        let err = OptionSpec::resolve("g", SPECS, &options([("n", 10.into())])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value `10` for option `n` of game `g`: allowed an integer from 1 to 9"
        );
        let err =
            OptionSpec::resolve("g", SPECS, &options([("scope", "game".into())])).unwrap_err();
        assert!(err.to_string().contains("one of match, deal"));
        assert!(OptionSpec::resolve("g", SPECS, &options([("b", 1.into())])).is_err());
    }

    #[test]
    fn numeric_choices_accept_integers() {
        const SEAT: &[OptionSpec] = &[OptionSpec {
            name: "first_dealer",
            kind: OptionKind::Choice(&["random", "0", "1"]),
            default: "random",
            doc: "",
        }];
        let r = OptionSpec::resolve("g", SEAT, &options([("first_dealer", 1.into())])).unwrap();
        assert_eq!(r, vec![Resolved::Choice(2)]);
        assert!(OptionSpec::resolve("g", SEAT, &options([("first_dealer", 2.into())])).is_err());
        assert!(OptionSpec::resolve("g", SPECS, &options([("scope", 0.into())])).is_err());
    }
}
