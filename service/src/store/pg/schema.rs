//! The PostgreSQL store's schema: refinery's versioned migrations
//! (`service/migrations/V<n>__<name>.sql`, embedded in the binary), applied at start under an
//! advisory lock so that replicas starting together migrate once.

use crate::store::StoreError;
use crate::store::pg::sql::{MIGRATION_LOCK, failed, pg_error};

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Migrates the schema on a connection of its own, under an advisory lock, and warns if the
/// database gives up durability (`synchronous_commit = off`).
///
/// # Errors
/// An unreachable database or a failed migration, with the database's own message.
pub(crate) async fn migrate(config: &tokio_postgres::Config) -> Result<(), StoreError> {
    let (mut client, conn) = config
        .connect(tokio_postgres::NoTls)
        .await
        .map_err(|e| failed(format!("cannot connect: {}", pg_error(&e))))?;
    let driver = tokio::spawn(conn);
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(|e| failed(pg_error(&e)))?;
    let report = embedded::migrations::runner()
        .run_async(&mut client)
        .await
        .map_err(|e| failed(format!("migrating the schema: {e}")));
    let unlock = client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await;
    let report = report?;
    unlock.map_err(|e| failed(pg_error(&e)))?;
    for m in report.applied_migrations() {
        tracing::info!(
            version = m.version(),
            name = m.name(),
            "applied a schema migration"
        );
    }
    let sync = client
        .query_one("SHOW synchronous_commit", &[])
        .await
        .map_err(|e| failed(pg_error(&e)))?;
    let sync: String = sync.get(0);
    if sync == "off" {
        tracing::warn!(
            "PostgreSQL has synchronous_commit = off: a database crash can lose moves \
             the server acknowledged"
        );
    }
    drop(client);
    let _ = driver.await;
    Ok(())
}
