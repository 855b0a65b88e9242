//! Trained policies on the command line: `--bots policy:NAME` (shipped with the engine) and
//! `--bots policy:PATH` (a file written by `python -m cardhouse.train`), in `simulate` and
//! `play`, and the errors for a missing, malformed or mismatched file.

use std::io::Write;
use std::process::{Command, Stdio};

use cardhouse::bots::policy::{from_parts, shipped_names};
use cardhouse::{new_game, options};

fn cardhouse(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardhouse"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A small policy file for `game` (zero weights: it plays the heuristic's move) in a fresh
/// temporary directory.
fn policy_file(game: &str, tag: &str) -> std::path::PathBuf {
    let g = new_game(game, &options([("scope", "deal".into())])).expect("game");
    let (o, a) = (g.observation_len(), g.num_distinct_actions());
    let layers = vec![
        (o + a, 4, vec![0.0; (o + a) * 4], vec![0.0; 4]),
        (4, a, vec![0.0; 4 * a], vec![0.0; a]),
    ];
    let p = from_parts("tiny", game, "test", o, a, Some(1.0), layers).expect("parts");
    let dir =
        std::env::temp_dir().join(format!("cardhouse-cli-policy-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(format!("{game}.chp"));
    std::fs::write(&path, p.to_bytes()).expect("write");
    path
}

#[test]
fn simulate_plays_a_policy_file_and_the_shipped_policies() {
    let path = policy_file("cribbage", "sim");
    let bots = format!("policy:{},heuristic", path.display());
    let (ok, out, err) = cardhouse(
        &[
            "simulate",
            "cribbage",
            "-o",
            "scope=deal",
            "--bots",
            &bots,
            "--matches",
            "20",
            "--duplicate",
            "--threads",
            "1",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("policy:tiny"), "{out}");
    for name in shipped_names() {
        let g = cardhouse::bots::policy::shipped(name).expect("shipped");
        let bots = format!("policy:{name},heuristic");
        let (ok, out, err) = cardhouse(
            &[
                "simulate",
                g.game(),
                "-o",
                "scope=deal",
                "--bots",
                &bots,
                "--matches",
                "4",
                "--threads",
                "1",
            ],
            "",
        );
        assert!(ok, "{name}: {err}");
        assert!(out.contains(&format!("policy:{name}")), "{out}");
    }
}

#[test]
fn play_against_a_policy() {
    let path = policy_file("klaberjass", "play");
    let bots = format!("policy:{}", path.display());
    // Piped input ends at once: the session stops cleanly after the policy's first moves.
    let (ok, out, err) = cardhouse(
        &[
            "play",
            "klaberjass",
            "-o",
            "scope=deal",
            "--seat",
            "1",
            "--bots",
            &bots,
            "--seed",
            "3",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("policy:tiny"), "{out}");
}

#[test]
fn bad_policies_are_named() {
    let (ok, _, err) = cardhouse(
        &["simulate", "jass", "--bots", "policy:/nonexistent/x.chp"],
        "",
    );
    assert!(!ok);
    assert!(err.contains("policy file `/nonexistent/x.chp`"), "{err}");
    let dir = std::env::temp_dir().join(format!("cardhouse-cli-policy-{}-bad", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let junk = dir.join("junk.chp");
    std::fs::write(&junk, b"not a policy").expect("write");
    let (ok, _, err) = cardhouse(
        &[
            "simulate",
            "jass",
            "--bots",
            &format!("policy:{}", junk.display()),
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("CHPOLICY"), "{err}");
    let (ok, _, err) = cardhouse(&["simulate", "jass", "--bots", "policy:nosuch"], "");
    assert!(!ok);
    assert!(err.contains("policy:nosuch"), "{err}");
    // A cribbage policy at a jass table.
    let crib = policy_file("cribbage", "mismatch");
    let bots = format!("policy:{},random", crib.display());
    let (ok, _, err) = cardhouse(
        &[
            "simulate",
            "jass",
            "-o",
            "scope=deal",
            "--bots",
            &bots,
            "--matches",
            "2",
        ],
        "",
    );
    assert!(!ok);
    assert!(err.contains("plays cribbage, not jass"), "{err}");
}
