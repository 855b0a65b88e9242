//! `cardhouse admin`: the operator's commands against a running server's
//! `cardhouse.v1.Admin` service (list matches with their bot work, abort one, export a
//! record as JSON).

use std::process::ExitCode;

use clap::Subcommand;
use serde_json::{Value, json};
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;

use crate::convert::struct_to_json;
use crate::pb;
use crate::pb::admin_client::AdminClient;

/// The flags and subcommands of `cardhouse admin`.
#[derive(Debug, clap::Args)]
pub struct AdminArgs {
    /// The server (`http://host:port`).
    #[arg(
        long,
        env = "CARDHOUSE_SERVER",
        default_value = "http://127.0.0.1:50051"
    )]
    server: String,
    /// The server's operator credential.
    #[arg(long, env = "CARDHOUSE_OPERATOR_TOKEN", hide_env_values = true)]
    token: String,
    #[command(subcommand)]
    command: AdminCommand,
}

/// What `cardhouse admin` asks the server.
#[derive(Debug, Subcommand)]
enum AdminCommand {
    /// The live matches (with --ended, the ended ones kept too) and the bot workers.
    List {
        /// Ended matches too.
        #[arg(long)]
        ended: bool,
        /// One JSON object instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Abort a match (its bots stop thinking).
    Abort {
        /// The match id.
        match_id: String,
    },
    /// Print a match's whole record (every card) as JSON.
    Export {
        /// The match id.
        match_id: String,
    },
}

/// Runs `cardhouse admin`: prints what the server answers; exits 2 with the reason if it
/// cannot be reached or refuses.
#[must_use]
pub fn command(args: AdminArgs) -> ExitCode {
    let request = match args.command {
        AdminCommand::List { ended, json } => Request::List { ended, json },
        AdminCommand::Abort { match_id } => Request::Abort { id: match_id },
        AdminCommand::Export { match_id } => Request::Export { id: match_id },
    };
    match run(&args.server, &args.token, request) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => super::fail(&e),
    }
}

/// What to ask the server.
#[derive(Debug)]
pub enum Request {
    /// A table (or JSON) of the matches; ended ones too with `ended`.
    List { ended: bool, json: bool },
    /// Abort one match.
    Abort { id: String },
    /// The whole record of one match, as JSON.
    Export { id: String },
}

/// Runs `request` against the server at `server` (`http://host:port`) with the operator
/// credential `token`; returns what to print.
///
/// # Errors
/// A server that cannot be reached, or its status, as text.
pub fn run(server: &str, token: &str, request: Request) -> Result<String, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the client runtime: {e}"))?;
    rt.block_on(call(server, token, request))
}

async fn call(server: &str, token: &str, request: Request) -> Result<String, String> {
    let channel = Channel::from_shared(server.to_owned())
        .map_err(|e| format!("`{server}` is not a server address (http://host:port): {e}"))?
        .connect()
        .await
        .map_err(|e| format!("cannot reach {server}: {e}"))?;
    let bearer: MetadataValue<_> = format!("Bearer {token}")
        .parse()
        .map_err(|_| "the operator token is not valid header text".to_owned())?;
    let mut client = AdminClient::with_interceptor(channel, move |mut req: tonic::Request<()>| {
        req.metadata_mut().insert("authorization", bearer.clone());
        Ok(req)
    });
    let status = |s: tonic::Status| format!("{:?}: {}", s.code(), s.message());
    match request {
        Request::List { ended, json } => {
            let mut all = Vec::new();
            let mut token = String::new();
            let pool = loop {
                let page = client
                    .list_matches(pb::ListMatchesRequest {
                        include_ended: ended,
                        page_size: 1000,
                        page_token: token,
                    })
                    .await
                    .map_err(status)?
                    .into_inner();
                all.extend(page.matches);
                if page.next_page_token.is_empty() {
                    break (
                        page.bot_workers,
                        page.bot_jobs_queued,
                        page.bot_workers_busy,
                    );
                }
                token = page.next_page_token;
            };
            Ok(if json {
                let matches: Vec<Value> = all.iter().map(summary_json).collect();
                let out = json!({
                    "bot_workers": pool.0, "bot_jobs_queued": pool.1, "bot_workers_busy": pool.2,
                    "matches": matches,
                });
                format!("{out}\n")
            } else {
                table(&all, pool)
            })
        }
        Request::Abort { id } => {
            client
                .abort_match(pb::AdminAbortMatchRequest {
                    match_id: id.clone(),
                })
                .await
                .map_err(status)?;
            Ok(format!("aborted match {id}\n"))
        }
        Request::Export { id } => {
            let mut steps = Vec::new();
            let mut from = 0;
            loop {
                let page = client
                    .export_record(pb::ExportRecordRequest {
                        match_id: id.clone(),
                        from_step: from,
                        max_steps: 0,
                    })
                    .await
                    .map_err(status)?
                    .into_inner();
                steps.extend(page.steps.iter().map(step_json));
                match page.next_step {
                    Some(next) => from = next,
                    None => return Ok(format!("{}\n", record_json(&page, steps))),
                }
            }
        }
    }
}

fn status_name(status: i32) -> &'static str {
    match pb::MatchStatus::try_from(status) {
        Ok(pb::MatchStatus::Active) => "active",
        Ok(pb::MatchStatus::Finished) => "finished",
        Ok(pb::MatchStatus::Resigned) => "resigned",
        Ok(pb::MatchStatus::Aborted) => "aborted",
        _ => "unknown",
    }
}

fn seat_name(kind: i32) -> &'static str {
    match pb::SeatKind::try_from(kind) {
        Ok(pb::SeatKind::Human) => "human",
        Ok(pb::SeatKind::RandomBot) => "random",
        Ok(pb::SeatKind::HeuristicBot) => "heuristic",
        Ok(pb::SeatKind::IsmctsBot) => "ismcts",
        Ok(pb::SeatKind::Bot) => "bot",
        _ => "?",
    }
}

fn summary_json(m: &pb::MatchSummary) -> Value {
    json!({
        "match_id": m.match_id,
        "game": m.game,
        "status": status_name(m.status),
        "seats": m.seats.iter().map(|&k| seat_name(k)).collect::<Vec<_>>(),
        "actions": m.actions,
        "bot_actions": m.bot_actions,
        "bot_think_ms": m.bot_think_ms,
        "bots_playing": m.bots_playing,
        "ended_at_ms": m.ended_at_ms,
    })
}

/// The listing as a table.
fn table(all: &[pb::MatchSummary], (workers, queued, busy): (u32, u32, u32)) -> String {
    let mut out = format!(
        "bot workers: {workers} ({busy} busy, {queued} jobs queued); {} matches\n",
        all.len()
    );
    out.push_str(&format!(
        "{:<32}  {:<10}  {:<8}  {:<36}  {:>8}  {:>8}  {:>9}  {}\n",
        "match", "game", "status", "seats", "actions", "bot acts", "bot ms", "playing"
    ));
    for m in all {
        let seats: Vec<&str> = m.seats.iter().map(|&k| seat_name(k)).collect();
        out.push_str(&format!(
            "{:<32}  {:<10}  {:<8}  {:<36}  {:>8}  {:>8}  {:>9}  {}\n",
            m.match_id,
            m.game,
            status_name(m.status),
            seats.join(","),
            m.actions,
            m.bot_actions,
            m.bot_think_ms,
            if m.bots_playing { "yes" } else { "" }
        ));
    }
    out
}

fn step_json(s: &pb::RecordStep) -> Value {
    let actor = s
        .actor
        .as_ref()
        .map_or(Value::Null, |p| match pb::PlayerKind::try_from(p.kind) {
            Ok(pb::PlayerKind::Seat) => json!(p.seat),
            Ok(pb::PlayerKind::Chance) => json!("chance"),
            _ => Value::Null,
        });
    json!({ "index": s.index, "actor": actor, "action": s.action, "text": s.text })
}

fn record_json(last: &pb::GetRecordResponse, steps: Vec<Value>) -> Value {
    let hex: String = last.state.iter().map(|b| format!("{b:02x}")).collect();
    json!({
        "match_id": last.match_id,
        "game": last.game.as_ref().map(|g| g.name.clone()),
        "seed": last.seed,
        "seats": last.seats.iter().map(|&k| seat_name(k)).collect::<Vec<_>>(),
        "status": status_name(last.status),
        "resigned_seat": last.resigned_seat,
        "returns": last.returns,
        "steps": steps,
        "final_view": last.final_view.as_ref().map(struct_to_json),
        "state_hex": hex,
    })
}
