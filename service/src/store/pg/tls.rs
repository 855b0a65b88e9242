//! TLS to PostgreSQL: the store URL's `sslmode` and `sslrootcert`, read as libpq reads them,
//! and the rustls connector (through `tokio-postgres-rustls`) that every connection of the
//! store uses: the pool's, the migration's, the listener's and the notifier's.
//!
//! | `sslmode` | TLS | the server's certificate |
//! |---|---|---|
//! | (absent) | no | — (libpq's default is `prefer`; ours keeps the connection as it was: plain) |
//! | `disable` | no | — |
//! | `prefer` | if the server offers it, else plain | not checked |
//! | `require` | yes, or no connection | not checked; with `sslrootcert`, as `verify-ca` (as libpq) |
//! | `verify-ca` | yes | signed by a CA of `sslrootcert` (any host name) |
//! | `verify-full` | yes | signed by a CA of `sslrootcert`, and naming the host connected to |
//!
//! `verify-ca` and `verify-full` need `sslrootcert` (a PEM file of CA certificates); libpq's
//! fallback to `~/.postgresql/root.crt`, `sslrootcert=system`, `sslmode=allow` and client
//! certificates (`sslcert`, `sslkey`) are refused with a message rather than ignored. The
//! host checked by `verify-full` is the URL's host (with `hostaddr`, the address connected to
//! may differ, as in libpq). Both the URL form (`postgres://…?sslmode=…`) and the key/value
//! form (`host=… sslmode=…`) are read.

use std::fmt;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::verify_server_cert_signed_by_trust_anchor;
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::StoreError;
use crate::store::pg::sql::{failed, pg_error};

/// The `sslmode` values, as libpq names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl TlsMode {
    fn parse(v: &str) -> Result<TlsMode, StoreError> {
        Ok(match v {
            "disable" => TlsMode::Disable,
            "prefer" => TlsMode::Prefer,
            "require" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" => TlsMode::VerifyFull,
            "allow" => {
                return Err(url_error(
                    "sslmode=allow (plain first, TLS if refused) is not supported: use disable, \
                     prefer, require, verify-ca or verify-full",
                ));
            }
            other => {
                return Err(url_error(format!(
                    "sslmode={other:?} is not a TLS mode: use disable, prefer, require, \
                     verify-ca or verify-full"
                )));
            }
        })
    }
}

/// How to connect to the store's database: the parsed configuration (without the TLS
/// options, which tokio-postgres does not read) and the connector that applies them.
#[derive(Clone)]
pub struct PgConnect {
    pub(crate) config: tokio_postgres::Config,
    pub(crate) tls: MakeRustlsConnect,
    mode: TlsMode,
}

impl fmt::Debug for PgConnect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the configuration: it may hold a password.
        f.debug_struct("PgConnect")
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

fn url_error(what: impl fmt::Display) -> StoreError {
    StoreError::Failed {
        what: format!("the store URL: {what}"),
    }
}

impl PgConnect {
    /// Reads `url` (either form), its TLS options included.
    ///
    /// # Errors
    /// A URL that does not parse, a TLS option or value that is not supported, or a
    /// `sslrootcert` file that cannot be read or holds no certificate, each named.
    pub fn parse(url: &str) -> Result<PgConnect, StoreError> {
        let (rest, options) = split_tls_options(url)?;
        let mut mode = TlsMode::Disable;
        let mut root = None;
        for (key, value) in options {
            match key.as_str() {
                "sslmode" => mode = TlsMode::parse(&value)?,
                "sslrootcert" => root = Some(value),
                other => {
                    return Err(url_error(format!(
                        "{other} is not supported (client certificates are not); the TLS \
                         options read are sslmode and sslrootcert"
                    )));
                }
            }
        }
        let mut config: tokio_postgres::Config = rest
            .parse()
            .map_err(|e| url_error(format!("it does not parse: {e}")))?;
        config.ssl_mode(match mode {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            TlsMode::Require | TlsMode::VerifyCa | TlsMode::VerifyFull => SslMode::Require,
        });
        let roots = match &root {
            Some(path) => Some(read_roots(path)?),
            None => None,
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = match (mode, roots) {
            (TlsMode::VerifyCa | TlsMode::VerifyFull, None) => {
                return Err(url_error(format!(
                    "sslmode={} needs sslrootcert=<a PEM file of the CA certificates to trust>",
                    if mode == TlsMode::VerifyCa {
                        "verify-ca"
                    } else {
                        "verify-full"
                    }
                )));
            }
            (TlsMode::VerifyFull, Some(roots)) => {
                rustls::client::WebPkiServerVerifier::builder_with_provider(
                    Arc::new(roots),
                    Arc::clone(&provider),
                )
                .build()
                .map_err(|e| url_error(format!("sslrootcert: {e}")))?
            }
            // libpq: `require` with a root certificate file verifies like `verify-ca`.
            (TlsMode::VerifyCa | TlsMode::Require, Some(roots)) => Arc::new(LibpqVerifier {
                roots: Some(Arc::new(roots)),
                provider: Arc::clone(&provider),
            }),
            (_, _) => Arc::new(LibpqVerifier {
                roots: None,
                provider: Arc::clone(&provider),
            }),
        };
        let client = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| failed(format!("TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(PgConnect {
            config,
            tls: MakeRustlsConnect::new(client),
            mode,
        })
    }

    /// The TLS mode read from the URL.
    #[must_use]
    pub fn mode(&self) -> TlsMode {
        self.mode
    }

    /// One connection, driven on the current runtime until the client is dropped.
    ///
    /// # Errors
    /// The database's (or the TLS handshake's) own message.
    pub async fn connect(&self) -> Result<tokio_postgres::Client, StoreError> {
        let (client, conn) = self
            .config
            .connect(self.tls.clone())
            .await
            .map_err(|e| failed(format!("cannot connect: {}", pg_error(&e))))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(client)
    }
}

/// The certificates of PEM file `path`.
fn read_roots(path: &str) -> Result<RootCertStore, StoreError> {
    if path == "system" {
        return Err(url_error(
            "sslrootcert=system is not supported: name a PEM file of CA certificates",
        ));
    }
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<Result<_, _>>())
        .map_err(|e| url_error(format!("sslrootcert {path}: {e}")))?;
    if certs.is_empty() {
        return Err(url_error(format!(
            "sslrootcert {path}: no certificate in the file"
        )));
    }
    let mut roots = RootCertStore::empty();
    for (i, c) in certs.into_iter().enumerate() {
        roots
            .add(c)
            .map_err(|e| url_error(format!("sslrootcert {path}, certificate {i}: {e}")))?;
    }
    Ok(roots)
}

// ---------------------------------------------------------------------------------------------
// Reading the TLS options out of the URL
// ---------------------------------------------------------------------------------------------

/// The options tokio-postgres does not read (it knows `sslmode` only as disable, prefer or
/// require): taken out of the URL here.
const TLS_OPTIONS: &[&str] = &[
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcrl",
    "sslcrldir",
    "sslsni",
];

/// `url` without its TLS options, and those options (decoded).
fn split_tls_options(url: &str) -> Result<(String, Vec<(String, String)>), StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let Some((base, query)) = url.split_once('?') else {
            return Ok((url.to_owned(), Vec::new()));
        };
        let (mut kept, mut taken) = (Vec::new(), Vec::new());
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let key = percent_decode(k)?;
            if TLS_OPTIONS.contains(&key.as_str()) {
                taken.push((key, percent_decode(v)?));
            } else {
                kept.push(pair);
            }
        }
        let rest = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        return Ok((rest, taken));
    }
    let (mut kept, mut taken) = (Vec::new(), Vec::new());
    for (k, v) in key_values(url)? {
        if TLS_OPTIONS.contains(&k.as_str()) {
            taken.push((k, v));
        } else {
            kept.push(format!(
                "{k}='{}'",
                v.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        }
    }
    Ok((kept.join(" "), taken))
}

fn percent_decode(s: &str) -> Result<String, StoreError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| url_error(format!("a bad percent escape in {s:?}")))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| url_error(format!("{s:?} does not decode to UTF-8")))
}

/// The pairs of a key/value connection string (`host=localhost sslmode='verify-full'`), with
/// libpq's quoting: a value in single quotes, `\'` and `\\` escaped.
fn key_values(s: &str) -> Result<Vec<(String, String)>, StoreError> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(out);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err(url_error(format!("{key:?} has no value (key=value)")));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next() {
                    Some('\'') => break,
                    Some('\\') => match chars.next() {
                        Some(c) => value.push(c),
                        None => return Err(url_error("an unterminated quoted value")),
                    },
                    Some(c) => value.push(c),
                    None => return Err(url_error("an unterminated quoted value")),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    if let Some(e) = chars.next() {
                        value.push(e);
                    }
                } else {
                    value.push(c);
                }
            }
        }
        out.push((key, value));
    }
}

// ---------------------------------------------------------------------------------------------
// Verifiers
// ---------------------------------------------------------------------------------------------

/// `verify-ca` (with `roots`): the chain must lead to a trusted CA; the host name is not
/// checked. `prefer` and `require` without `sslrootcert` (no `roots`): encryption without
/// authentication, as libpq does (it protects against eavesdropping, not against a man in
/// the middle). Either way the handshake's signatures are checked against the certificate
/// presented.
#[derive(Debug)]
struct LibpqVerifier {
    roots: Option<Arc<RootCertStore>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for LibpqVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(roots) = &self.roots {
            let cert = ParsedCertificate::try_from(end_entity)?;
            verify_server_cert_signed_by_trust_anchor(
                &cert,
                roots,
                intermediates,
                now,
                self.provider.signature_verification_algorithms.all,
            )?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(url: &str) -> String {
        PgConnect::parse(url).unwrap_err().to_string()
    }

    #[test]
    fn modes_are_read_from_either_form() {
        let m = |url: &str| PgConnect::parse(url).unwrap().mode();
        assert_eq!(m("postgres://u@h/db"), TlsMode::Disable);
        assert_eq!(m("postgres://u@h/db?sslmode=disable"), TlsMode::Disable);
        assert_eq!(m("postgres://u@h/db?sslmode=prefer"), TlsMode::Prefer);
        assert_eq!(
            m("postgresql://u@h:5433/db?application_name=x&sslmode=require"),
            TlsMode::Require
        );
        assert_eq!(m("host=h user=u sslmode=require"), TlsMode::Require);
        assert_eq!(m("host=h user=u sslmode='prefer'"), TlsMode::Prefer);
    }

    #[test]
    fn other_options_are_kept_and_tls_options_taken_out() {
        let (rest, taken) =
            split_tls_options("postgres://u@h/db?sslmode=verify-full&application_name=a%20b&sslrootcert=%2Ftmp%2Fca.pem")
                .unwrap();
        assert_eq!(rest, "postgres://u@h/db?application_name=a%20b");
        assert_eq!(
            taken,
            vec![
                ("sslmode".to_owned(), "verify-full".to_owned()),
                ("sslrootcert".to_owned(), "/tmp/ca.pem".to_owned())
            ]
        );
        let (rest, taken) =
            split_tls_options(r"host=h password='it\'s' user = u sslrootcert='/a b/ca.pem'")
                .unwrap();
        assert_eq!(rest, r"host='h' password='it\'s' user='u'");
        assert_eq!(
            taken,
            vec![("sslrootcert".to_owned(), "/a b/ca.pem".to_owned())]
        );
        let c = PgConnect::parse(&format!("{rest} dbname=x")).unwrap();
        assert_eq!(c.config.get_password(), Some(&b"it's"[..]));
    }

    #[test]
    fn bad_tls_options_are_refused_by_name() {
        assert!(err("postgres://u@h/db?sslmode=bogus").contains("sslmode=\"bogus\""));
        assert!(err("postgres://u@h/db?sslmode=allow").contains("sslmode=allow"));
        assert!(
            err("postgres://u@h/db?sslmode=verify-full").contains("needs sslrootcert"),
            "{}",
            err("postgres://u@h/db?sslmode=verify-full")
        );
        assert!(err("postgres://u@h/db?sslmode=verify-ca").contains("verify-ca needs"));
        assert!(err("postgres://u@h/db?sslcert=/c.pem").contains("sslcert is not supported"));
        assert!(
            err("postgres://u@h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
                .contains("sslrootcert /nonexistent/ca.pem")
        );
        assert!(err("postgres://u@h/db?sslrootcert=system").contains("system"));
        assert!(err("postgres://u@h/db?sslmode=%zz").contains("percent"));
    }
}
