//! TLS on the listener (`--tls-cert`, `--tls-key`) and mutual TLS (`--tls-client-ca`), with
//! rustls through tonic's own TLS support.
//!
//! tonic's acceptor runs over our own incoming stream ([`crate::connections`]), so a
//! connection holds its slot under `--max-connections` from accept to close, TLS or not; the
//! whole TLS handshake (not only its first byte) must finish within the handshake timeout.
//! The files are read and checked once, at start: a missing file, a file without a PEM
//! certificate or key, a key that does not belong to the certificate or a client CA file
//! without a certificate stops the server with a message naming the flag and the file.
//! Replacing the files needs a restart.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

/// Where the server's certificate and key, and optionally the CA of client certificates, are.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The server's certificate chain (PEM, leaf first).
    pub cert: PathBuf,
    /// The server's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// If set, every client must present a certificate signed by a CA in this file (PEM);
    /// connections without one, or with another, are refused during the handshake.
    pub client_ca: Option<PathBuf>,
}

/// Why the TLS files cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{flag} {path}: {source}")]
    Read {
        flag: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{flag} {path}: {what}")]
    Content {
        flag: &'static str,
        path: PathBuf,
        what: String,
    },
    /// What rustls said (the whole chain of causes: tonic's own error says only
    /// "transport error").
    #[error("TLS configuration (--tls-cert, --tls-key, --tls-client-ca): {0}")]
    Config(String),
}

fn read(flag: &'static str, path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        flag,
        path: path.to_owned(),
        source,
    })
}

/// The certificates of a PEM file: at least one, all parseable.
fn certificates(flag: &'static str, path: &Path, pem: &[u8]) -> Result<usize, TlsError> {
    let content = |what: String| TlsError::Content {
        flag,
        path: path.to_owned(),
        what,
    };
    let mut n = 0;
    for cert in CertificateDer::pem_slice_iter(pem) {
        cert.map_err(|e| content(format!("unreadable PEM certificate: {e}")))?;
        n += 1;
    }
    if n == 0 {
        return Err(content(
            "no certificate (a PEM `BEGIN CERTIFICATE` block) in the file".to_owned(),
        ));
    }
    Ok(n)
}

/// An error and its sources, `: `-separated.
fn causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl TlsFiles {
    /// Reads and checks the files; `handshake_timeout` bounds each TLS handshake.
    ///
    /// # Errors
    /// A file that cannot be read, holds no PEM certificate (or key), or a key that does not
    /// match the certificate; each message names the flag and the file.
    pub fn load(&self, handshake_timeout: Duration) -> Result<ServerTlsConfig, TlsError> {
        let cert = read("--tls-cert", &self.cert)?;
        certificates("--tls-cert", &self.cert, &cert)?;
        let key = read("--tls-key", &self.key)?;
        PrivateKeyDer::from_pem_slice(&key).map_err(|e| TlsError::Content {
            flag: "--tls-key",
            path: self.key.clone(),
            what: format!("no usable private key (PEM PKCS#8, PKCS#1 or SEC1): {e}"),
        })?;
        let mut config = ServerTlsConfig::new()
            .identity(Identity::from_pem(cert, key))
            .timeout(handshake_timeout);
        if let Some(path) = &self.client_ca {
            let ca = read("--tls-client-ca", path)?;
            certificates("--tls-client-ca", path, &ca)?;
            config = config.client_ca_root(Certificate::from_pem(ca));
        }
        // Builds the rustls configuration once here, so that a key not matching the
        // certificate is reported now, not at the first connection.
        Server::builder()
            .tls_config(config.clone())
            .map_err(|e| TlsError::Config(causes(&e)))?;
        Ok(config)
    }
}
