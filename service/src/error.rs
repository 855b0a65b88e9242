//! The one place where failures become gRPC statuses.
//!
//! Engine errors are mapped by an exhaustive `match` (every current variant explicit; the
//! engine's enum is `#[non_exhaustive]`, so a new variant falls to `INTERNAL` and is logged
//! until it is mapped here). `INTERNAL` never carries detail to the client.

use tonic::{Code, Status};

/// Everything a handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The engine rejected the request.
    #[error(transparent)]
    Engine(#[from] cardhouse::Error),
    /// A malformed request field.
    #[error("{0}")]
    InvalidArgument(String),
    /// No match with that id (quoted, clipped).
    #[error("no match with id `{}`", clip(.0, 64))]
    MatchNotFound(String),
    /// No credential, or one that is not a token of this match.
    #[error("{0}")]
    Unauthenticated(&'static str),
    /// A valid token of the match that may not do this.
    #[error("{0}")]
    PermissionDenied(&'static str),
    /// A seat acted out of turn.
    #[error("it is not seat {seat}'s turn ({to_move})")]
    NotYourTurn {
        /// The caller's seat.
        seat: usize,
        /// Who is to move, as text.
        to_move: String,
    },
    /// The match has ended.
    #[error("the match is over ({0})")]
    MatchOver(&'static str),
    /// The request cannot be done in the match's present state (e.g. a move after the
    /// seat's clock ran out), as the text says.
    #[error("{0}")]
    FailedPrecondition(String),
    /// The match is still running.
    #[error("the match is still running; its record is available after it ends")]
    MatchRunning,
    /// The expected move number does not match (a stale or retried request).
    #[error(
        "stale move number: expected {expected}, the match is at {actual}; nothing was applied"
    )]
    StaleMove {
        /// What the client sent.
        expected: u64,
        /// The seat's current move number.
        actual: u64,
    },
    /// A configured limit was reached.
    #[error("{0}")]
    ResourceExhausted(String),
    /// The client went away; the work for it stopped.
    #[error("the request was cancelled")]
    Cancelled,
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The match store failed a write: no change can be accepted until the server is
    /// restarted (which checks the store).
    #[error("the match store failed; changes are refused until the server is restarted")]
    StoreFailed,
    /// A shared store: another replica changed the match first (a request that loses this
    /// race again and again gets it).
    #[error("the match changed through another replica meanwhile; read it and retry")]
    Conflict,
    /// A shared store could not be reached, or did not confirm a change (whether it was
    /// applied is then unknown).
    #[error(
        "the match store is unavailable; a change asked for may or may not have been \
         applied: read the match (its move number) before retrying"
    )]
    StoreUnavailable,
    /// The match's stored data is damaged (set aside at open, or a row that fails its checks
    /// when read): it is not served. What is wrong and where was logged where it was found;
    /// the client learns nothing more.
    #[error(
        "this match's stored data is damaged and it cannot be served; the server's operator has been told"
    )]
    DataLoss,
    /// A bug or an I/O failure: logged in full, reported as a bare `INTERNAL`.
    #[error("internal: {0}")]
    Internal(String),
}

/// The status code of an engine error.
fn engine_code(err: &cardhouse::Error) -> Code {
    use cardhouse::Error as E;
    match err {
        E::UnknownGame { .. }
        | E::UnknownOption { .. }
        | E::InvalidOption { .. }
        | E::InvalidBot { .. }
        | E::UnknownAction { .. }
        | E::UnparsableAction { .. }
        | E::InvalidSeat { .. }
        | E::InvalidCard { .. }
        | E::Decode(_)
        | E::RulesVersion { .. } => Code::InvalidArgument,
        E::IllegalAction { .. } | E::GameOver | E::WrongNode(_) => Code::FailedPrecondition,
        // The service sizes every buffer itself and never resamples: these are bugs here.
        E::BufferSize { .. } | E::ResampleFailed { .. } => Code::Internal,
        // A variant added to the engine after this mapping was written.
        _ => Code::Internal,
    }
}

impl From<ApiError> for Status {
    fn from(err: ApiError) -> Status {
        let code = match &err {
            ApiError::Engine(e) => engine_code(e),
            ApiError::InvalidArgument(_) => Code::InvalidArgument,
            ApiError::MatchNotFound(_) => Code::NotFound,
            ApiError::Unauthenticated(_) => Code::Unauthenticated,
            ApiError::PermissionDenied(_) => Code::PermissionDenied,
            ApiError::NotYourTurn { .. }
            | ApiError::MatchOver(_)
            | ApiError::MatchRunning
            | ApiError::FailedPrecondition(_) => Code::FailedPrecondition,
            ApiError::StaleMove { .. } | ApiError::Conflict => Code::Aborted,
            ApiError::ResourceExhausted(_) => Code::ResourceExhausted,
            ApiError::ShuttingDown | ApiError::StoreFailed | ApiError::StoreUnavailable => {
                Code::Unavailable
            }
            ApiError::Cancelled => Code::Cancelled,
            ApiError::DataLoss => Code::DataLoss,
            ApiError::Internal(_) => Code::Internal,
        };
        if code == Code::Internal {
            tracing::error!(error = %err, "internal error");
            return Status::internal("internal error");
        }
        Status::new(code, clip(&err.to_string(), MAX_MESSAGE))
    }
}

/// Longest error message sent (in the `grpc-message` header): errors quote client input
/// (option values, action texts, match ids), and an unbounded header would make the client
/// drop the reply and see RESOURCE_EXHAUSTED instead of the real code.
pub const MAX_MESSAGE: usize = 512;

/// `text`, cut to at most `max` bytes on a character boundary, marked with `…` if cut.
#[must_use]
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// `reply`, or `RESOURCE_EXHAUSTED` if its message is over `limit` bytes encoded.
///
/// Checked before tonic encodes the message: tonic's own check (after the handler, at the
/// same limit) reports `OUT_OF_RANGE` in the trailers, where gRPC's other implementations
/// and our API say `RESOURCE_EXHAUSTED`. The comparison is tonic's, so tonic's never fires.
///
/// # Errors
/// `reply`'s error, or `RESOURCE_EXHAUSTED`.
#[allow(clippy::result_large_err)]
pub fn within_limit<T: prost::Message>(
    limit: usize,
    reply: Result<tonic::Response<T>, Status>,
) -> Result<tonic::Response<T>, Status> {
    let reply = reply?;
    check_size(limit, reply.get_ref())?;
    Ok(reply)
}

/// `RESOURCE_EXHAUSTED` if `message` is over `limit` bytes encoded (see [`within_limit`]).
///
/// # Errors
/// As said.
#[allow(clippy::result_large_err)]
pub fn check_size<T: prost::Message>(limit: usize, message: &T) -> Result<(), Status> {
    let len = message.encoded_len();
    if len > limit {
        return Err(Status::resource_exhausted(format!(
            "the response would be {len} bytes, over the limit of {limit} bytes per message"
        )));
    }
    Ok(())
}

/// Runs engine work, turning a panic into [`ApiError::Internal`] so that no request can take
/// a worker down (the engine does not panic by contract; this is the belt to its braces).
pub fn guard<T>(f: impl FnOnce() -> Result<T, ApiError>) -> Result<T, ApiError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(ApiError::Internal("engine panicked".into())))
}
