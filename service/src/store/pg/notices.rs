//! Change notices between replicas: each replica sends `NOTIFY cardhouse_changes` after its
//! committed changes (from a connection of its own, batched) and listens on another
//! connection, turning each payload into a [`Notice`].

use std::time::Duration;

use futures_util::StreamExt as _;
use tokio::sync::{mpsc, watch};
use tokio_postgres::AsyncMessage;

use crate::store::Notice;
use crate::store::pg::sql::pg_error;
use crate::store::pg::tls::PgConnect;

/// The channel of change notices.
pub(crate) const CHANNEL: &str = "cardhouse_changes";
/// Sends a batch of notices (the notifier's connection commits without waiting for the
/// disk: a notice is not data).
const NOTIFY: &str = "SELECT pg_notify('cardhouse_changes', p) FROM unnest($1::text[]) AS p";
/// Most notices sent in one statement.
const NOTIFY_BATCH: usize = 1024;

/// The listening task: `LISTEN cardhouse_changes` on a connection of its own, forwarding
/// each notice, reconnecting (with a [`Notice::Resync`]) whenever the connection is lost,
/// until `closed` is set or nobody takes notices any more.
pub(crate) async fn listen(
    connect: PgConnect,
    own: u64,
    tx: mpsc::UnboundedSender<Notice>,
    mut closed: watch::Receiver<bool>,
    mut ready: Option<tokio::sync::oneshot::Sender<Result<bool, String>>>,
) {
    loop {
        let connected = connect.config.connect(connect.tls.clone()).await;
        let (client, mut conn) = match connected {
            Ok(c) => c,
            Err(e) => {
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Err(format!("cannot listen: {}", pg_error(&e))));
                    return;
                }
                tracing::warn!(error = %pg_error(&e), "cannot reconnect the PostgreSQL listener; retrying");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    _ = closed.wait_for(|&c| c) => return,
                }
            }
        };
        let (payloads, mut incoming) = mpsc::unbounded_channel::<String>();
        let driver = tokio::spawn(async move {
            let mut messages = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
            while let Some(m) = messages.next().await {
                match m {
                    Ok(AsyncMessage::Notification(n)) => {
                        if payloads.send(n.payload().to_owned()).is_err() {
                            return;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!(error = %pg_error(&e), "the PostgreSQL listener's connection failed");
                        return;
                    }
                }
            }
        });
        if let Err(e) = client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
            driver.abort();
            if e.code() == Some(&tokio_postgres::error::SqlState::FEATURE_NOT_SUPPORTED)
                && let Some(ready) = ready.take()
            {
                tracing::warn!(
                    error = %pg_error(&e),
                    "this database has no LISTEN: change notices are off, and a Watch learns \
                     of moves made through other replicas within a second, from its poll"
                );
                let _ = ready.send(Ok(false));
                return;
            }
            if let Some(ready) = ready.take() {
                let _ = ready.send(Err(format!("cannot listen: {}", pg_error(&e))));
                return;
            }
            continue;
        }
        match ready.take() {
            Some(ready) => {
                let _ = ready.send(Ok(true));
            }
            None => {
                tracing::info!("the PostgreSQL listener is back");
                if tx.send(Notice::Resync).is_err() {
                    return;
                }
            }
        }
        loop {
            let payload = tokio::select! {
                p = incoming.recv() => p,
                _ = closed.wait_for(|&c| c) => {
                    driver.abort();
                    return;
                }
            };
            let Some(payload) = payload else { break };
            let Some((origin, notice)) = parse_notice(&payload) else {
                tracing::warn!(payload = %crate::error::clip(&payload, 80), "an unexpected notice");
                continue;
            };
            if origin == own {
                // This store's own change: its replica made it.
                continue;
            }
            if tx.send(notice).is_err() {
                driver.abort();
                return;
            }
        }
        drop(client);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
            _ = closed.wait_for(|&c| c) => return,
        }
    }
}

/// The notifying task: sends the notices of committed changes on a connection of its own,
/// everything waiting in one statement. Separate from the changes' own statements because
/// PostgreSQL serialises the commits of transactions that notify (a global lock held through
/// the commit's flush to disk): notifying in each change's statement cut the commit rate
/// about sixfold on our machines. A notice lost with a crashed replica or connection is made
/// good by the watchers' poll (the match service's), within a second.
pub(crate) async fn notify(
    connect: PgConnect,
    mut outgoing: mpsc::UnboundedReceiver<String>,
    mut closed: watch::Receiver<bool>,
) {
    let mut batch: Vec<String> = Vec::new();
    loop {
        let connected = connect.config.connect(connect.tls.clone()).await;
        let (client, conn) = match connected {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %pg_error(&e), "cannot connect the PostgreSQL notifier; retrying");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    _ = closed.wait_for(|&c| c) => return,
                }
            }
        };
        let driver = tokio::spawn(conn);
        let setup = async {
            client.batch_execute("SET synchronous_commit = off").await?;
            client.prepare(NOTIFY).await
        };
        let stmt = match setup.await {
            Ok(stmt) => stmt,
            Err(e) => {
                tracing::warn!(error = %pg_error(&e), "cannot set up the PostgreSQL notifier; retrying");
                driver.abort();
                continue;
            }
        };
        loop {
            if batch.is_empty() {
                let first = tokio::select! {
                    p = outgoing.recv() => p,
                    _ = closed.wait_for(|&c| c) => None,
                };
                let Some(first) = first else {
                    driver.abort();
                    return;
                };
                batch.push(first);
                while batch.len() < NOTIFY_BATCH {
                    match outgoing.try_recv() {
                        Ok(p) => batch.push(p),
                        Err(_) => break,
                    }
                }
            }
            match client.execute(&stmt, &[&batch]).await {
                Ok(_) => batch.clear(),
                Err(e) => {
                    // Sent again on a new connection (a notice twice is harmless).
                    tracing::warn!(error = %pg_error(&e), "the PostgreSQL notifier failed; reconnecting");
                    driver.abort();
                    break;
                }
            }
        }
    }
}

/// `"<origin> <id> <version>"` (the origin: the sending store's mark, hexadecimal), with
/// `" <from> <action>,…"` after it for a change that was actions alone
/// ([`Notice::Changed`]), or `"<origin> <id> -1"` for a deletion.
fn parse_notice(payload: &str) -> Option<(u64, Notice)> {
    let mut parts = payload.split(' ');
    let origin = u64::from_str_radix(parts.next()?, 16).ok()?;
    let id = parts.next()?.to_owned();
    let version = parts.next()?;
    if version == "-1" {
        return parts
            .next()
            .is_none()
            .then_some((origin, Notice::Deleted { id }));
    }
    let version = version.parse().ok()?;
    let moves = match (parts.next(), parts.next(), parts.next()) {
        (None, _, _) => None,
        (Some(from), Some(actions), None) => Some((
            from.parse().ok()?,
            actions
                .split(',')
                .map(str::parse)
                .collect::<Result<Vec<u32>, _>>()
                .ok()?,
        )),
        _ => return None,
    };
    Some((origin, Notice::Changed { id, version, moves }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_parse() {
        assert!(matches!(
            parse_notice("1f ab12 7"),
            Some((0x1f, Notice::Changed { id, version: 7, moves: None })) if id == "ab12"
        ));
        assert!(matches!(
            parse_notice("1f ab12 7 40 3,17,0"),
            Some((0x1f, Notice::Changed { id, version: 7, moves: Some((40, a)) }))
                if id == "ab12" && a == [3, 17, 0]
        ));
        assert!(matches!(
            parse_notice("1f ab12 -1"),
            Some((0x1f, Notice::Deleted { id })) if id == "ab12"
        ));
        for bad in [
            "ab12 7",
            "1f ab12",
            "1f ab12 x",
            "1f ab12 7 40",
            "1f ab12 7 40 3,x",
            "1f ab12 7 x 3",
            "1f ab12 7 40 3 9",
            "1f ab12 -1 4",
            "zz ab12 7",
        ] {
            assert!(parse_notice(bad).is_none(), "{bad}");
        }
    }
}
