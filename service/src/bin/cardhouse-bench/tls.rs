//! The TLS phase (`--tls`): a second one-node server like the plaintext one, serving TLS
//! (rustls through tonic, as `cardhouse serve --tls-cert ... --tls-key ...`) with a
//! certificate made at start, and clients that trust it.

use cardhouse_server::tls::TlsFiles;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
use tonic::transport::{Certificate, Channel, ClientTlsConfig};

/// A throwaway CA and a server certificate for `localhost` and 127.0.0.1, as PEM files in a
/// temporary directory (removed when this is dropped).
pub(crate) struct BenchTls {
    _dir: tempfile::TempDir,
    pub(crate) files: TlsFiles,
    ca_pem: String,
}

impl BenchTls {
    pub(crate) fn new() -> Result<BenchTls, String> {
        let err = |e: rcgen::Error| format!("making the bench's TLS certificate: {e}");
        let ca_key = KeyPair::generate().map_err(err)?;
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "cardhouse-bench CA");
        let ca_pem = ca.self_signed(&ca_key).map_err(err)?.pem();
        let issuer = Issuer::new(ca, ca_key);
        let key = KeyPair::generate().map_err(err)?;
        let mut leaf = CertificateParams::new(vec!["localhost".to_owned()]).map_err(err)?;
        leaf.subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
        let cert = leaf.signed_by(&key, &issuer).map_err(err)?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let files = TlsFiles {
            cert: dir.path().join("cert.pem"),
            key: dir.path().join("key.pem"),
            client_ca: None,
        };
        std::fs::write(&files.cert, cert.pem()).map_err(|e| e.to_string())?;
        std::fs::write(&files.key, key.serialize_pem()).map_err(|e| e.to_string())?;
        Ok(BenchTls {
            _dir: dir,
            files,
            ca_pem,
        })
    }

    /// What a client needs to trust the server.
    fn client(&self) -> ClientTlsConfig {
        ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(&self.ca_pem))
            .domain_name("localhost")
    }
}

/// `n` TLS connections to the server at `addr` (which serves `tls`'s certificate).
pub(crate) async fn tls_channels(
    addr: std::net::SocketAddr,
    tls: &BenchTls,
    n: usize,
) -> Vec<Channel> {
    let client = tls.client();
    // Connected on the load generator's runtime, where their connections' tasks then run.
    crate::load::spawn(async move {
        let mut out = Vec::new();
        for _ in 0..n.max(1) {
            out.push(
                Channel::from_shared(format!("https://{addr}"))
                    .expect("valid uri")
                    .tls_config(client.clone())
                    .expect("client TLS")
                    .tcp_nodelay(true)
                    .connect()
                    .await
                    .expect("loopback TLS connect"),
            );
        }
        out
    })
    .await
    .expect("connecting the TLS channels")
}
