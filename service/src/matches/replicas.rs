//! Keeping up with other replicas (a shared store only): change notices reload watched
//! matches at once; a poll every [`POLL`] revalidates them in one query (a lost notice
//! delays a Watch by one period at most) and takes up the bots of matches whose replica
//! died.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::watch;

use crate::clock::now_ms;
use crate::domain::MatchStatus;
use crate::matches::cache::Entry;
use crate::matches::driver::drive;
use crate::matches::handoff::Announced;
use crate::matches::hub::Hub;
use crate::matches::model::bots_to_move;
use crate::matches::stored::extend;
use crate::matches::watch::stopped;
use crate::store::Notice;

/// How often watched matches are revalidated and stalled bots looked for.
const POLL: Duration = Duration::from_secs(1);
/// An active match whose bots or chance are to move and that no replica changed for this
/// long is played on by whichever replica notices.
const STALLED: Duration = Duration::from_secs(3);

/// Starts following the other replicas if `hub`'s store is shared: a task taking the
/// store's notices (if it sends any) and the poll; both end with the hub or the server.
pub(super) fn follow(hub: &Arc<Hub>) {
    let Some(shared) = hub.store.shared() else {
        return;
    };
    if let Some(mut notices) = shared.take_notices() {
        let weak = Arc::downgrade(hub);
        tokio::spawn(async move {
            while let Some(notice) = notices.recv().await {
                let Some(hub) = weak.upgrade() else { return };
                on_notice(&hub, notice);
            }
        });
    }
    tokio::spawn(poll_loop(Arc::downgrade(hub), hub.shutdown.clone()));
}

/// Polls every [`POLL`] until the hub is gone or the server stops.
async fn poll_loop(weak: Weak<Hub>, mut stop: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = stopped(&mut stop) => return,
        }
        let Some(hub) = weak.upgrade() else { return };
        poll(&hub).await;
    }
}

/// A change notice from a shared store: a cached match one version behind takes the new
/// actions the notice carries (so that its next request here needs no read); a watched match
/// the notice cannot bring up to date is reloaded at once, so that its watchers here see
/// moves made through other replicas.
fn on_notice(hub: &Arc<Hub>, notice: Notice) {
    match notice {
        Notice::Changed { id, version, moves } => {
            let Ok(Some(m)) = hub.cache.cached(&id) else {
                return;
            };
            // Most notices are of matches nobody here watches. A match locked here is being
            // changed or read by a request: the notice's actions are handed to it (and the
            // match reloaded once free if it is watched and still behind).
            let Ok(mut g) = m.try_lock() else {
                if let Some((from, actions)) = moves {
                    let announced = Announced {
                        version,
                        from,
                        actions,
                    };
                    hub.handoff.deliver(&id, announced);
                }
                reload_watched(hub, m, version);
                return;
            };
            if g.version >= version {
                return;
            }
            if let Some((from, actions)) = &moves {
                match extend(&mut g, version, *from, actions) {
                    Ok(()) => return,
                    Err(why) => {
                        tracing::debug!(match_id = %id, version, %why, "a notice's actions were not applied");
                    }
                }
            }
            if g.watched() {
                drop(g);
                reload_watched(hub, m, version);
            }
        }
        Notice::Deleted { id } => hub.cache.forget(&id),
        Notice::Resync => {
            let hub = Arc::clone(hub);
            tokio::spawn(async move { poll(&hub).await });
        }
    }
}

/// Reloads match `m` if it is still behind `version` and watched here, once it is free.
fn reload_watched(hub: &Arc<Hub>, m: Entry, version: u64) {
    let hub = Arc::clone(hub);
    tokio::spawn(async move {
        let mut m = m.lock().await;
        if m.version < version && m.watched() {
            let _ = hub.cache.reload(&mut m).await;
        }
    });
}

/// The shared store's safety net, every [`POLL`]: watched matches are revalidated in one
/// query (so a lost notice delays a Watch by one period at most), and matches whose bots
/// no replica has played for [`STALLED`] (their replica died) are played on here.
async fn poll(hub: &Arc<Hub>) {
    let Some(shared) = hub.store.shared() else {
        return;
    };
    let watched = hub.cache.collect(|id, m| {
        let g = m.try_lock().ok()?;
        g.watched().then(|| (id.clone(), Arc::clone(m), g.version))
    });
    if !watched.is_empty() {
        let ids: Vec<String> = watched.iter().map(|(id, _, _)| id.clone()).collect();
        if let Ok(versions) = shared.versions(&ids).await {
            let versions: HashMap<String, u64> = versions.into_iter().collect();
            for (id, m, version) in watched {
                match versions.get(&id) {
                    Some(&v) if v == version => {}
                    Some(_) => {
                        let mut m = m.lock().await;
                        let _ = hub.cache.fresh(&mut m).await;
                    }
                    None => hub.cache.forget(&id),
                }
            }
        }
    }
    let stalled = shared
        .stalled(now_ms().saturating_sub(STALLED.as_millis() as u64))
        .await
        .unwrap_or_default();
    for id in stalled {
        let Ok(m) = hub.cache.get(&id).await else {
            continue;
        };
        let mut m = m.lock().await;
        if m.driving || hub.cache.fresh(&mut m).await.is_err() {
            continue;
        }
        if m.live.status == MatchStatus::Active && bots_to_move(&m.meta, &m.live) {
            tracing::info!(match_id = %id, "playing on the bots of a match no replica is playing");
            m.driving = true;
            drop(m);
            drive(hub, id);
        }
    }
}
