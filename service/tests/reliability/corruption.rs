//! Damage to the data directory (a flipped bit, a bad length, a torn tail, a missing or
//! empty file, a database behind its log) is reported, never silently repaired.

use super::*;

// ---------------------------------------------------------------------------------------------
// Corruption
// ---------------------------------------------------------------------------------------------

/// A data directory with two matches and some moves; the server stopped by SIGKILL, so the
/// moves are still in the log (not folded).
async fn played_dir(dir: &Path) -> Vec<(String, String)> {
    let server = must_start(dir, &[]);
    let mut c = server.matches().await;
    let mut out = Vec::new();
    for seed in [1, 2] {
        let g = create(&mut c, seed).await;
        for step in 0..6 {
            let v = view(&mut c, &g).await;
            c.act(authed(&g.token, act_request(&g, &v, step)))
                .await
                .unwrap();
        }
        out.push((g.id.clone(), g.token.clone()));
    }
    server.kill9();
    out
}

fn log_path(dir: &Path) -> PathBuf {
    dir.join("moves.log")
}

fn db_path(dir: &Path) -> PathBuf {
    dir.join("matches.redb")
}

fn refused(dir: &Path, extra: &[&str]) -> Failed {
    match start(dir, extra) {
        Ok(s) => panic!("the server started on a corrupt store: {}", s.stderr()),
        Err(f) => f,
    }
}

fn assert_refused(f: &Failed, file: &str, what: &str) {
    assert!(!f.status.success(), "{f:?}");
    assert!(f.stdout.is_empty(), "announced an address: {f:?}");
    assert!(
        f.stderr.contains(file) && f.stderr.contains(what),
        "the error should name {file} and say {what:?}: {}",
        f.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_in_the_middle_of_the_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    let mut bytes = std::fs::read(log_path(dir.path())).unwrap();
    let len = bytes.len();
    // Well inside: past the magic and the first records, far from the end.
    bytes[len / 3] ^= 0x04;
    std::fs::write(log_path(dir.path()), &bytes).unwrap();
    let addr_file = dir.path().join("addr");
    let f = refused(dir.path(), &["--addr-file", addr_file.to_str().unwrap()]);
    assert_refused(&f, "moves.log", "corrupt at offset");
    assert!(
        !addr_file.exists(),
        "--addr-file written by a server that cannot start"
    );
    // Nothing was changed by the refusal.
    assert_eq!(std::fs::read(log_path(dir.path())).unwrap(), bytes);
    // The documented recovery flag keeps what is consistent and says what it dropped.
    let server = must_start(dir.path(), &["--salvage"]);
    assert!(server.stderr().contains("salvage"), "{}", server.stderr());
    server.kill9();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_length_in_the_middle_of_the_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    let mut bytes = std::fs::read(log_path(dir.path())).unwrap();
    // The first record after the magic: make its length huge.
    bytes[8 + 2] = 0x7f;
    std::fs::write(log_path(dir.path()), &bytes).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "moves.log", "corrupt at offset");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_tail_is_dropped_with_a_warning_and_every_acknowledged_move_kept() {
    let dir = tempfile::tempdir().unwrap();
    let games = played_dir(dir.path()).await;
    // What the matches look like with the whole log.
    let views = {
        let server = must_start(dir.path(), &[]);
        let mut c = server.matches().await;
        let mut v = Vec::new();
        for (id, token) in &games {
            v.push(
                view(
                    &mut c,
                    &Game {
                        id: id.clone(),
                        token: token.clone(),
                        owner: String::new(),
                    },
                )
                .await,
            );
        }
        server.kill9();
        v
    };
    // A new log was started by that open; append a record cut short, as a crash would.
    let mut bytes = std::fs::read(log_path(dir.path())).unwrap();
    bytes.extend_from_slice(&[9, 0, 0, 0, 1, 2]);
    std::fs::write(log_path(dir.path()), &bytes).unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    for ((id, token), before) in games.iter().zip(&views) {
        let g = Game {
            id: id.clone(),
            token: token.clone(),
            owner: String::new(),
        };
        assert!(same_view(before, &view(&mut c, &g).await));
    }
    let log = server.stderr();
    assert!(
        log.contains("torn tail") && log.contains("moves.log"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zero_length_database_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    std::fs::write(db_path(dir.path()), b"").unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "matches.redb", "empty");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_database_beside_a_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    std::fs::remove_file(db_path(dir.path())).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "matches.redb", "missing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_log_beside_a_database_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    std::fs::remove_file(log_path(dir.path())).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "moves.log", "missing");
}

/// The database falls back to an earlier commit (here: an older copy of the file is put
/// back), while the log holds what came after: refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_behind_the_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    // Open once (folds), keep a copy of the database, then create and play more.
    let server = must_start(dir.path(), &[]);
    server.kill9();
    let old = std::fs::read(db_path(dir.path())).unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    let g = create(&mut c, 9).await;
    let v = view(&mut c, &g).await;
    c.act(authed(&g.token, act_request(&g, &v, 0)))
        .await
        .unwrap();
    server.kill9();
    std::fs::write(db_path(dir.path()), &old).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "", "behind the");
}
