//! Damage to a data directory, against the real `cardhouse` binary on `127.0.0.1:0`:
//!
//! * one match's stored snapshot with a flipped bit (after a clean stop, after a SIGKILL),
//!   or a log entry the engine rejects, sets that match aside: the server starts, serves
//!   every other match, answers the damaged one `DATA_LOSS`, logs its id, the file and what
//!   is wrong, never sweeps it, and keeps its data byte for byte (repaired by hand, it is
//!   served again whole);
//! * damage to the store as a whole (a database behind its log, a torn middle of the log,
//!   a zero-length database, a missing log or database, a database redb cannot open, redb's
//!   "all roots are corrupted") stops the start, naming the file, and changes no byte of any
//!   file (every file's size and SHA-256, and the set of files, compared before and after);
//!   `--salvage` then starts, says what it dropped and keeps the damaged file aside.
//!
//! Every wait is bounded.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::process::{Failed, Server};
use common::{assert_data_loss, authed};
use sha2::{Digest, Sha256};
use tonic::transport::Channel;

type Client = MatchesClient<Channel>;

/// `cardhouse serve --data-dir <data> <extra>` on `127.0.0.1:0`.
fn start(data: &Path, extra: &[&str]) -> Result<Server, Failed> {
    let data = data.to_str().expect("a UTF-8 temporary path");
    let mut args = vec!["--data-dir", data];
    args.extend_from_slice(extra);
    Server::start(&args)
}

fn must_start(data: &Path, extra: &[&str]) -> Server {
    start(data, extra).unwrap_or_else(|f| panic!("server did not start: {f:?}"))
}

fn db_path(dir: &Path) -> PathBuf {
    dir.join("matches.redb")
}

fn log_path(dir: &Path) -> PathBuf {
    dir.join("moves.log")
}

/// A match of the tests: seat 0 human (or none), the owner.
#[derive(Clone)]
struct Game {
    id: String,
    token: String,
    owner: String,
}

/// A Jass match: seat 0 human, three random bots (each Act of seat 0 lets them play on).
async fn create(c: &mut Client, seed: u64) -> Game {
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: [("wys".to_owned(), "auto".to_owned())].into(),
            seed: Some(seed),
            seats: vec![
                pb::SeatKind::Human as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
            ],
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .expect("create")
        .into_inner();
    Game {
        id: r.match_id,
        token: r.seat_tokens[0].token.clone(),
        owner: r.owner_token,
    }
}

/// The match as its owner sees it (every match has an owner, not every one a human seat).
async fn owner_view(c: &mut Client, g: &Game) -> Result<pb::MatchView, tonic::Status> {
    Ok(c.get_view(authed(
        &g.owner,
        pb::GetViewRequest {
            match_id: g.id.clone(),
        },
    ))
    .await?
    .into_inner()
    .view
    .expect("a view"))
}

/// Seat 0's view, and its first legal move (action and move number).
async fn seat_move(c: &mut Client, g: &Game) -> (u32, u64) {
    let v = c
        .get_view(authed(
            &g.token,
            pb::GetViewRequest {
                match_id: g.id.clone(),
            },
        ))
        .await
        .expect("a view")
        .into_inner()
        .view
        .expect("a view");
    (
        v.legal_actions.first().map_or(0, pb::LegalAction::id),
        v.move_number,
    )
}

/// Seat 0 plays `moves` moves (its first legal action each time).
async fn play(c: &mut Client, g: &Game, moves: usize) {
    for _ in 0..moves {
        let (action, expected) = seat_move(c, g).await;
        c.act(authed(
            &g.token,
            pb::ActRequest {
                match_id: g.id.clone(),
                action: Some(pb::act_request::Action::ActionId(action)),
                expected_move_number: Some(expected),
                include_view: false,
            },
        ))
        .await
        .expect("a move");
    }
}

/// A data directory with `n` Jass matches of four moves each, the server stopped with
/// SIGKILL (`kill`) or SIGTERM: the moves are in the log, not yet folded.
async fn played(dir: &Path, n: u64, kill: bool) -> Vec<Game> {
    let server = must_start(dir, &[]);
    let mut c = server.matches().await;
    let mut games = Vec::new();
    for seed in 1..=n {
        let g = create(&mut c, seed).await;
        play(&mut c, &g, 4).await;
        games.push(g);
    }
    if kill {
        server.kill9();
    } else {
        let (status, _) = server.term();
        assert!(status.success());
    }
    games
}

/// Every file of `dir` (recursively) with its size and SHA-256.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("read the directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read a file");
                out.insert(path, (bytes.len() as u64, Sha256::digest(&bytes).to_vec()));
            }
        }
    }
    out
}

/// The start is refused with a message naming `file` and saying `what`, and no byte of
/// any file changed (nor the set of files).
fn assert_refused_unchanged(dir: &Path, file: &str, what: &str) {
    let before = snapshot(dir);
    let f = match start(dir, &[]) {
        Ok(s) => panic!("the server started on a damaged store: {}", s.stderr()),
        Err(f) => f,
    };
    assert!(!f.status.success(), "{f:?}");
    assert!(f.stdout.is_empty(), "announced an address: {f:?}");
    assert!(
        f.stderr.contains(file) && f.stderr.contains(what),
        "the error should name {file} and say {what:?}: {}",
        f.stderr
    );
    assert_eq!(
        snapshot(dir),
        before,
        "a refused start changed the directory"
    );
}

/// Starts with `--salvage`: it must serve, say what it dropped (`said`), and keep the
/// damaged `kept` file aside.
fn assert_salvaged(dir: &Path, said: &[&str], kept: Option<&str>) -> Server {
    let server = must_start(dir, &["--salvage"]);
    let log = server.stderr();
    for s in said {
        assert!(log.contains(s), "salvage should say {s:?}:\n{log}");
    }
    if let Some(kept) = kept {
        let prefix = format!("{kept}.salvaged-");
        let aside = std::fs::read_dir(dir)
            .expect("read the directory")
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with(&prefix));
        assert!(aside, "{kept} should be kept aside as {prefix}*:\n{log}");
    }
    server
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Flips the lowest bit of the second-to-last byte of the state snapshot in every copy of
/// match `id`'s header in the database file (redb writes pages anew, so older copies may
/// linger in free pages: all are flipped, the live one among them); flipping again restores
/// them. Returns how many copies were flipped.
fn flip_snapshot_bit(db: &Path, id: &str) -> usize {
    let mut bytes = std::fs::read(db).expect("read the database");
    let mut flipped = 0;
    let mut at = 0;
    while let Some(found) = find(&bytes, id.as_bytes(), at) {
        at = found + id.len();
        // In a header the id (field 2) is followed by the state (field 3, length-delimited),
        // which begins with the engine's magic.
        if bytes.get(at) != Some(&0x1a) {
            continue;
        }
        let (mut len, mut shift, mut i) = (0usize, 0, at + 1);
        while let Some(&b) = bytes.get(i) {
            len |= usize::from(b & 0x7f) << shift;
            shift += 7;
            i += 1;
            if b & 0x80 == 0 {
                break;
            }
        }
        if bytes.get(i..i + 3) != Some(b"CHS") || i + len > bytes.len() {
            continue;
        }
        bytes[i + len - 2] ^= 0x01;
        flipped += 1;
    }
    std::fs::write(db, &bytes).expect("write the database");
    flipped
}

// ---------------------------------------------------------------------------------------------
// One damaged match
// ---------------------------------------------------------------------------------------------

/// One bit flipped in one match's snapshot: that match is set aside, the others served.
async fn one_flipped_snapshot(kill: bool) {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 6, kill).await;
    let bad = &games[2];
    let stop = |server: Server| {
        if kill {
            server.kill9();
        } else {
            assert!(server.term().0.success());
        }
    };
    // A start folds the log into the snapshots; the bad match then gets two more moves,
    // left in the log: its stored data is a snapshot and log entries.
    let (views, bad_move) = {
        let server = must_start(dir.path(), &[]);
        let mut c = server.matches().await;
        play(&mut c, bad, 2).await;
        let mut views = Vec::new();
        for g in &games {
            views.push(owner_view(&mut c, g).await.expect("a view"));
        }
        let bad_move = seat_move(&mut c, bad).await;
        stop(server);
        (views, bad_move)
    };
    assert!(flip_snapshot_bit(&db_path(dir.path()), &bad.id) > 0);
    let server = must_start(dir.path(), &["--retention-secs", "1"]);
    let mut c = server.matches().await;
    for (i, g) in games.iter().enumerate() {
        if i != 2 {
            let v = owner_view(&mut c, g)
                .await
                .expect("another match is served");
            assert_eq!(v, views[i], "match {i} changed");
        }
    }
    assert_data_loss(
        &mut c,
        &bad.id,
        &bad.token,
        &bad.owner,
        bad_move,
        "set aside",
    )
    .await;
    let log = server.stderr();
    assert!(
        log.lines()
            .any(|l| l.contains(&bad.id) && l.contains("matches.redb") && l.contains("checksum")),
        "the log should name the match, the file and what is wrong:\n{log}"
    );
    // The others are played on; the damaged one is never swept (retention 1 s).
    play(&mut c, &games[0], 1).await;
    let moved = owner_view(&mut c, &games[0]).await.expect("a view");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    stop(server);
    // Still set aside after another start; what was played meanwhile is kept.
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    assert_eq!(owner_view(&mut c, &games[0]).await.expect("a view"), moved);
    assert_data_loss(&mut c, &bad.id, &bad.token, &bad.owner, bad_move, "again").await;
    assert!(server.term().0.success());
    assert!(
        !dir.path().join("matches.redb.check").exists(),
        "the repaired copy is left behind"
    );
    // Repaired by hand (the bit flipped back), it is served whole, the moves its log entries
    // held included: nothing of it was lost.
    assert!(flip_snapshot_bit(&db_path(dir.path()), &bad.id) > 0);
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    assert_eq!(owner_view(&mut c, bad).await.expect("repaired"), views[2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_in_one_snapshot_after_a_clean_stop_sets_that_match_aside() {
    one_flipped_snapshot(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_in_one_snapshot_after_a_sigkill_sets_that_match_aside() {
    one_flipped_snapshot(true).await;
}

/// FNV-1a (64 bit), as the move log's framing uses it.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A move log record, as `service/src/store/local/log.rs` writes it.
#[derive(Clone, PartialEq, prost::Message)]
struct LogEntry {
    #[prost(string, tag = "1")]
    id: String,
    #[prost(uint64, tag = "2")]
    from: u64,
    #[prost(uint32, repeated, tag = "3")]
    actions: Vec<u32>,
    #[prost(bool, tag = "4")]
    deleted: bool,
    #[prost(uint64, optional, tag = "5")]
    db_commit: Option<u64>,
}

/// Rewrites the last record of match `id` in the log with an action no state accepts,
/// framed and checksummed as a whole record (the log itself is sound).
fn reject_last_entry(log: &Path, id: &str) {
    let bytes = std::fs::read(log).expect("read the log");
    let mut records = Vec::new();
    let mut at = 8;
    while at + 16 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        records.push(bytes[at + 16..at + 16 + len].to_vec());
        at += 16 + len;
    }
    let last = records
        .iter()
        .rposition(|r| {
            <LogEntry as prost::Message>::decode(r.as_slice())
                .is_ok_and(|e| e.id == id && !e.actions.is_empty())
        })
        .expect("a record of the match");
    let mut entry = <LogEntry as prost::Message>::decode(records[last].as_slice()).unwrap();
    entry.actions[0] = 9_999;
    records[last] = prost::Message::encode_to_vec(&entry);
    let mut out = bytes[..8].to_vec();
    for r in &records {
        let len = (r.len() as u32).to_le_bytes();
        out.extend_from_slice(&len);
        out.extend_from_slice(&(fnv(&len) as u32).to_le_bytes());
        out.extend_from_slice(&fnv(r).to_le_bytes());
        out.extend_from_slice(r);
    }
    std::fs::write(log, out).expect("write the log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_entry_the_engine_rejects_sets_its_match_aside() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 3, true).await;
    let bad = &games[1];
    reject_last_entry(&log_path(dir.path()), &bad.id);
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    for g in [&games[0], &games[2]] {
        play(&mut c, g, 1).await;
    }
    assert_data_loss(
        &mut c,
        &bad.id,
        &bad.token,
        &bad.owner,
        (0, 0),
        "rejected entry",
    )
    .await;
    let log = server.stderr();
    assert!(
        log.lines()
            .any(|l| l.contains(&bad.id) && l.contains("moves.log") && l.contains("rejected")),
        "the log should name the match, the file and what is wrong:\n{log}"
    );
}

// ---------------------------------------------------------------------------------------------
// Damage to the store as a whole: refused, nothing changed; then salvaged
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_behind_its_log_is_refused_unchanged_then_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path(), 2, true).await;
    // Open once (folds), keep a copy of the database, then create and play more.
    must_start(dir.path(), &[]).kill9();
    let old = std::fs::read(db_path(dir.path())).unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    let later = create(&mut c, 9).await;
    play(&mut c, &later, 1).await;
    server.kill9();
    std::fs::write(db_path(dir.path()), &old).unwrap();
    assert_refused_unchanged(dir.path(), "matches.redb", "behind the");
    assert_salvaged(dir.path(), &["salvage", &later.id], Some("moves.log"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_middle_of_the_log_is_refused_unchanged_then_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 2, true).await;
    let mut bytes = std::fs::read(log_path(dir.path())).unwrap();
    let len = bytes.len();
    bytes[len / 3] ^= 0x04;
    std::fs::write(log_path(dir.path()), &bytes).unwrap();
    assert_refused_unchanged(dir.path(), "moves.log", "corrupt at offset");
    let server = assert_salvaged(
        dir.path(),
        &["salvage", "dropping everything"],
        Some("moves.log"),
    );
    // What was before the bad record is served.
    let mut c = server.matches().await;
    owner_view(&mut c, &games[0]).await.expect("kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zero_length_database_is_refused_unchanged_then_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 2, true).await;
    std::fs::write(db_path(dir.path()), b"").unwrap();
    assert_refused_unchanged(dir.path(), "matches.redb", "empty");
    assert_salvaged(
        dir.path(),
        &["salvage", &games[0].id, &games[1].id],
        Some("matches.redb"),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_log_beside_a_database_is_refused_unchanged_then_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 2, true).await;
    std::fs::remove_file(log_path(dir.path())).unwrap();
    assert_refused_unchanged(dir.path(), "moves.log", "missing");
    let server = assert_salvaged(dir.path(), &["salvage", "move log is missing"], None);
    // The matches are there, as their snapshots left them.
    let mut c = server.matches().await;
    owner_view(&mut c, &games[0]).await.expect("kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_database_beside_a_log_is_refused_unchanged_then_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 2, true).await;
    std::fs::remove_file(db_path(dir.path())).unwrap();
    assert_refused_unchanged(dir.path(), "matches.redb", "missing");
    assert_salvaged(
        dir.path(),
        &["salvage", &games[0].id, &games[1].id],
        Some("moves.log"),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_redb_cannot_open_is_refused_unchanged_then_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 2, false).await;
    let mut bytes = std::fs::read(db_path(dir.path())).unwrap();
    // redb's magic number.
    bytes[..4].copy_from_slice(b"junk");
    std::fs::write(db_path(dir.path()), &bytes).unwrap();
    assert_refused_unchanged(dir.path(), "matches.redb", "cannot read the database");
    assert_salvaged(
        dir.path(),
        &["salvage", &games[0].id, &games[1].id],
        Some("matches.redb"),
    );
}

/// redb's "all roots are corrupted": after a crash, a database whose last commit was not
/// two-phase (every commit of servers before the quick repair, here made so by clearing the
/// flag in redb's god byte) is repaired by verifying every page from both commit slots;
/// one page damaged in every copy (a match's header) fails both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_roots_corrupted_is_refused_unchanged_then_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 3, true).await;
    let db = db_path(dir.path());
    let mut bytes = std::fs::read(&db).unwrap();
    // The god byte follows redb's 9-byte magic; 4 is its two-phase-commit flag.
    assert_eq!(&bytes[1..4], b"edb");
    bytes[9] &= !4;
    std::fs::write(&db, &bytes).unwrap();
    assert!(flip_snapshot_bit(&db, &games[1].id) > 0);
    assert_refused_unchanged(dir.path(), "matches.redb", "All roots are corrupted");
    let server = assert_salvaged(
        dir.path(),
        &["salvage", &games[0].id, &games[1].id, &games[2].id],
        Some("matches.redb"),
    );
    // A new database: new matches can be created and survive a restart.
    let mut c = server.matches().await;
    let g = create(&mut c, 40).await;
    server.kill9();
    let server = must_start(dir.path(), &[]);
    owner_view(&mut server.matches().await, &g)
        .await
        .expect("a match of the new database");
}

/// Salvage on a sound directory changes nothing that matters: every match is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn salvage_on_a_sound_directory_keeps_every_match() {
    let dir = tempfile::tempdir().unwrap();
    let games = played(dir.path(), 2, true).await;
    let t = Instant::now();
    let server = must_start(dir.path(), &["--salvage"]);
    let mut c = server.matches().await;
    for g in &games {
        owner_view(&mut c, g).await.expect("kept");
    }
    assert!(t.elapsed() < Duration::from_secs(30));
    assert!(
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .all(|e| !e.file_name().to_string_lossy().contains("salvaged")),
        "nothing to keep aside"
    );
}
