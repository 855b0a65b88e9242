//! The cardhouse gRPC service (`cardhouse.v1`): a stateless `Engine` for trusted callers and
//! server-held `Matches` with per-seat bearer tokens, persisted in an embedded database.
//!
//! [`serve`] runs both (plus `grpc.health.v1` and server reflection) on a bound listener until
//! a shutdown future resolves; the `cardhouse` binary and the tests call it alike.
//!
//! Where each behaviour lives (each folder's `mod.rs` maps its own files):
//!
//! | module | owns | may call |
//! |---|---|---|
//! | [`server`] | the listener, the services, health, reflection, shutdown | everything below |
//! | [`connections`] | accepting connections, the connection limits | `metrics` |
//! | [`fds`] | the file descriptor limit, raised; connections kept within it | — |
//! | [`engine_service`] | `cardhouse.v1.Engine`: the stateless engine over gRPC | `convert`, `auth` |
//! | [`matches`] | `cardhouse.v1.Matches`: server-held matches (folder) | `store`, `convert`, `auth`, `metrics` |
//! | [`store`] | where matches are kept: the contract and its backends (folder) | `auth`, `clock`, `metrics` |
//! | [`metrics`] | Prometheus series, the gRPC layer counting requests, `/metrics` (folder) | — |
//! | [`auth`] | bearer tokens, hashes, constant-time comparison | `error` |
//! | [`convert`] | engine values to and from protobuf | `error` |
//! | [`codec`], [`response_limit`] | message decoding and size limits | `error` |
//! | [`error`] | every failure to a gRPC status | — |
//! | [`shutdown`], [`clock`] | stream ends at shutdown; the wall clock | — |
//! | [`cli`] | `cardhouse play` and `cardhouse simulate` | the engine |

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
