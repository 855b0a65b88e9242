//! `cardhouse.cribbage`: the Cribbage hand scorer ([`cardhouse::games::cribbage::score_hand`]).
//!
//! The native items are registered on `cardhouse._core` under private names
//! (`_score_cribbage_hand`, `_CribbageHandScore`); the small Python module
//! `cardhouse/cribbage.py` exposes them as `cardhouse.cribbage.score_hand` and
//! `cardhouse.cribbage.HandScore`.

use cardhouse::games::cribbage::{HandScore, score_hand_text};
use pyo3::prelude::*;

use crate::errors::ResultExt;

/// The points of a Cribbage hand or crib with the starter, item by item (every field is in
/// points): ``fifteens`` (2 per set of cards summing to 15), ``pairs`` (2 per pair),
/// ``runs`` (run length times the number of runs), ``flush`` (4 or 5 in a hand, 5 or 0 in
/// the crib), ``nobs`` (1 for the Jack of the starter's suit) and their ``total``.
#[pyclass(name = "HandScore", module = "cardhouse.cribbage", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyHandScore {
    /// 2 points per distinct set of cards whose values sum to 15.
    #[pyo3(get)]
    fifteens: u8,
    /// 2 points per pair of cards of equal rank (pair royal 6, double pair royal 12).
    #[pyo3(get)]
    pairs: u8,
    /// The longest run length times the number of distinct runs of that length.
    #[pyo3(get)]
    runs: u8,
    /// 4 or 5 in a hand; 5 or 0 in the crib (all five cards of one suit).
    #[pyo3(get)]
    flush: u8,
    /// 1 for the Jack of the starter's suit in the hand or crib.
    #[pyo3(get)]
    nobs: u8,
    /// The sum of the items.
    #[pyo3(get)]
    total: u8,
}

impl From<HandScore> for PyHandScore {
    fn from(s: HandScore) -> Self {
        PyHandScore {
            fifteens: s.fifteens,
            pairs: s.pairs,
            runs: s.runs,
            flush: s.flush,
            nobs: s.nobs,
            total: s.total,
        }
    }
}

#[pymethods]
impl PyHandScore {
    fn __repr__(&self) -> String {
        format!(
            "HandScore(fifteens={}, pairs={}, runs={}, flush={}, nobs={}, total={})",
            self.fifteens, self.pairs, self.runs, self.flush, self.nobs, self.total
        )
    }

    /// The score as a dict of the six fields.
    fn as_dict(&self) -> std::collections::BTreeMap<&'static str, u8> {
        [
            ("fifteens", self.fifteens),
            ("pairs", self.pairs),
            ("runs", self.runs),
            ("flush", self.flush),
            ("nobs", self.nobs),
            ("total", self.total),
        ]
        .into_iter()
        .collect()
    }
}

/// Scores a Cribbage hand (or, with ``crib=True``, the crib) of four cards with the starter.
///
/// Cards are strings such as ``"5H"``, ``"10C"``, ``"JD"``, ``"AS"``. Returns a
/// :class:`HandScore`.
///
/// Raises:
///     InvalidCardError: a card that does not parse, a card given twice (hand and starter
///         included) or a hand of other than four cards; the message names the card.
#[pyfunction]
#[pyo3(signature = (hand, starter, crib = false))]
pub(crate) fn score_cribbage_hand(
    hand: Vec<String>,
    starter: &str,
    crib: bool,
) -> PyResult<PyHandScore> {
    score_hand_text(&hand, starter, crib)
        .py()
        .map(PyHandScore::from)
}

/// Registers the scorer on the native module under private names.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.setattr("_CribbageHandScore", py.get_type::<PyHandScore>())?;
    m.setattr(
        "_score_cribbage_hand",
        wrap_pyfunction!(score_cribbage_hand, m)?,
    )?;
    Ok(())
}
