//! TLS to PostgreSQL (`sslmode`, `sslrootcert` in the store URL), against a PostgreSQL
//! instance of the test's own that accepts TLS connections only (`hostssl` in `pg_hba.conf`),
//! its certificate made at run time by a CA of the test's own.
//!
//! Skipped, with the reason, only where no PostgreSQL binaries exist (see
//! `common/pg_instance.rs`), unless `CARDHOUSE_REQUIRE_POSTGRES=1` (CI): then that fails.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use cardhouse_server::pb;
use cardhouse_server::store::pg::PgConnect;
use common::certs::Ca;
use common::pg_instance::{PgInstance, Setup, binaries};
use common::process::Server;

/// The instance (TLS only, a certificate for `localhost` from `ca`), and the files of the
/// right and a wrong CA; `None` (after saying why) without PostgreSQL binaries.
struct Tls {
    pg: PgInstance,
    _files: tempfile::TempDir,
    ca: PathBuf,
    wrong_ca: PathBuf,
}

fn start() -> Option<Tls> {
    let Some(bin) = binaries() else {
        let why = "no PostgreSQL binaries (/usr/lib/postgresql/<version>/bin or CARDHOUSE_PG_BIN)";
        if std::env::var("CARDHOUSE_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") {
            panic!("{why}, and CARDHOUSE_REQUIRE_POSTGRES=1 says these tests must run");
        }
        eprintln!("skipping: {why}");
        return None;
    };
    let ca = Ca::new("cardhouse test CA");
    let server = ca.issue(&["localhost"]);
    let setup = Setup {
        files: vec![
            ("server.crt", server.cert_pem.into_bytes()),
            ("server.key", server.key_pem.into_bytes()),
        ],
        conf: "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n".into(),
        // TLS only: a plain connection finds no entry and is refused.
        hba: "local all all trust\nhostssl all all 127.0.0.1/32 trust\n".into(),
    };
    let pg = PgInstance::start(&bin, &setup);
    let files = tempfile::tempdir().unwrap();
    let ca_file = files.path().join("ca.pem");
    let wrong_file = files.path().join("wrong-ca.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    std::fs::write(&wrong_file, Ca::new("another CA").pem()).unwrap();
    Some(Tls {
        pg,
        _files: files,
        ca: ca_file,
        wrong_ca: wrong_file,
    })
}

impl Tls {
    /// A URL of database `db` on host `host` (connecting to 127.0.0.1 either way), with
    /// `options` (`sslmode=…&sslrootcert=…`).
    fn url(&self, host: &str, db: &str, options: &str) -> String {
        let sep = if options.is_empty() { "" } else { "&" };
        format!(
            "postgres://postgres@{host}:{}/{db}?hostaddr=127.0.0.1{sep}{options}",
            self.pg.port
        )
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Connects with `url` and asks the server whether the connection is TLS.
async fn ssl_of(url: &str) -> Result<bool, String> {
    let connect = PgConnect::parse(url).map_err(|e| e.to_string())?;
    let client = tokio::time::timeout(Duration::from_secs(10), connect.connect())
        .await
        .map_err(|_| format!("{url}: no answer within 10 s"))?
        .map_err(|e| e.to_string())?;
    let row = client
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(row.get(0))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_honour_sslmode_and_sslrootcert() {
    let Some(t) = start() else { return };
    let (ca, wrong) = (path(&t.ca), path(&t.wrong_ca));
    let ok = |url: String| async move {
        match ssl_of(&url).await {
            Ok(ssl) => assert!(ssl, "{url}: connected without TLS"),
            Err(e) => panic!("{url}: {e}"),
        }
    };
    let refused = |url: String, why: &'static str| async move {
        match ssl_of(&url).await {
            Ok(ssl) => panic!("{url}: connected (ssl {ssl}), but should be refused ({why})"),
            Err(e) => {
                assert!(e.contains(why), "{url}: refused, but not for {why:?}: {e}");
                e
            }
        }
    };

    // Encrypted without checking the certificate, as libpq does.
    ok(t.url("localhost", "postgres", "sslmode=require")).await;
    ok(t.url("localhost", "postgres", "sslmode=prefer")).await;
    // The chain checked (and the host name with verify-full).
    ok(t.url(
        "localhost",
        "postgres",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    ))
    .await;
    ok(t.url(
        "localhost",
        "postgres",
        &format!("sslmode=verify-ca&sslrootcert={ca}"),
    ))
    .await;
    ok(t.url(
        "localhost",
        "postgres",
        &format!("sslmode=require&sslrootcert={ca}"),
    ))
    .await;

    // A certificate from a CA not trusted: refused by every verifying mode (require with a
    // root certificate file verifies like verify-ca, as in libpq).
    for mode in ["verify-full", "verify-ca", "require"] {
        let e = refused(
            t.url(
                "localhost",
                "postgres",
                &format!("sslmode={mode}&sslrootcert={wrong}"),
            ),
            "UnknownIssuer",
        )
        .await;
        assert!(e.contains("TLS"), "{e}");
    }

    // The host connected to is not the one the certificate names: verify-full refuses,
    // verify-ca (chain only) accepts.
    refused(
        t.url(
            "127.0.0.1",
            "postgres",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        "certificate not valid for name",
    )
    .await;
    ok(t.url(
        "127.0.0.1",
        "postgres",
        &format!("sslmode=verify-ca&sslrootcert={ca}"),
    ))
    .await;

    // Plain connections: the server has no entry for them.
    for options in ["sslmode=disable", ""] {
        let e = refused(
            t.url("localhost", "postgres", options),
            "no pg_hba.conf entry",
        )
        .await;
        assert!(e.contains("no encryption"), "{e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_keeps_every_store_connection_on_tls() {
    let Some(t) = start() else { return };
    let ca = path(&t.ca);
    let admin = PgConnect::parse(&t.url("localhost", "postgres", "sslmode=require"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    admin
        .batch_execute("CREATE DATABASE cardhouse")
        .await
        .unwrap();

    // A wrong CA, and plain TCP, keep the server from starting, saying why.
    for (options, why) in [
        (
            format!("sslmode=verify-full&sslrootcert={}", path(&t.wrong_ca)),
            "UnknownIssuer",
        ),
        ("sslmode=disable".to_owned(), "no pg_hba.conf entry"),
    ] {
        let url = t.url("localhost", "cardhouse", &options);
        let failed = Server::spawn(&["--store", &url])
            .wait()
            .map(|_| ())
            .expect_err("the server started");
        assert!(!failed.status.success());
        assert!(failed.stderr.contains(why), "{url}: {}", failed.stderr);
    }

    let url = t.url(
        "localhost",
        "cardhouse",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    );
    let server = Server::must_start(&["--store", &url]);
    let mut c = server.matches().await;
    let created = c
        .create_match(pb::CreateMatchRequest {
            game: "klaberjass".into(),
            options: common::opts(&[("first_dealer", "1")]),
            seed: Some(3),
            seats: vec![pb::SeatKind::Human as i32, pb::SeatKind::RandomBot as i32],
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .expect("CreateMatch over a TLS store")
        .into_inner();
    let token = created.seat_tokens[0].token.clone();
    let view = c
        .get_view(common::authed(
            &token,
            pb::GetViewRequest {
                match_id: created.match_id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap();
    c.act(common::authed(
        &token,
        pb::ActRequest {
            match_id: created.match_id.clone(),
            action: Some(pb::act_request::Action::ActionId(
                view.legal_actions[0].id(),
            )),
            expected_move_number: Some(view.move_number),
            include_view: false,
        },
    ))
    .await
    .expect("Act over a TLS store");

    // Every connection the server holds to its database is TLS: the pool's, the change
    // notices' listener and notifier (three at least).
    let rows = admin
        .query(
            "SELECT s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) \
             WHERE a.datname = 'cardhouse' AND a.backend_type = 'client backend'",
            &[],
        )
        .await
        .unwrap();
    let ssl: Vec<bool> = rows.iter().map(|r| r.get(0)).collect();
    assert!(ssl.len() >= 3, "the server holds {} connections", ssl.len());
    assert!(ssl.iter().all(|&s| s), "plain connections among {ssl:?}");
    drop(server);
}
