//! Spectator tokens beyond a match's first: the delays allowed, `IssueSpectatorToken` (a
//! token made, stored as a hash in the match's header, then returned), and a token's role
//! looked up again in a shared store's newer copy of the match (a token issued through
//! another replica).

use std::sync::Arc;

use crate::auth::{hash_token, random_token};
use crate::domain::MatchStatus;
use crate::error::ApiError;
use crate::matches::commit::{commit_meta, writable};
use crate::matches::hub::Hub;
use crate::matches::model::{Match, Meta, SpectatorToken, status_name};
use crate::matches::views::{Role, role_of};
use crate::pb;
use crate::store::check::{MAX_SPECTATOR_DELAY, MAX_SPECTATOR_TOKENS};

/// Most delayed spectator tokens one `CreateMatch` may ask for.
pub(super) const MAX_CREATE_DELAYS: usize = 16;

/// `delay` of request field `field` checked: 1 to [`MAX_SPECTATOR_DELAY`] actions.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field and the delays allowed.
pub(super) fn spectator_delay(field: &str, delay: u32) -> Result<u32, ApiError> {
    if (1..=MAX_SPECTATOR_DELAY).contains(&delay) {
        Ok(delay)
    } else {
        Err(ApiError::InvalidArgument(format!(
            "`{field}` {delay} is out of range: a delay is 1 to {MAX_SPECTATOR_DELAY} actions"
        )))
    }
}

/// `IssueSpectatorToken`: a plain spectator token (no `delay`) or a delayed one, for the
/// owner of an active match, stored before it is returned.
///
/// # Errors
/// A bad delay (`INVALID_ARGUMENT`), a token other than the owner's (`PERMISSION_DENIED`),
/// an ended match (`FAILED_PRECONDITION`), the match's limit of tokens
/// (`RESOURCE_EXHAUSTED`), or a store that failed.
pub(super) async fn issue(
    hub: &Hub,
    token: &str,
    req: &pb::IssueSpectatorTokenRequest,
) -> Result<pb::IssueSpectatorTokenResponse, ApiError> {
    let delay = match req.delay {
        None => 0,
        Some(d) => spectator_delay("delay", d)?,
    };
    let m = hub.cache.get(&req.match_id).await?;
    let mut m = m.lock().await;
    if authorize(hub, &mut m, token).await? != Role::Owner {
        return Err(ApiError::PermissionDenied(
            "only the owner token can issue spectator tokens",
        ));
    }
    let new = random_token()?;
    for attempt in 0.. {
        if m.live.status != MatchStatus::Active {
            return Err(ApiError::MatchOver(status_name(m.live.status)));
        }
        writable(&hub.store)?;
        if m.meta.spectators.len() >= MAX_SPECTATOR_TOKENS {
            return Err(ApiError::ResourceExhausted(format!(
                "this match already holds {MAX_SPECTATOR_TOKENS} issued spectator tokens, the \
                 limit; share one of them"
            )));
        }
        let mut spectators = m.meta.spectators.clone();
        spectators.push(SpectatorToken {
            token: hash_token(&new),
            delay,
        });
        let meta = Arc::new(Meta {
            spectators,
            ..(*m.meta).clone()
        });
        match commit_meta(&hub.store, &mut m, meta).await {
            Ok(()) => break,
            // Another replica changed the match first: check again on the new state.
            Err(ApiError::Conflict) if attempt < 3 => hub.cache.reload(&mut m).await?,
            Err(e) => return Err(e),
        }
    }
    tracing::info!(match_id = %m.meta.id, delay, "spectator token issued");
    let role = if delay == 0 {
        pb::Role::Spectator
    } else {
        pb::Role::DelayedSpectator
    };
    Ok(pb::IssueSpectatorTokenResponse {
        token: new,
        role: role as i32,
        delay: req.delay,
    })
}

/// The role of `token` in match `m`, then `m` brought up to date with a shared store
/// ([`crate::matches::cache::Cache::fresh`]).
///
/// # Errors
/// `UNAUTHENTICATED` for a token of no role in the match; a store's.
pub(super) async fn authorize(hub: &Hub, m: &mut Match, token: &str) -> Result<Role, ApiError> {
    let (role, fresh) = lookup(hub, m, token).await?;
    if !fresh {
        hub.cache.fresh(m).await?;
    }
    Ok(role)
}

/// The role of `token` in match `m` as cached (a shared store's copy is read again only if
/// it does not know the token).
///
/// # Errors
/// As [`authorize`].
pub(super) async fn role_known(hub: &Hub, m: &mut Match, token: &str) -> Result<Role, ApiError> {
    Ok(lookup(hub, m, token).await?.0)
}

/// The role of `token` in `m`, and whether `m` was brought up to date to find it: a shared
/// store's cached copy may not know a spectator token issued through another replica.
async fn lookup(hub: &Hub, m: &mut Match, token: &str) -> Result<(Role, bool), ApiError> {
    match role_of(&m.meta, token) {
        Ok(role) => Ok((role, false)),
        Err(e) if !hub.store.is_shared() => Err(e),
        Err(_) => {
            hub.cache.fresh(m).await?;
            Ok((role_of(&m.meta, token)?, true))
        }
    }
}
