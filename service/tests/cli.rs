//! `cardhouse simulate` and `cardhouse play`, end to end through the built binary.

use std::io::Write;
use std::process::{Command, Stdio};

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

#[test]
fn simulate_prints_win_rates_and_is_independent_of_threads() {
    let run = |threads: &str| {
        let (ok, out, err) = cardhouse(
            &[
                "simulate",
                "jass",
                "-o",
                "scope=deal",
                "wys=auto",
                "--bots",
                "heuristic,random",
                "--matches",
                "40",
                "--duplicate",
                "--seed",
                "5",
                "--threads",
                threads,
                "--json",
            ],
            "",
        );
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
        v["sides"].clone()
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    let heuristic = &one[0];
    assert_eq!(
        heuristic["bots"],
        serde_json::json!(["heuristic", "heuristic"])
    );
    assert!(heuristic["win_rate"].as_f64().unwrap() > 0.5);
    let ci = heuristic["win_rate_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() <= heuristic["win_rate"].as_f64().unwrap());

    let (ok, out, _) = cardhouse(
        &["simulate", "jass", "-o", "scope=deal", "--matches", "10"],
        "",
    );
    assert!(ok);
    assert!(out.contains("win rate (95% CI)"), "{out}");
    assert!(out.contains("matches/s"), "{out}");
}

#[test]
fn simulate_explains_bad_input() {
    let (ok, _, err) = cardhouse(&["simulate", "jass", "--bots", "clever"], "");
    assert!(!ok);
    assert!(
        err.contains("unknown bot `clever`") && err.contains("heuristic"),
        "{err}"
    );
    let (ok, _, err) = cardhouse(&["simulate", "jass", "-o", "target_score=0"], "");
    assert!(!ok);
    assert!(err.contains("target_score"), "{err}");
    let (ok, _, err) = cardhouse(&["simulate", "jass", "--bots", "random,random,random"], "");
    assert!(!ok);
    assert!(err.contains("3 bots for 4 seats"), "{err}");
}

#[test]
fn play_runs_a_whole_deal_from_piped_input() {
    // Always the first move offered; a wrong number and a wrong text first.
    let mut input = String::from("99\nplay nothing\n");
    input.push_str(&"1\n".repeat(200));
    let (ok, out, err) = cardhouse(
        &[
            "play",
            "jass",
            "-o",
            "scope=deal",
            "--seed",
            "3",
            "--bots",
            "random",
        ],
        &input,
    );
    assert!(ok, "{err}");
    assert!(out.contains("hand"), "{out}");
    assert!(out.contains("[1] "), "{out}");
    assert!(out.contains("there is no move 99"), "{out}");
    assert!(out.contains("Not allowed:"), "{out}");
    assert!(out.contains("seat 1 (random):"), "{out}");
    assert!(out.contains("Game over."), "{out}");
    assert!(out.contains("Returns per seat"), "{out}");
}

#[test]
fn play_stops_cleanly_when_the_input_ends() {
    let (ok, out, _) = cardhouse(&["play", "jass", "--seed", "1"], "quit\n");
    assert!(ok);
    assert!(out.contains("Bye."), "{out}");
}
