//! A fresh PostgreSQL database per test, dropped afterwards (also when the test panics).
//!
//! The server is named by `CARDHOUSE_TEST_POSTGRES` (an admin URL, default
//! `postgres://postgres@127.0.0.1:5432/postgres`). Without a reachable server a test is
//! skipped with a message, unless `CARDHOUSE_REQUIRE_POSTGRES=1` (CI): then it fails.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_postgres::{Client, NoTls};

/// The admin URL when `CARDHOUSE_TEST_POSTGRES` is unset.
pub const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A database `cardhouse_test_<pid>_<n>`, dropped (`WITH (FORCE)`) when this is dropped.
pub struct TestDb {
    /// The database's URL, for `cardhouse serve --store`.
    pub url: String,
    pub name: String,
    admin_url: String,
}

fn admin_url() -> String {
    std::env::var("CARDHOUSE_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_ADMIN_URL.to_owned())
}

fn required() -> bool {
    std::env::var("CARDHOUSE_REQUIRE_POSTGRES").is_ok_and(|v| v == "1")
}

/// Connects, driving the connection on the current runtime.
pub async fn connect(url: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// `url` with its database name replaced by `name` (the path after the authority; a
/// query string is kept).
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let authority_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let mut out = format!("{}/{name}", &base[..authority_end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

impl TestDb {
    /// Creates a fresh, empty database; `None` (after printing why) if no server answers and
    /// `CARDHOUSE_REQUIRE_POSTGRES=1` is not set.
    pub async fn create() -> Option<TestDb> {
        let admin_url = admin_url();
        let admin = match tokio::time::timeout(Duration::from_secs(10), connect(&admin_url)).await {
            Ok(Ok(c)) => c,
            outcome => {
                let why = match outcome {
                    Ok(Err(e)) => match std::error::Error::source(&e) {
                        Some(cause) => format!("{e}: {cause}"),
                        None => e.to_string(),
                    },
                    _ => "no answer within 10 s".to_owned(),
                };
                if required() {
                    panic!(
                        "no PostgreSQL at {admin_url} ({why}), and CARDHOUSE_REQUIRE_POSTGRES=1 \
                         says these tests must run; set CARDHOUSE_TEST_POSTGRES to an admin URL"
                    );
                }
                eprintln!(
                    "skipping: no PostgreSQL at {admin_url} ({why}); set CARDHOUSE_TEST_POSTGRES \
                     to an admin URL (CARDHOUSE_REQUIRE_POSTGRES=1 makes this a failure)"
                );
                return None;
            }
        };
        let name = format!(
            "cardhouse_test_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        // A leftover of an earlier run whose process had the same id.
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await
            .expect("drop a leftover test database");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap_or_else(|e| panic!("CREATE DATABASE {name} on {admin_url}: {e}"));
        Some(TestDb {
            url: with_database(&admin_url, &name),
            name,
            admin_url,
        })
    }

    /// A client of this database.
    pub async fn client(&self) -> Client {
        connect(&self.url)
            .await
            .expect("connect to the test database")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        // On a thread of its own with its own runtime: this may run inside a test's runtime
        // (or while it unwinds), where blocking on a future is not allowed.
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            rt.block_on(async {
                let admin = connect(&admin_url).await.map_err(|e| e.to_string())?;
                admin
                    .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .await
                    .map_err(|e| e.to_string())
            })
        })
        .join();
        match dropped {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("could not drop test database {}: {e}", self.name),
            Err(_) => eprintln!("could not drop test database {}: panicked", self.name),
        }
    }
}
