//! One module per game. Game code lives only here.
//!
//! A game is registered by its one line in the list below, which declares its module and
//! names its variant, its [`crate::Game`] and its [`crate::State`]: the registry
//! ([`crate::AnyGame`], [`crate::AnyState`], [`crate::list_games`], decoding any state) and
//! everything built on it (the bots' shipped policies, the Python module, the gRPC service,
//! the web table) learn the list from it. The list's order is the registry's order. How to add
//! a game, step by step: `engine/src/games/README.md`.

/// Declares each game's module and defines `for_each_game!`, which calls a macro with the
/// whole list (`$` is passed in as `$d`, so that the inner macro may have metavariables).
macro_rules! games {
    ($d:tt $($module:ident: $variant:ident($game:ident, $state:ident) = $doc:literal,)*) => {
        $(pub mod $module;)*

        /// Calls `$callback! { (args…) Variant(module::Game, module::State) = "doc", … }`
        /// with every registered game, in registry order.
        macro_rules! for_each_game {
            ($d callback:ident $d($d args:tt)*) => {
                $d callback! { ($d($d args)*) $($variant($crate::games::$module::$game, $crate::games::$module::$state) = $doc,)* }
            };
        }
        pub(crate) use for_each_game;
    };
}

games! { $
    jass: Jass(JassGame, JassState) = "Swiss Jass, Schieber.",
    klaberjass: Klaberjass(KlaberjassGame, KlaberjassState) = "Klaberjass (two players).",
    cribbage: Cribbage(CribbageGame, CribbageState) = "Cribbage for 2, 3 or 4 players.",
    avinas: Avinas(AvinasGame, AvinasState) = "Avinas.",
}
