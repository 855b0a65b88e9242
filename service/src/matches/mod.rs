//! `cardhouse.v1.Matches`: server-held matches with per-seat bearer tokens.
//!
//! Each match lives in memory behind its own async mutex; every change is made on a copy,
//! stored durably, and only then swapped in, broadcast to watchers and acknowledged. A
//! failed or rejected request leaves the match exactly as it was. The store is seen only
//! through its contract ([`crate::store`]): this module never names a backend.
//!
//! | file | owns | may call |
//! |---|---|---|
//! | `handlers.rs` | the gRPC handlers: decode, authenticate, call, encode | `away`, `create`, `play`, `records`, `service`, `watch` |
//! | `admin.rs` | `cardhouse.v1.Admin`: list, abort, export any match (operator) | `cache`, `hub`, `model`, `play`, `records`, `service`, `views` |
//! | `service.rs` | building the service: resuming matches, starting their bots and clocks | `admission`, `cache`, `driver`, `gauges`, `handoff`, `hub`, `limits`, `pool`, `replicas`, `retention`, `stored`, `timeouts`, `timers` |
//! | `create.rs` | `CreateMatch` | `bots`, `clocks`, `commit`, `driver`, `events`, `hub`, `limits`, `model`, `seats`, `stored`, `table`, `views` |
//! | `play.rs` | `GetView`, `Act`, `Resign`, `AbortMatch` | `bots`, `commit`, `driver`, `handoff`, `hub`, `model`, `stored`, `table`, `views` |
//! | `records.rs` | `GetRecord` | `hub`, `table`, `views` |
//! | `watch.rs` | `Watch`: each stream's task and its events | `hub`, `model`, `views` |
//! | `away.rs` | `SetAway`: a seat away (its stand-in plays) or back | `commit`, `driver`, `hub`, `model`, `table`, `views` |
//! | `timeouts.rs` | clocks that ran out: the due deadlines found, each match's timeout policy applied | `commit`, `driver`, `hub`, `model`, `table`, `watch` |
//! | `driver.rs` | bots and chance played in the background, a chunk at a time | `bots`, `cache`, `commit`, `hub`, `model` |
//! | `pool.rs` | the bot worker threads, one job per match in turn | — |
//! | `retention.rs` | the sweep: abandoned matches aborted, ended ones removed | `commit`, `hub`, `play` |
//! | `replicas.rs` | a shared store: notices, the poll, stalled bots taken up | `cache`, `driver`, `handoff`, `hub`, `model`, `stored`, `watch` |
//! | `handoff.rs` | a shared store: notices of matches in use, handed to the request holding them | — |
//! | `hub.rs` | the state every request shares | `admission`, `cache`, `handoff`, `limits`, `pool`, `timers` |
//! | `cache.rs` | matches in memory, their locks, loading and revalidation; damaged ones answered `DATA_LOSS` | `model`, `seats`, `stored` |
//! | `admission.rs` | the match limit, reserved before creation | — |
//! | `commit.rs` | a change stored (with its events, for the outbox), then applied in memory and broadcast | `events`, `model`, `stored` |
//! | `events.rs` | `--events`: each change's events as a spectator sees them, numbered, for the outbox | `model`, `views` |
//! | `views.rs` | redaction: roles, views, texts and events for each viewer, in the API's terms | `clocks`, `model` |
//! | `bots.rs` | which moves bots and chance make (seeded, pure), the stand-in's included | `model`, `seats`, `table` |
//! | `seats.rs` | who plays each seat: any bot by name, held to the server's limits | — |
//! | `clocks.rs` | the clocks in the API's terms: a request's time control checked, the clock view | `model`, `seats`, `table` |
//! | `timers.rs` | the deadlines of this process's running clocks, earliest first | `table` |
//! | `table.rs` | the table around a match: time control, clocks, banks, away seats, stand-in moves | — |
//! | `stored.rs` | a match to and from its stored form, checked when read | `clocks`, `model`, `seats`, `table` |
//! | `model.rs` | the match in memory (its seats and status as [`crate::domain`] has them), moves, move numbers | `table` |
//! | `limits.rs` | the service's limits (the server's flags) | `seats` |
//! | `gauges.rs` | the live-matches gauge, counted at each metrics scrape | `hub` |
//! | `mod.rs` | the module's face: `MatchesService`, `AdminService`, the limits | `admin`, `limits`, `seats`, `service` |
//!
//! The protobuf enums of seats and statuses appear only where a request is read or an
//! answer written (`create.rs`, `views.rs`, `records.rs`, `admin.rs`, through
//! [`crate::convert`]); the match itself holds [`crate::domain`]'s types.
//!
//! **Move numbers.** Each viewer (seat or spectator) has its own move number: the number of
//! actions it knows have happened (those for which the engine's `action_to_string_for` gives
//! it a text, plus a seat's own actions). It reveals nothing the viewer's events do not, and
//! it grows with every action of the seat itself, so a retried or stale `Act` is always
//! `ABORTED`, even for private actions that leave the same seat to move.
//!
//! **Randomness.** Chance and bot choices use the engine's reference generator seeded from
//! (match seed, move number), so a restarted server continues exactly as it would have.
//!
//! **Logging.** Logs name the match, the seat and the move number, never an action's text or
//! id (a card played is public, but a card dealt or a private declaration is not).

mod admin;
mod admission;
mod away;
mod bots;
mod cache;
mod clocks;
mod commit;
mod create;
mod driver;
mod events;
mod gauges;
mod handlers;
mod handoff;
mod hub;
mod limits;
mod model;
mod play;
mod pool;
mod records;
mod replicas;
mod retention;
mod seats;
mod service;
mod stored;
mod table;
mod timeouts;
mod timers;
mod views;
mod watch;

pub use admin::AdminService;
pub use limits::{AllBotMatches, MatchLimits};
pub use seats::BotLimits;
pub use service::MatchesService;
