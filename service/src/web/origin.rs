//! An origin allowed to call the server from a browser page (`--cors-origin`).

use tonic::codegen::http::HeaderValue;

/// A web origin, `scheme://host[:port]`, as browsers send it in `Origin` (lower case, no
/// path, no trailing slash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin(HeaderValue);

/// Why a text is not an origin.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{given}` is not an origin: {reason} (expected scheme://host[:port], e.g. https://play.example.com or http://localhost:5173)"
)]
pub struct OriginError {
    given: String,
    reason: &'static str,
}

impl Origin {
    /// Parses `scheme://host[:port]` (`http` or `https`), lower-casing it.
    ///
    /// # Errors
    /// Another scheme, a missing host, a path (a trailing `/` included), a query, user
    /// information, a port that is not a number, or characters a host cannot have.
    pub fn parse(text: &str) -> Result<Origin, OriginError> {
        let given: String = text.chars().take(200).collect();
        let fail = |reason| OriginError {
            given: given.clone(),
            reason,
        };
        let lower = text.to_ascii_lowercase();
        let rest = lower
            .strip_prefix("https://")
            .or_else(|| lower.strip_prefix("http://"))
            .ok_or_else(|| fail("the scheme must be http:// or https://"))?;
        if rest.contains('/') || rest.contains('?') || rest.contains('#') {
            return Err(fail(
                "an origin has no path, query or fragment (not even a trailing /)",
            ));
        }
        if rest.contains('@') {
            return Err(fail("an origin has no user information"));
        }
        let port = if let Some(v6) = rest.strip_prefix('[') {
            let (inside, after) = v6
                .split_once(']')
                .ok_or_else(|| fail("an IPv6 host needs its closing ]"))?;
            if inside.is_empty() || !inside.chars().all(|c| c.is_ascii_hexdigit() || c == ':') {
                return Err(fail("not an IPv6 address between [ ]"));
            }
            match after {
                "" => None,
                a => Some(
                    a.strip_prefix(':')
                        .ok_or_else(|| fail("after ] comes :port or nothing"))?,
                ),
            }
        } else {
            let (host, port) = match rest.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            };
            if host.is_empty() {
                return Err(fail("the host is missing"));
            }
            if !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            {
                return Err(fail("a host has letters, digits, - and . only"));
            }
            port
        };
        if let Some(p) = port
            && (p.is_empty() || p.len() > 5 || p.parse::<u16>().is_err())
        {
            return Err(fail("the port must be a number from 0 to 65535"));
        }
        let value = HeaderValue::from_str(&lower).map_err(|_| fail("not a header value"))?;
        Ok(Origin(value))
    }

    /// The origin as `Origin` header value.
    #[must_use]
    pub fn header_value(&self) -> HeaderValue {
        self.0.clone()
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.to_str().unwrap_or("?"))
    }
}

impl std::str::FromStr for Origin {
    type Err = OriginError;
    fn from_str(s: &str) -> Result<Origin, OriginError> {
        Origin::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::Origin;

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        for ok in [
            "https://play.example.com",
            "http://localhost:5173",
            "HTTPS://Play.Example.COM",
            "http://127.0.0.1:8080",
            "http://[::1]:3000",
        ] {
            assert!(Origin::parse(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            Origin::parse("HTTPS://Play.Example.COM")
                .unwrap()
                .to_string(),
            "https://play.example.com"
        );
        for (bad, why) in [
            ("play.example.com", "scheme"),
            ("ftp://x", "scheme"),
            ("https://x/", "path"),
            ("https://x/app", "path"),
            ("https://", "host is missing"),
            ("https://u@x", "user"),
            ("https://x:http", "port"),
            ("https://x:99999", "port"),
            ("https://x y", "letters"),
            ("https://[::1", "closing"),
            ("*", "scheme"),
        ] {
            let e = Origin::parse(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
