//! Credentials: new tokens, bearer tokens from request metadata, tokens at rest as hashes,
//! constant-time comparison.
//!
//! Tokens are 128 random bits from the operating system, so a plain SHA-256 is enough to
//! make the stored form useless to whoever reads the data directory (no salt or slow hash
//! is needed against a secret that cannot be guessed). Comparisons of hashes are constant
//! time, so response timing tells nothing about a token.

use sha2::{Digest, Sha256};
use tonic::metadata::MetadataMap;

use crate::error::ApiError;

/// The stored form of a token: `sha256:` and 64 hex digits.
#[must_use]
pub fn hash_token(token: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(token.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    // Every request with a token hashes it: no `format!` (an allocation per byte) here.
    for b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

/// A new token (or match id): 128 random bits from the operating system, as 32 hex digits.
///
/// # Errors
/// `INTERNAL` if the operating system gives no randomness.
pub fn random_token() -> Result<String, ApiError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| ApiError::Internal(format!("OS randomness: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Constant-time equality of two strings (of hashes: their lengths are public).
#[must_use]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether `token` is the one whose hash is `stored`.
#[must_use]
pub fn matches_hash(token: &str, stored: &str) -> bool {
    same(&hash_token(token), stored)
}

/// The bearer token of a request.
///
/// # Errors
/// `UNAUTHENTICATED` if there is no `authorization` header, or it is not `Bearer <token>`
/// (each case named).
pub fn bearer(md: &MetadataMap) -> Result<String, ApiError> {
    let value = md
        .get("authorization")
        .ok_or(ApiError::Unauthenticated(
            "missing `authorization: Bearer <token>` metadata",
        ))?
        .to_str()
        .map_err(|_| ApiError::Unauthenticated("the `authorization` metadata is not text"))?;
    let malformed =
        ApiError::Unauthenticated("the `authorization` metadata must be `Bearer <token>`");
    let (scheme, token) = value.trim().split_once(' ').ok_or(malformed)?;
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(ApiError::Unauthenticated(
            "the `authorization` metadata must be `Bearer <token>`",
        ));
    }
    Ok(token.trim().to_owned())
}

/// Whether the request carries `credential` (`None`: nobody does) as its bearer token,
/// compared in constant time.
#[must_use]
pub fn is_operator(md: &MetadataMap, credential: Option<&str>) -> bool {
    match (credential, bearer(md)) {
        (Some(required), Ok(token)) => matches_hash(&token, &hash_token(required)),
        _ => false,
    }
}

/// A request's bearer token checked against a configured credential (`None`: open).
///
/// # Errors
/// `UNAUTHENTICATED` if a credential is configured and the request lacks it or has another.
pub fn check_credential(
    md: &MetadataMap,
    required: Option<&str>,
    what: &'static str,
) -> Result<(), ApiError> {
    let Some(required) = required else {
        return Ok(());
    };
    let token = bearer(md)?;
    if matches_hash(&token, &hash_token(required)) {
        Ok(())
    } else {
        Err(ApiError::Unauthenticated(what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable_and_compare() {
        let h = hash_token("abc");
        assert_eq!(
            h,
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(matches_hash("abc", &h));
        assert!(!matches_hash("abd", &h));
    }

    fn message(value: Option<&str>) -> String {
        let mut md = MetadataMap::new();
        if let Some(v) = value {
            md.insert("authorization", v.parse().unwrap());
        }
        match bearer(&md) {
            Err(ApiError::Unauthenticated(m)) => m.to_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_header_without_the_bearer_scheme_is_malformed_not_missing() {
        assert!(message(None).starts_with("missing"));
        for bad in ["abc123", "Token abc123", "Bearer", "Bearer   "] {
            let m = message(Some(bad));
            assert!(m.contains("must be `Bearer <token>`"), "{bad}: {m}");
            assert!(!m.contains("missing"), "{bad}: {m}");
        }
        let mut md = MetadataMap::new();
        md.insert("authorization", "bearer xyz".parse().unwrap());
        assert_eq!(bearer(&md).unwrap(), "xyz");
    }
}
