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
    // The breakdown: the five sources add up to the raw points, times the multiplier
    // (each item `name a b`, or `multiplier m`).
    let items: Vec<(String, Vec<u64>)> = block[2]["  result: ".len()..]
        .split(", ")
        .map(|item| {
            let words: Vec<&str> = item.split(' ').collect();
            let numbers: Vec<u64> = words.iter().filter_map(|w| w.parse().ok()).collect();
            let name: Vec<&str> = words
                .iter()
                .copied()
                .filter(|w| w.parse::<u64>().is_err())
                .collect();
            (name.join(" "), numbers)
        })
        .collect();
    let pair = |name: &str| -> Vec<u64> {
        items
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no {name}: {block:?}"))
            .1
            .clone()
    };
    let multiplier = pair("multiplier")[0];
    let (raw, scored) = (pair("raw"), pair("scored"));
    for t in 0..2 {
        let parts: u64 = ["cards", "wys", "stoeck", "last trick", "match bonus"]
            .iter()
            .map(|n| pair(n)[t])
            .sum();
        assert_eq!(parts, raw[t], "{block:?}");
        assert_eq!(raw[t] * multiplier, scored[t], "{block:?}");
    }
    assert_eq!(
        pair("last trick")[0] + pair("last trick")[1],
        5,
        "{block:?}"
    );
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

/// Runs the binary with `args`, its standard output sent to `stdout`.
fn cardhouse_to(args: &[&str], stdin: &str, stdout: Stdio) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardhouse"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn simulate_bounds_matches_and_threads_with_a_clear_error() {
    for (args, message) in [
        (
            &["--matches", "1000000000000"][..],
            "--matches 1000000000000: must be from 1 to 100000000",
        ),
        (
            &["--matches", "18446744073709551615"],
            "--matches 18446744073709551615: must be from 1 to 100000000",
        ),
        (&["--matches", "0"], "--matches must be at least 1"),
        (
            &["--threads", "3000"],
            "--threads 3000: must be from 1 to 1024",
        ),
        (&["--threads", "0"], "--threads must be at least 1"),
    ] {
        let mut all = vec!["simulate", "jass", "-o", "scope=deal"];
        all.extend_from_slice(args);
        let (ok, _, err) = cardhouse(&all, "");
        assert!(!ok, "{args:?}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn simulate_says_when_a_thread_cannot_be_created() {
    // 1024 threads of 2 MiB stacks do not fit in 400 MB of address space.
    let script = format!(
        "ulimit -v 400000 && exec {} simulate jass -o scope=deal --matches 2000 --threads 1024",
        env!("CARGO_BIN_EXE_cardhouse")
    );
    let out = Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("sh");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("cannot create thread"), "{err}");
    assert!(err.contains("try fewer --threads"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_full_disk_fails_with_a_message_and_a_closed_pipe_ends_quietly() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // not Linux
    };
    let simulate = ["simulate", "jass", "-o", "scope=deal", "--matches", "20"];
    for json in [false, true] {
        let mut args = simulate.to_vec();
        if json {
            args.push("--json");
        }
        let (code, err) = cardhouse_to(&args, "", Stdio::from(full.try_clone().expect("fd")));
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("cannot write to standard output: No space left on device"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, err) = cardhouse_to(
        &["play", "jass", "--seed", "1"],
        "1\n1\n",
        Stdio::from(full),
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // A reader that goes away: `play` writes its table after reading a move, so its output
    // pipe has no reader by then.
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardhouse"))
        .args(["play", "jass", "--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all("1\n".repeat(50).as_bytes());
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The same for simulate, whose report comes after the matches are played.
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardhouse"))
        .args(["simulate", "jass", "-o", "scope=deal", "--matches", "200"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn play_of_one_deal_names_no_target() {
    // `scope = deal`: one deal is the whole game, in every game that has the option.
    for (game, expected) in [
        ("jass", "(one deal)"),
        ("klaberjass", "(one deal)"),
        ("cribbage", "(one deal)"),
    ] {
        let input = "1\n".repeat(400);
        let (ok, out, err) = cardhouse(&["play", game, "-o", "scope=deal", "--seed", "2"], &input);
        assert!(ok, "{game}: {err}");
        assert!(out.contains(expected), "{game}: {out}");
        assert!(!out.contains("(target "), "{game}: {out}");
    }
}
