//! One module per game. Game code lives only here.
//!
//! A game is registered by its one line in the list below, which declares its module and
//! names its variant, its [`crate::Game`] and its [`crate::State`]: the registry
//! ([`crate::AnyGame`], [`crate::AnyState`], [`crate::list_games`], decoding any state) and
//! everything built on it (the bots' shipped policies, the Python module, the gRPC service,
//! the web table) learn the list from it. The list's order is the registry's order.
//!
//! Every game folder has one shape, the same file for the same concern (`options.rs` with the
//! `impl Game`, `text.rs` with the text forms, `scoring.rs`, …), described with each file's
//! concern in `engine/src/games/README.md` and checked against the folders by a test here.
//! How to add a game, step by step: the same page.

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

/// `README.md` in this folder against the folders: one folder per registered game, named as
/// the game; in each, the files every game has; every other file named on the page.
#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    const README: &str = include_str!("README.md");

    /// The files every game has, as the page's first table lists them.
    const EVERY_GAME: [&str; 11] = [
        "mod.rs",
        "options.rs",
        "ids.rs",
        "deal.rs",
        "play.rs",
        "scoring.rs",
        "observation.rs",
        "view.rs",
        "text.rs",
        "resample.rs",
        "heuristic.rs",
    ];
    /// The files a game has where it has the phase or ships it.
    const WHERE_NEEDED: [&str; 3] = ["bidding.rs", "solve.rs", "policy.chp"];

    fn entries(dir: &Path) -> BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| {
                e.expect("a folder entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn every_game_folder_has_the_shape_its_readme_describes() {
        let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/games");
        let folders: BTreeSet<String> = entries(&games)
            .into_iter()
            .filter(|f| games.join(f).is_dir())
            .collect();
        let registered: BTreeSet<String> =
            crate::list_games().iter().map(|&n| n.to_owned()).collect();
        assert_eq!(
            folders, registered,
            "one folder per game, named as the game"
        );
        for file in EVERY_GAME.iter().chain(&WHERE_NEEDED) {
            assert!(
                README.contains(&format!("| `{file}` |")),
                "README.md has no row for {file}"
            );
        }
        for game in &folders {
            let files = entries(&games.join(game));
            for file in EVERY_GAME {
                assert!(files.contains(file), "{game}/ has no {file}");
            }
            for file in &files {
                let common =
                    EVERY_GAME.contains(&file.as_str()) || WHERE_NEEDED.contains(&file.as_str());
                assert!(
                    common || README.contains(&format!("| `{game}/{file}` |")),
                    "{game}/{file} is not named in README.md"
                );
            }
        }
        // And every file the page names for one game exists.
        for row in README.lines().filter_map(|l| l.strip_prefix("| `")) {
            if let Some((path, _)) = row.split_once("` |") {
                if let Some((game, file)) = path.split_once('/') {
                    assert!(
                        games.join(game).join(file).is_file(),
                        "README.md names {path}, which does not exist"
                    );
                }
            }
        }
    }
}
