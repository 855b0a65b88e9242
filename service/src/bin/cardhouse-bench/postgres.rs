//! The PostgreSQL database of a run: created beside the admin URL's database, dropped at the
//! end (or on a panic).

/// The URL of database `db` on the PostgreSQL server that `admin` (a `postgres://` URL or
/// a `key=value` connection string) points at.
fn database_url(admin: &str, db: &str) -> String {
    let Some(scheme_end) = admin.find("://") else {
        // key=value form: a later dbname overrides an earlier one.
        return format!("{admin} dbname={db}");
    };
    let (base, query) = admin.split_at(admin.find('?').unwrap_or(admin.len()));
    let authority_start = scheme_end + 3;
    let base = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    format!("{base}/{db}{query}")
}

/// A PostgreSQL error with the server's message (tokio-postgres shows only "db error").
pub(crate) fn pg_error(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{e}: {}", db.message()),
        None => format!("{e}"),
    }
}

async fn pg_connect(url: &str) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// A database created for this run, dropped by [`BenchDatabase::drop_now`] or, should the
/// bench fail first, when this value is dropped.
pub(crate) struct BenchDatabase {
    admin: String,
    pub(crate) name: String,
    pub(crate) url: String,
    dropped: bool,
}

impl BenchDatabase {
    /// Creates `cardhouse_bench_<pid>` and says what PostgreSQL it is on.
    pub(crate) async fn create(
        admin: &str,
    ) -> Result<(BenchDatabase, String), tokio_postgres::Error> {
        let client = pg_connect(admin).await?;
        let name = format!("cardhouse_bench_{}", std::process::id());
        // Separate statements: CREATE DATABASE cannot run in the implicit transaction of a
        // multi-statement query.
        client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .await?;
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await?;
        let mut about = Vec::new();
        for setting in [
            "server_version",
            "fsync",
            "synchronous_commit",
            "max_connections",
        ] {
            let row = client.query_one(&format!("SHOW {setting}"), &[]).await?;
            about.push(format!("{setting} {}", row.get::<_, String>(0)));
        }
        let db = BenchDatabase {
            admin: admin.to_owned(),
            url: database_url(admin, &name),
            name,
            dropped: false,
        };
        Ok((db, about.join(", ")))
    }

    async fn drop_database(admin: &str, name: &str) -> Result<(), tokio_postgres::Error> {
        let client = pg_connect(admin).await?;
        // FORCE (PostgreSQL 13+) ends connections a stopped server may not have closed yet.
        let forced = client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await;
        if forced.is_err() {
            client
                .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
                .await?;
        }
        Ok(())
    }

    pub(crate) async fn drop_now(mut self) {
        self.dropped = true;
        match Self::drop_database(&self.admin, &self.name).await {
            Ok(()) => println!("dropped database {}", self.name),
            Err(e) => eprintln!("could not drop database {}: {}", self.name, pg_error(&e)),
        }
    }
}

impl Drop for BenchDatabase {
    fn drop(&mut self) {
        if self.dropped {
            return;
        }
        // On a panic: drop the database from a thread of its own (this may run inside the
        // runtime, which cannot block on a future itself).
        let (admin, name) = (self.admin.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?
                .block_on(Self::drop_database(&admin, &name))
                .ok()
        })
        .join();
        if !matches!(dropped, Ok(Some(()))) {
            eprintln!("could not drop database {}", self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::database_url;

    #[test]
    fn database_url_replaces_the_database() {
        let cases = [
            (
                "postgres://postgres@127.0.0.1:5432/postgres",
                "postgres://postgres@127.0.0.1:5432/b",
            ),
            ("postgres://u:p@h:5432", "postgres://u:p@h:5432/b"),
            ("postgresql://h/", "postgresql://h/b"),
            (
                "postgres://h/db?sslmode=disable",
                "postgres://h/b?sslmode=disable",
            ),
            (
                "postgres://h?connect_timeout=3",
                "postgres://h/b?connect_timeout=3",
            ),
            ("host=h user=u dbname=x", "host=h user=u dbname=x dbname=b"),
        ];
        for (admin, want) in cases {
            assert_eq!(database_url(admin, "b"), want, "{admin}");
        }
    }
}
