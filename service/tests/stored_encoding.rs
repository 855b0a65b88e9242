//! Stored matches written by an earlier version of the server still read as the same
//! matches: the encoding of seats and statuses in a store is frozen, whatever the API's
//! protobuf enums become.
//!
//! `tests/data/stored_encoding/` holds what a server wrote, committed once:
//!
//! * `dir/`: a data directory (`matches.redb` and `moves.log`, not yet folded), four matches;
//! * `postgres-rows.tsv`: the rows of PostgreSQL's `matches` table for four such matches,
//!   every column as written (`bytea` in hex);
//! * `cases.tsv`: which match is which case, and its owner token.
//!
//! Between them the cases hold every seat kind (human, random, heuristic, IS-MCTS bots) and
//! every status (active, finished, resigned, aborted). Each is read back through the store
//! (checked as a served match is, its codes decoded into the service's own `Seat` and
//! `MatchStatus`) and through a server (the status and seats it answers in the API's terms).
//!
//! To write the data again (only for a deliberate change of the stored encoding, reviewed as
//! such; needs PostgreSQL as `tests/replicas/` does):
//! `cargo test -p cardhouse-server --test stored_encoding -- --ignored regenerate`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cardhouse_server::domain::{BotSeat, MatchStatus, Seat};
use cardhouse_server::matches::MatchLimits;
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use cardhouse_server::store::check::check;
use cardhouse_server::store::local::{DirConfig, LocalStore};
use cardhouse_server::store::pg::{PgConfig, PgStore};
use cardhouse_server::store::{MatchStore, Newer, SharedStore, StoredMatch};
use cardhouse_server::{Config, StoreConfig};
use common::postgres::TestDb;
use common::{TestServer, authed};
use tonic::transport::Channel;

/// Seat kinds as stored (the numbers are frozen: they are what the data holds).
const HUMAN: i32 = 1;
const RANDOM: i32 = 2;
const HEURISTIC: i32 = 3;
const ISMCTS: i32 = 4;
/// Statuses as stored.
const ACTIVE: i32 = 1;
const FINISHED: i32 = 2;
const RESIGNED: i32 = 3;
const ABORTED: i32 = 4;

/// One stored match: how it was made and what it must read as.
struct Case {
    name: &'static str,
    game: &'static str,
    options: &'static [(&'static str, &'static str)],
    /// Stored seat codes.
    seats: &'static [i32],
    /// Stored status code.
    status: i32,
    resigned_seat: Option<u32>,
    ismcts_iterations: u32,
}

const CASES: [Case; 4] = [
    Case {
        name: "active",
        game: "jass",
        options: &[],
        seats: &[HUMAN, RANDOM, HEURISTIC, ISMCTS],
        status: ACTIVE,
        resigned_seat: None,
        ismcts_iterations: 20,
    },
    Case {
        name: "finished",
        game: "klaberjass",
        options: &[("scope", "deal")],
        seats: &[RANDOM, HEURISTIC],
        status: FINISHED,
        resigned_seat: None,
        ismcts_iterations: 0,
    },
    Case {
        name: "resigned",
        game: "cribbage",
        options: &[],
        seats: &[HEURISTIC, HUMAN],
        status: RESIGNED,
        resigned_seat: Some(1),
        ismcts_iterations: 0,
    },
    Case {
        name: "aborted",
        game: "avinas",
        options: &[],
        seats: &[HUMAN, ISMCTS, RANDOM, HUMAN],
        status: ABORTED,
        resigned_seat: None,
        ismcts_iterations: 10,
    },
];

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/stored_encoding")
}

/// The seat kinds as the API names them.
fn pb_seats(case: &Case) -> Vec<i32> {
    case.seats
        .iter()
        .map(|&k| match k {
            HUMAN => pb::SeatKind::Human as i32,
            RANDOM => pb::SeatKind::RandomBot as i32,
            HEURISTIC => pb::SeatKind::HeuristicBot as i32,
            ISMCTS => pb::SeatKind::IsmctsBot as i32,
            _ => unreachable!(),
        })
        .collect()
}

/// The seats as the service holds them (written out here, not derived from the service's
/// own table of codes).
fn domain_seats(case: &Case) -> Vec<Seat> {
    case.seats
        .iter()
        .map(|&k| match k {
            HUMAN => Seat::Human,
            RANDOM => Seat::Bot(BotSeat::Random),
            HEURISTIC => Seat::Bot(BotSeat::Heuristic),
            ISMCTS => Seat::Bot(BotSeat::Ismcts),
            _ => unreachable!(),
        })
        .collect()
}

/// The status as the service holds it.
fn domain_status(case: &Case) -> MatchStatus {
    match case.status {
        ACTIVE => MatchStatus::Active,
        FINISHED => MatchStatus::Finished,
        RESIGNED => MatchStatus::Resigned,
        ABORTED => MatchStatus::Aborted,
        _ => unreachable!(),
    }
}

/// The status as the API names it.
fn pb_status(case: &Case) -> i32 {
    (match case.status {
        ACTIVE => pb::MatchStatus::Active,
        FINISHED => pb::MatchStatus::Finished,
        RESIGNED => pb::MatchStatus::Resigned,
        ABORTED => pb::MatchStatus::Aborted,
        _ => unreachable!(),
    }) as i32
}

/// `cases.tsv`: (backend, case) -> (match id, owner token).
fn cases() -> BTreeMap<(String, String), (String, String)> {
    let text = std::fs::read_to_string(data().join("cases.tsv")).expect("cases.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "cases.tsv: {l}");
            (
                (f[0].to_owned(), f[1].to_owned()),
                (f[2].to_owned(), f[3].to_owned()),
            )
        })
        .collect()
}

fn case_named(name: &str) -> &'static Case {
    CASES.iter().find(|c| c.name == name).expect("a case")
}

/// What a stored match must read as: checked as a served match is, with the case's seats,
/// status, resigned seat and bot budget, as stored and as the service decodes them.
fn assert_reads_as(m: &StoredMatch, case: &Case) {
    let (state, header) = check(m).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    assert_eq!(header.seats, domain_seats(case), "{}: seats", case.name);
    assert_eq!(header.status, domain_status(case), "{}: status", case.name);
    assert_eq!(state.game().name(), case.game, "{}", case.name);
    assert_eq!(m.seats, case.seats, "{}: seats", case.name);
    assert_eq!(m.status, case.status, "{}: status", case.name);
    assert_eq!(m.resigned_seat, case.resigned_seat, "{}", case.name);
    assert_eq!(m.ismcts_iterations, case.ismcts_iterations, "{}", case.name);
    assert_eq!(
        state.is_terminal(),
        case.status == FINISHED,
        "{}: terminal",
        case.name
    );
}

/// Limits under which nothing of the data is swept however old it is.
fn keep_everything() -> MatchLimits {
    let century = Duration::from_secs(100 * 365 * 24 * 3600);
    MatchLimits {
        retention: century,
        abandon_after: century,
        ..MatchLimits::default()
    }
}

/// Every case of `backend` served by `server`: the owner's view says the case's status,
/// seats and resigned seat in the API's terms.
async fn assert_served(server: &TestServer, backend: &str) {
    let mut c = server.matches().await;
    for ((b, name), (id, owner)) in cases() {
        if b != backend {
            continue;
        }
        let case = case_named(&name);
        let view = c
            .get_view(authed(
                &owner,
                pb::GetViewRequest {
                    match_id: id.clone(),
                },
            ))
            .await
            .unwrap_or_else(|s| panic!("{backend} {name}: {s:?}"))
            .into_inner()
            .view
            .expect("a view");
        assert_eq!(view.status, pb_status(case), "{backend} {name}: status");
        assert_eq!(view.seats, pb_seats(case), "{backend} {name}: seats");
        assert_eq!(view.resigned_seat, case.resigned_seat, "{backend} {name}");
    }
}

/// A copy of the committed data directory (opening it folds its log: the original stays
/// as committed).
fn copy_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for name in ["matches.redb", "moves.log"] {
        std::fs::copy(data().join("dir").join(name), dir.path().join(name)).expect(name);
    }
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_directory_of_the_frozen_encoding_reads_as_written() {
    let dir = copy_dir();
    let path = dir.path().to_owned();
    let (store, opened) =
        tokio::task::spawn_blocking(move || LocalStore::open(&DirConfig::new(path)))
            .await
            .unwrap()
            .expect("the data directory opens");
    assert!(opened.damaged.is_empty(), "{:?}", opened.damaged);
    let cases = cases();
    let mut seen = 0;
    for ((backend, name), (id, _)) in &cases {
        if backend != "dir" {
            continue;
        }
        let m = opened
            .matches
            .iter()
            .find(|m| &m.id == id)
            .unwrap_or_else(|| panic!("{name} ({id}) is not in the data directory"));
        assert_reads_as(m, case_named(name));
        seen += 1;
    }
    assert_eq!((seen, opened.matches.len()), (CASES.len(), CASES.len()));
    store.close().await;

    let dir = copy_dir();
    let server = TestServer::start(Config {
        store: StoreConfig::Dir(DirConfig::new(dir.path())),
        matches: keep_everything(),
        ..Config::default()
    })
    .await;
    assert_served(&server, "dir").await;
    server.stop().await;
}

/// The committed PostgreSQL rows: `(case, columns)`.
fn pg_rows() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(data().join("postgres-rows.tsv")).expect("rows");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f: Vec<String> = l.split('\t').map(str::to_owned).collect();
            assert_eq!(f.len(), PG_COLUMNS.len() + 1, "postgres-rows.tsv: {l}");
            let case = f.remove(0);
            (case, f)
        })
        .collect()
}

/// The columns of `matches` in `postgres-rows.tsv`, in order (`bytea` ones in hex).
const PG_COLUMNS: [&str; 11] = [
    "id",
    "header",
    "state",
    "tail",
    "version",
    "move_number",
    "status",
    "resigned_seat",
    "ended_at_ms",
    "touched_ms",
    "driving",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_rows_of_the_frozen_encoding_read_as_written() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    // Creates the schema.
    let store = PgStore::open(&PgConfig {
        pool_size: 2,
        notices: false,
        ..PgConfig::new(db.url.clone())
    })
    .await
    .expect("the store");
    let client = db.client().await;
    let rows = pg_rows();
    for (_, f) in &rows {
        // Every column as text, cast by PostgreSQL: what was dumped is what is inserted.
        client
            .execute(
                "INSERT INTO matches (id, header, state, tail, version, move_number, status, \
                 resigned_seat, ended_at_ms, touched_ms, driving) VALUES ($1, \
                 decode($2, 'hex'), decode($3, 'hex'), decode($4, 'hex'), $5::text::bigint, \
                 $6::text::bigint, $7::text::integer, NULLIF($8, '')::integer, \
                 $9::text::bigint, $10::text::bigint, $11::text::boolean)",
                &[
                    &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10],
                ],
            )
            .await
            .expect("a committed row");
    }
    client
        .execute(
            "UPDATE match_count SET n = $1 WHERE id = 1",
            &[&(rows.len() as i64)],
        )
        .await
        .unwrap();
    let cases = cases();
    let mut seen = 0;
    for ((backend, name), (id, _)) in &cases {
        if backend != "postgres" {
            continue;
        }
        let case = case_named(name);
        let Ok(Newer::Changed(loaded)) = store.load(id, None).await else {
            panic!("{name} ({id}) did not load");
        };
        assert_reads_as(&loaded.stored, case);
        seen += 1;
    }
    assert_eq!((seen, rows.len()), (CASES.len(), CASES.len()));
    let listed = store.list("", 100, true).await.expect("the listing");
    assert_eq!(listed.len(), CASES.len());
    for l in &listed {
        let (_, name) = cases
            .iter()
            .find(|((b, _), (id, _))| b == "postgres" && id == &l.id)
            .map(|(k, _)| k)
            .expect("a listed case");
        let case = case_named(name);
        assert_eq!(l.game, case.game, "{name}");
        let seats: Vec<Seat> = l.seats.iter().map(|s| s.expect("a known seat")).collect();
        assert_eq!(seats, domain_seats(case), "{name}: listed seats");
        assert_eq!(l.status, Some(domain_status(case)), "{name}: listed status");
    }
    store.close().await;

    let server = TestServer::start(Config {
        store: StoreConfig::Postgres(PgConfig::new(db.url.clone())),
        matches: keep_everything(),
        ..Config::default()
    })
    .await;
    assert_served(&server, "postgres").await;
    server.stop().await;
}

// ---------------------------------------------------------------------------------------
// Writing the data (see the module docs): not run by `cargo test`.

/// Makes every case on `server`; returns `(case, match id, owner token)`.
async fn make_cases(server: &TestServer) -> Vec<(&'static str, String, String)> {
    let mut c = server.matches().await;
    let mut out = Vec::new();
    for case in &CASES {
        let r = c
            .create_match(pb::CreateMatchRequest {
                game: case.game.into(),
                options: common::opts(case.options),
                seed: Some(7),
                seats: pb_seats(case),
                ismcts_iterations: (case.ismcts_iterations > 0).then_some(case.ismcts_iterations),
                bots: Default::default(),
                time_control: None,
            })
            .await
            .expect("a match")
            .into_inner();
        let id = r.match_id.clone();
        let owner = r.owner_token.clone();
        let seat_token = |seat: u32| {
            r.seat_tokens
                .iter()
                .find(|t| t.seat == Some(seat))
                .map(|t| t.token.clone())
                .expect("a seat token")
        };
        match case.status {
            ACTIVE | ABORTED => {
                // Until a human must decide (the bots' moves are played in the background).
                wait_for(&mut c, &id, &owner, |v| {
                    v.current_player
                        .as_ref()
                        .and_then(|p| p.seat)
                        .is_some_and(|s| case.seats[s as usize] == HUMAN)
                })
                .await;
                if case.status == ABORTED {
                    c.abort_match(authed(
                        &owner,
                        pb::AbortMatchRequest {
                            match_id: id.clone(),
                        },
                    ))
                    .await
                    .expect("aborted");
                }
            }
            FINISHED => {
                wait_for(&mut c, &id, &owner, |v| {
                    v.status == pb::MatchStatus::Finished as i32
                })
                .await;
            }
            RESIGNED => {
                let seat = case.resigned_seat.unwrap();
                c.resign(authed(
                    &seat_token(seat),
                    pb::ResignRequest {
                        match_id: id.clone(),
                        seat: None,
                    },
                ))
                .await
                .expect("resigned");
            }
            _ => unreachable!(),
        }
        out.push((case.name, id, owner));
    }
    out
}

/// Waits (up to a minute) until the owner's view of match `id` satisfies `done`.
async fn wait_for(
    c: &mut MatchesClient<Channel>,
    id: &str,
    owner: &str,
    done: impl Fn(&pb::MatchView) -> bool,
) {
    let start = Instant::now();
    loop {
        let view = c
            .get_view(authed(
                owner,
                pb::GetViewRequest {
                    match_id: id.to_owned(),
                },
            ))
            .await
            .expect("a view")
            .into_inner()
            .view
            .expect("a view");
        if done(&view) {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{view:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "writes the committed test data; run only to change the stored encoding"]
async fn regenerate() {
    let out = data();
    let dir = out.join("dir");
    let _ = std::fs::remove_dir_all(&dir);
    let server = TestServer::start(Config {
        store: StoreConfig::Dir(DirConfig::new(&dir)),
        ..Config::default()
    })
    .await;
    let local = make_cases(&server).await;
    server.stop().await;

    let db = TestDb::create().await.expect("PostgreSQL");
    let server = TestServer::start(Config {
        store: StoreConfig::Postgres(PgConfig::new(db.url.clone())),
        ..Config::default()
    })
    .await;
    let shared = make_cases(&server).await;
    server.stop().await;
    let rows = db
        .client()
        .await
        .query(
            "SELECT id, encode(header, 'hex'), encode(state, 'hex'), encode(tail, 'hex'), \
             version::text, move_number::text, status::text, \
             coalesce(resigned_seat::text, ''), ended_at_ms::text, touched_ms::text, \
             driving::text FROM matches ORDER BY id",
            &[],
        )
        .await
        .expect("the rows");
    let mut tsv = format!("# case\t{}\n", PG_COLUMNS.join("\t"));
    for row in rows {
        let id: String = row.get(0);
        let (name, _, _) = shared.iter().find(|(_, i, _)| *i == id).expect("a case");
        let columns: Vec<String> = (0..PG_COLUMNS.len()).map(|i| row.get(i)).collect();
        tsv.push_str(&format!("{name}\t{}\n", columns.join("\t")));
    }
    std::fs::write(out.join("postgres-rows.tsv"), tsv).unwrap();

    let mut manifest = "# backend\tcase\tmatch id\towner token\n".to_owned();
    for (backend, made) in [("dir", &local), ("postgres", &shared)] {
        for (name, id, owner) in made {
            manifest.push_str(&format!("{backend}\t{name}\t{id}\t{owner}\n"));
        }
    }
    std::fs::write(out.join("cases.tsv"), manifest).unwrap();
}
