//! The cardhouse gRPC service (`cardhouse.v1`): a stateless `Engine` for trusted callers and
//! server-held `Matches` with per-seat bearer tokens, persisted in an embedded database.
//!
//! [`serve`] runs both (plus `grpc.health.v1` and server reflection) on a bound listener until
//! a shutdown future resolves; the `cardhouse` binary and the tests call it alike.
//!
//! Where each behaviour lives (each folder's `mod.rs` maps its own files the same way; a
//! module calls only what its row says, and `tests/module_map.rs` checks every table against
//! the code):
//!
//! | module | owns | may call |
//! |---|---|---|
//! | [`server`] | the listener, the services, health, reflection, shutdown | `connections`, `engine_service`, `matches`, `metrics`, `pb`, `relay`, `response_limit`, `shutdown`, `store`, `tls`, `web` |
//! | [`connections`] | accepting connections, the connection limits | `metrics` |
//! | [`fds`] | the file descriptor limit, raised; connections kept within it | — |
//! | [`tls`] | TLS and mutual TLS on the listener: the files, read and checked | — |
//! | [`web`] | gRPC-Web, CORS and the web table (folder) | — |
//! | [`engine_service`] | `cardhouse.v1.Engine`: the stateless engine over gRPC | `auth`, `convert`, `error`, `pb` |
//! | [`matches`](mod@matches) | `cardhouse.v1.Matches` and `Admin`: server-held matches (folder) | `auth`, `clock`, `convert`, `domain`, `error`, `metrics`, `pb`, `shutdown`, `store` |
//! | [`response_limit`] | `Matches` responses over the message limit refused | `error`, `matches`, `pb` |
//! | [`store`] | where matches are kept: the contract and its backends (folder) | `auth`, `clock`, `domain`, `error`, `metrics` |
//! | [`relay`] | `--events`: the store's outbox relayed to NATS JetStream | `pb`, `store` |
//! | [`domain`] | a match's seats and statuses in the service's terms, with their stored codes | — |
//! | [`metrics`] | Prometheus series, the gRPC layer counting requests, `/metrics` (folder) | `domain`, `pb` |
//! | [`auth`] | bearer tokens, hashes, constant-time comparison | `error` |
//! | [`convert`] | engine values and the match's seats and statuses to and from protobuf | `domain`, `error`, `pb` |
//! | [`codec`] | message decoding: an undecodable request is `INVALID_ARGUMENT` | — |
//! | [`error`] | every failure to a gRPC status | — |
//! | [`shutdown`], [`clock`] | stream ends at shutdown; the wall clock | — |
//! | [`cli`] | the `cardhouse` commands: `serve`, `simulate`, `play`, `admin` (folder) | `connections`, `convert`, `engine_service`, `fds`, `matches`, `metrics`, `pb`, `relay`, `server`, `store`, `tls`, `web` |
//! | [`pb`], [`bench_pb`] | the generated protobuf messages, clients and servers | — |
//! | `lib.rs` | this map, and the crate's re-exports | `server` |

pub mod auth;
pub mod cli;
pub mod clock;
pub mod codec;
pub mod connections;
pub mod convert;
pub mod domain;
pub mod engine_service;
pub mod error;
pub mod fds;
pub mod matches;
pub mod metrics;
pub mod relay;
pub mod response_limit;
pub mod server;
pub mod shutdown;
pub mod store;
pub mod tls;
pub mod web;

/// Generated `cardhouse.v1` messages, clients and servers.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    tonic::include_proto!("cardhouse.v1");

    /// The encoded descriptor set of `cardhouse.v1`, served by reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/cardhouse_v1_descriptor.bin"));
}

/// The benchmark's baseline echo service (not served by `cardhouse serve`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod bench_pb {
    tonic::include_proto!("cardhouse.bench.v1");
}

pub use server::{Config, DirConfig, PgConfig, StoreConfig, serve};
