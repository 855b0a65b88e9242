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
    assert!(out.contains("heuristic (seats 0, 2)"), "{out}");
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
    // `quit` asks; the end of the input answers.
    let (ok, out, _) = cardhouse(&["play", "jass", "--seed", "1"], "quit\n");
    assert!(ok);
    assert!(out.contains("Bye."), "{out}");
}

#[test]
fn play_jass_shows_each_deals_last_trick_and_result() {
    let input = "1\n".repeat(400);
    let (ok, out, err) = cardhouse(
        &["play", "jass", "-o", "target_score=300", "--seed", "1"],
        &input,
    );
    assert!(ok, "{err}");
    let at = out.find("Deal 1 over.").unwrap_or_else(|| panic!("{out}"));
    let block: Vec<&str> = out[at..].lines().take(3).collect();
    let trick = block[1]
        .strip_prefix("  last trick: ")
        .unwrap_or_else(|| panic!("{block:?}"));
    assert_eq!(trick.split(' ').count(), 4, "four cards: {trick}");
    assert!(block[2].starts_with("  result: mode "), "{block:?}");
    assert!(block[2].contains("scored"), "{block:?}");
}

#[test]
fn play_ends_with_the_final_table_avinas_pips_and_cribbage_skunks() {
    let input = "1\n".repeat(3000);
    let (ok, out, err) = cardhouse(
        &["play", "avinas", "-o", "pip_limit=2", "--seed", "3"],
        &input,
    );
    assert!(ok, "{err}");
    let end = out.rfind("Game over.").unwrap_or_else(|| panic!("{out}"));
    let table = &out[..end];
    let last_table = &table[table.rfind("avinas, seat 0").expect("a final table")..];
    assert!(last_table.contains("phase over"), "{last_table}");
    assert!(last_table.contains("pips: team 0"), "{last_table}");
    assert!(last_table.contains("game over: team"), "{last_table}");
    // Cribbage to 31: the loser is far below 91, so always skunked.
    let (ok, out, err) = cardhouse(
        &["play", "cribbage", "-o", "target_score=31", "--seed", "3"],
        &input,
    );
    assert!(ok, "{err}");
    assert!(out.contains("skunked (below 91: 2 games)"), "{out}");
}

#[test]
fn play_asks_before_quitting_and_help_explains_the_cards() {
    let (ok, out, _) = cardhouse(
        &["play", "cribbage", "--seed", "3"],
        "hello\nhelp\nq\nn\nquit\ny\n",
    );
    assert!(ok);
    assert!(out.contains("`quit` (or `q`)"), "{out}");
    // Cribbage suggests only what can be typed at a discard.
    assert!(
        out.contains("expected `discard <card>` (e.g. `discard 5H`)"),
        "{out}"
    );
    assert!(!out.contains("starter <card>"), "{out}");
    assert!(out.contains("Swiss suits (Jass): A acorns"), "{out}");
    assert!(out.contains("U Under, O Ober"), "{out}");
    assert_eq!(out.matches("Quit this game? [y/N]").count(), 2, "{out}");
    // `n` went back to the game: the moves were offered again before the second quit.
    let first = out.find("Quit this game?").expect("asked");
    assert!(out[first..].contains("your moves:"), "{out}");
    assert!(out.trim_end().ends_with("Bye."), "{out}");
}

#[test]
fn help_says_what_the_binary_does() {
    let (ok, out, _) = cardhouse(&["--help"], "");
    assert!(ok);
    for word in ["gRPC", "simulate", "play", "Jass", "Cribbage"] {
        assert!(out.contains(word), "{word}: {out}");
    }
}
