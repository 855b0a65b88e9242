//! Match events out (`cardhouse serve --events nats://HOST:4222`): the relay from the
//! store's outbox ([`crate::store::Outbox`]) to a NATS JetStream stream.
//!
//! The events are written by the match code in the same commit as the change that made them
//! (see `matches/events.rs`); this task takes them from the outbox in commit order,
//! publishes each to its match's subject with `Nats-Msg-Id: <match id>:<sequence>`, waits
//! for JetStream's acknowledgement, and only then tells the outbox they are relayed. A
//! match's events are published one after another (the next only once the one before is
//! acknowledged, so the stream holds each match's events in order, whatever fails), the
//! matches side by side. An event whose acknowledgement did not come is published again
//! later (after a restart too, or by another replica): JetStream drops the copy within the
//! stream's duplicate window ([`DUPLICATE_WINDOW`]).

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use async_nats::jetstream::{self, message::PublishMessage, stream};
use futures_util::StreamExt;
use tokio::sync::watch;

use crate::store::{OutboxEvent, Store};

/// The stream the server publishes to (created when missing).
pub const STREAM: &str = "CARDHOUSE_MATCHES";
/// The stream's subjects: every match's (`cardhouse.match.<game>.<match id>`).
pub const SUBJECTS: &str = "cardhouse.match.>";
/// How long JetStream remembers a message id (set on the stream the server creates).
pub const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);
/// Most events taken from the outbox in one round.
const BATCH: usize = 1024;
/// Matches published side by side in a round.
const IN_FLIGHT: usize = 64;
/// How long an acknowledgement may take before the event counts as not published.
const ACK_TIMEOUT: Duration = Duration::from_secs(5);

/// The encoding of an event's payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum EventFormat {
    /// A `cardhouse.v1.MatchStreamEvent`, protobuf-encoded.
    #[default]
    Proto,
    /// Its proto3 JSON form.
    Json,
}

/// Where events go (`--events`), and how.
#[derive(Clone, Debug)]
pub struct EventsConfig {
    /// `nats://host:port` (several, comma-separated: a cluster).
    pub url: String,
    pub format: EventFormat,
}

/// Relays the store's outbox to JetStream until the server stops. Connects (and creates the
/// stream) in the background, retrying: the server serves meanwhile and the outbox keeps
/// every event until it is published.
pub async fn run(store: Store, config: EventsConfig, mut stopping: watch::Receiver<bool>) {
    if store.outbox().is_none() {
        return;
    }
    let mut backoff = Duration::from_millis(100);
    let js = loop {
        match connect(&config.url).await {
            Ok(js) => break js,
            Err(e) => {
                tracing::warn!(url = %config.url, error = %e, "events: cannot reach NATS JetStream yet; retrying");
                if pause(&mut stopping, &mut backoff).await {
                    return;
                }
            }
        }
    };
    tracing::info!(url = %config.url, stream = STREAM, "events: relaying to NATS JetStream");
    let mut backoff = Duration::from_millis(100);
    loop {
        let Some(outbox) = store.outbox() else {
            return;
        };
        let events = tokio::select! {
            () = stopped(&mut stopping) => return,
            r = outbox.pending(BATCH) => r,
        };
        let events = match events {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(error = %e, "events: reading the outbox failed; retrying");
                if pause(&mut stopping, &mut backoff).await {
                    return;
                }
                continue;
            }
        };
        if events.is_empty() {
            continue;
        }
        let (relayed, complete) = publish(&js, &events, config.format).await;
        if !relayed.is_empty()
            && let Err(e) = outbox.relayed(&relayed).await
        {
            tracing::warn!(error = %e, "events: marking events relayed failed (they will be sent again)");
        }
        if complete {
            backoff = Duration::from_millis(100);
        } else {
            // NATS is away or the stream is missing: make sure it exists, then try again.
            if let Err(e) = ensure_stream(&js).await {
                tracing::warn!(error = %e, "events: the stream is not reachable; retrying");
            }
            if pause(&mut stopping, &mut backoff).await {
                return;
            }
        }
    }
}

/// Waits `backoff` (doubled up to 5 s for next time); true if the server is stopping.
async fn pause(stopping: &mut watch::Receiver<bool>, backoff: &mut Duration) -> bool {
    let wait = *backoff;
    *backoff = (*backoff * 2).min(Duration::from_secs(5));
    tokio::select! {
        () = stopped(stopping) => true,
        () = tokio::time::sleep(wait) => false,
    }
}

/// Resolves once the server is stopping.
async fn stopped(stopping: &mut watch::Receiver<bool>) {
    // The guard is dropped at once: it must not live across an await.
    let _ = stopping.wait_for(|&s| s).await;
}

/// Connects to NATS and makes sure the stream exists.
async fn connect(url: &str) -> Result<jetstream::Context, String> {
    let client = async_nats::ConnectOptions::new()
        .connection_timeout(Duration::from_secs(5))
        .connect(url)
        .await
        .map_err(|e| e.to_string())?;
    let js = jetstream::new(client);
    ensure_stream(&js).await?;
    Ok(js)
}

/// Creates the stream if it is missing (an existing one is used as it is).
async fn ensure_stream(js: &jetstream::Context) -> Result<(), String> {
    js.get_or_create_stream(stream::Config {
        name: STREAM.to_owned(),
        subjects: vec![SUBJECTS.to_owned()],
        storage: stream::StorageType::File,
        duplicate_window: DUPLICATE_WINDOW,
        ..Default::default()
    })
    .await
    .map(drop)
    .map_err(|e| e.to_string())
}

/// Publishes `events` (in commit order), each match's in order and only while the one
/// before was acknowledged. Returns each match's last event acknowledged, and whether every
/// event was.
async fn publish(
    js: &jetstream::Context,
    events: &[OutboxEvent],
    format: EventFormat,
) -> (Vec<(String, u64)>, bool) {
    // Each match's events, owned: the publishing futures hold no borrow.
    let mut order: Vec<String> = Vec::new();
    let mut by_match: HashMap<String, Vec<OutboxEvent>> = HashMap::new();
    for e in events {
        by_match
            .entry(e.match_id.clone())
            .or_insert_with(|| {
                order.push(e.match_id.clone());
                Vec::new()
            })
            .push(e.clone());
    }
    let groups: Vec<Vec<OutboxEvent>> = order.iter().filter_map(|id| by_match.remove(id)).collect();
    let js = js.clone();
    let results: Vec<(Option<(String, u64)>, bool)> = futures_util::stream::iter(groups)
        .map(move |group| publish_match(js.clone(), group, format))
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let complete = results.iter().all(|(_, done)| *done);
    (
        results.into_iter().filter_map(|(r, _)| r).collect(),
        complete,
    )
}

/// Publishes one match's events in order, each after the one before was acknowledged.
/// Returns the last acknowledged, and whether all were.
async fn publish_match(
    js: jetstream::Context,
    group: Vec<OutboxEvent>,
    format: EventFormat,
) -> (Option<(String, u64)>, bool) {
    let mut last = None;
    for e in group {
        match publish_one(&js, &e, format).await {
            Ok(()) => last = Some((e.match_id.clone(), e.seq)),
            Err(why) => {
                tracing::debug!(match_id = %e.match_id, seq = e.seq, error = %why, "events: not published yet");
                return (last, false);
            }
        }
    }
    (last, true)
}

/// Publishes one event and waits for JetStream's acknowledgement (a duplicate counts).
async fn publish_one(
    js: &jetstream::Context,
    e: &OutboxEvent,
    format: EventFormat,
) -> Result<(), String> {
    let payload = match format {
        EventFormat::Proto => e.payload.clone(),
        EventFormat::Json => to_json(&e.payload)?,
    };
    let message = PublishMessage::build()
        .payload(payload.into())
        .message_id(message_id(&e.match_id, e.seq));
    tokio::time::timeout(ACK_TIMEOUT, async {
        js.send_publish(e.subject.clone(), message)
            .await
            .map_err(|e| e.to_string())?
            .await
            .map(drop)
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|_| "no acknowledgement in time".to_owned())?
}

/// An event's `Nats-Msg-Id`: its stable id.
#[must_use]
pub fn message_id(match_id: &str, seq: u64) -> String {
    format!("{match_id}:{seq}")
}

/// A `MatchStreamEvent`'s proto3 JSON form.
///
/// # Errors
/// If the payload does not decode (a bug).
pub fn to_json(payload: &[u8]) -> Result<Vec<u8>, String> {
    static POOL: OnceLock<Option<prost_reflect::MessageDescriptor>> = OnceLock::new();
    let descriptor = POOL
        .get_or_init(|| {
            prost_reflect::DescriptorPool::decode(crate::pb::FILE_DESCRIPTOR_SET)
                .ok()
                .and_then(|pool| pool.get_message_by_name("cardhouse.v1.MatchStreamEvent"))
        })
        .clone()
        .ok_or("the event's descriptor is missing")?;
    let message =
        prost_reflect::DynamicMessage::decode(descriptor, payload).map_err(|e| e.to_string())?;
    serde_json::to_vec(&message).map_err(|e| e.to_string())
}
