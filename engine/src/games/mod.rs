//! One module per game. Game code lives only here.

pub mod avinas;
pub mod cribbage;
pub mod jass;
pub mod klaberjass;
