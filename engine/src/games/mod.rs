//! One module per game. Game code lives only here.

pub mod cribbage;
pub mod jass;
