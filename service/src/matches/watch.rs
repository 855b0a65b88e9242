//! Watch fan-out: each stream's task takes the match's broadcast of changes and sends its
//! viewer the events it may see, redacted by [`crate::matches::views`].

use std::sync::Arc;

use tokio::sync::{broadcast, mpsc, watch};
use tonic::Status;

use crate::domain::MatchStatus;
use crate::error::{ApiError, guard};
use crate::matches::hub::Hub;
use crate::matches::model::{Change, Meta, step};
use crate::matches::views::{Role, event, event_with, match_view, notice_text, role_of, text_for};
use crate::pb;

/// `Watch`: the viewer's snapshot, then its events (with `light`, their views without the
/// structured part except at deal ends), from a task of its own; the stream ends with the
/// match, the client, or the server.
pub(super) async fn watch(
    hub: &Hub,
    token: &str,
    id: &str,
    light: bool,
) -> Result<mpsc::Receiver<Result<pb::WatchResponse, Status>>, ApiError> {
    let m = hub.cache.get(id).await?;
    let (meta, snapshot, rx, over) = {
        let mut m = m.lock().await;
        let role = role_of(&m.meta, token)?;
        hub.cache.fresh(&mut m).await?;
        if m.changes.receiver_count() >= hub.limits.max_watchers_per_match {
            return Err(ApiError::ResourceExhausted(format!(
                "this match already has {} watchers, the limit",
                hub.limits.max_watchers_per_match
            )));
        }
        let snapshot = guard(|| match_view(&m.meta, &m.live, role))?;
        (
            Viewer {
                meta: Arc::clone(&m.meta),
                role,
                light,
            },
            snapshot,
            m.changes.subscribe(),
            m.live.status != MatchStatus::Active,
        )
    };
    let (tx, out) = mpsc::channel(64);
    let shutdown = hub.shutdown.clone();
    tokio::spawn(forward(meta, snapshot, rx, over, tx, shutdown));
    Ok(out)
}

/// Who a Watch stream is for.
struct Viewer {
    meta: Arc<Meta>,
    role: Role,
    /// Events without the structured view, except at deal ends.
    light: bool,
}

/// A Watch stream's task: the snapshot, then each change redacted for the viewer.
async fn forward(
    viewer: Viewer,
    snapshot: pb::MatchView,
    mut rx: broadcast::Receiver<Arc<Change>>,
    over: bool,
    tx: mpsc::Sender<Result<pb::WatchResponse, Status>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let first = pb::WatchResponse {
        kind: Some(pb::watch_response::Kind::Snapshot(snapshot)),
    };
    if tx.send(Ok(first)).await.is_err() || over {
        return;
    }
    loop {
        let change = tokio::select! {
            () = stopped(&mut shutdown) => {
                let _ = tx.send(Err(ApiError::ShuttingDown.into())).await;
                return;
            }
            () = tx.closed() => return,
            r = rx.recv() => r,
        };
        let change = match change {
            Ok(c) => c,
            Err(broadcast::error::RecvError::Lagged(n)) => {
                let msg = format!("this stream fell {n} events behind; call Watch again");
                let _ = tx.send(Err(ApiError::ResourceExhausted(msg).into())).await;
                return;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if send_change(&viewer, &change, &tx).await {
            return;
        }
    }
}

/// Resolves once the server is shutting down.
pub(super) async fn stopped(rx: &mut watch::Receiver<bool>) {
    // The guard is dropped at once: it must not live across an await.
    let _ = rx.wait_for(|&s| s).await;
}

/// Sends `role` its events of `change`; returns true once the stream is done (the match
/// ended, the client went away, or an error was sent).
async fn send_change(
    viewer: &Viewer,
    change: &Change,
    tx: &mpsc::Sender<Result<pb::WatchResponse, Status>>,
) -> bool {
    let Viewer { meta, role, light } = viewer;
    let (role, light) = (*role, *light);
    match change {
        Change::Actions { before, actions } => {
            let mut live = before.clone();
            for &action in actions {
                let actor = live.state.current_player();
                let text = guard(|| Ok(text_for(role, &live.state, action)));
                step(&mut live, action);
                let sent = match text {
                    Ok(None) => continue,
                    Ok(Some(text)) => guard(|| event(meta, role, Some(actor), text, &live, light)),
                    Err(e) => Err(e),
                };
                match sent {
                    Ok((event, ended)) => {
                        if tx.send(Ok(event)).await.is_err() || ended {
                            return true;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.into())).await;
                        return true;
                    }
                }
            }
            false
        }
        Change::Notice { after, seat, kind } => {
            let text = notice_text(*seat, *kind);
            match guard(|| event_with(meta, role, None, Some((*seat, *kind)), text, after, light)) {
                Ok((event, ended)) => tx.send(Ok(event)).await.is_err() || ended,
                Err(e) => {
                    let _ = tx.send(Err(e.into())).await;
                    true
                }
            }
        }
        Change::Ended { after, text } => {
            match guard(|| event(meta, role, None, text.clone(), after, light)) {
                Ok((event, ended)) => tx.send(Ok(event)).await.is_err() || ended,
                Err(e) => {
                    let _ = tx.send(Err(e.into())).await;
                    true
                }
            }
        }
    }
}
