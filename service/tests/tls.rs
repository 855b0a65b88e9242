//! TLS and mutual TLS on the listener, against the real binary: certificates made here at
//! run time (rcgen), a TLS client served, plaintext refused, a client trusting another CA
//! refusing the server, and with `--tls-client-ca` a client without a certificate or with
//! one from another CA refused. Connection limits and the handshake timeout still hold, and
//! bad files stop the start with a message naming the flag.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::process::{Server, command};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

/// A CA that signs server and client certificates, written as PEM files into a directory.
struct Ca {
    name: &'static str,
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

impl Ca {
    fn new(name: &'static str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let pem = params.self_signed(&key).unwrap().pem();
        Ca {
            name,
            issuer: Issuer::new(params, key),
            pem,
        }
    }

    /// A leaf certificate and its key (PEM): for `localhost` and 127.0.0.1 as a server, or
    /// as a client.
    fn leaf(&self, server: bool) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params
            .subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
        params.distinguished_name.push(
            DnType::CommonName,
            format!("{} {}", self.name, if server { "server" } else { "client" }),
        );
        params.extended_key_usages = vec![if server {
            ExtendedKeyUsagePurpose::ServerAuth
        } else {
            ExtendedKeyUsagePurpose::ClientAuth
        }];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

struct Pki {
    dir: tempfile::TempDir,
    ca: Ca,
    other: Ca,
}

impl Pki {
    fn new() -> Pki {
        let pki = Pki {
            dir: tempfile::tempdir().unwrap(),
            ca: Ca::new("cardhouse test CA"),
            other: Ca::new("another CA"),
        };
        let (cert, key) = pki.ca.leaf(true);
        pki.write("server.pem", &cert);
        pki.write("server.key", &key);
        pki.write("ca.pem", &pki.ca.pem);
        pki
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// `--tls-cert`, `--tls-key` (and `--tls-client-ca` with `mutual`).
    fn flags(&self, mutual: bool) -> Vec<String> {
        let mut f = vec![
            "--in-memory".to_owned(),
            "--tls-cert".to_owned(),
            self.path("server.pem"),
            "--tls-key".to_owned(),
            self.path("server.key"),
        ];
        if mutual {
            f.extend(["--tls-client-ca".to_owned(), self.path("ca.pem")]);
        }
        f
    }
}

fn start(flags: &[String]) -> Server {
    let args: Vec<&str> = flags.iter().map(String::as_str).collect();
    Server::must_start(&args)
}

/// A client trusting `ca` (PEM), with an optional client certificate and key.
fn tls(ca: &str, identity: Option<(String, String)>) -> ClientTlsConfig {
    let mut c = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca))
        .domain_name("localhost");
    if let Some((cert, key)) = identity {
        c = c.identity(Identity::from_pem(cert, key));
    }
    c
}

/// Connects and creates a match: `Ok` only if the whole exchange worked.
async fn create_match(server: &Server, tls: Option<ClientTlsConfig>) -> Result<(), String> {
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut endpoint = Channel::from_shared(format!("{scheme}://{}", server.addr))
        .unwrap()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(5));
    if let Some(t) = tls {
        endpoint = endpoint.tls_config(t).map_err(|e| e.to_string())?;
    }
    let channel = endpoint.connect().await.map_err(|e| format!("{e:?}"))?;
    MatchesClient::new(channel)
        .create_match(pb::CreateMatchRequest {
            game: "klaberjass".into(),
            ..Default::default()
        })
        .await
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_serves_tls_clients_and_refuses_plaintext_and_a_wrong_ca() {
    let pki = Pki::new();
    let server = start(&pki.flags(false));
    create_match(&server, Some(tls(&pki.ca.pem, None)))
        .await
        .expect("a client trusting the CA is served");
    let plain = create_match(&server, None).await;
    assert!(plain.is_err(), "plaintext gRPC was served over TLS");
    let wrong = create_match(&server, Some(tls(&pki.other.pem, None))).await;
    let wrong = wrong.expect_err("a client trusting another CA accepted the server");
    assert!(
        wrong.contains("UnknownIssuer") || wrong.contains("certificate"),
        "{wrong}"
    );
    // Still serving after the refusals.
    create_match(&server, Some(tls(&pki.ca.pem, None)))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls_refuses_clients_without_a_certificate_of_the_client_ca() {
    let pki = Pki::new();
    let server = start(&pki.flags(true));
    create_match(&server, Some(tls(&pki.ca.pem, Some(pki.ca.leaf(false)))))
        .await
        .expect("a client with a certificate of the client CA is served");
    let missing = create_match(&server, Some(tls(&pki.ca.pem, None))).await;
    assert!(missing.is_err(), "served a client without a certificate");
    let foreign = create_match(&server, Some(tls(&pki.ca.pem, Some(pki.other.leaf(false))))).await;
    assert!(
        foreign.is_err(),
        "served a client certificate of another CA"
    );
    let plain = create_match(&server, None).await;
    assert!(plain.is_err(), "plaintext gRPC was served over mutual TLS");
    create_match(&server, Some(tls(&pki.ca.pem, Some(pki.ca.leaf(false)))))
        .await
        .unwrap();
}

/// The flags' environment variables do the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_is_configured_by_environment_variables_too() {
    let pki = Pki::new();
    let mut cmd = command(&["--in-memory"]);
    cmd.env("CARDHOUSE_TLS_CERT", pki.path("server.pem"))
        .env("CARDHOUSE_TLS_KEY", pki.path("server.key"))
        .env("CARDHOUSE_TLS_CLIENT_CA", pki.path("ca.pem"));
    let server = Server::spawn_command(cmd).must_wait();
    assert!(
        create_match(&server, Some(tls(&pki.ca.pem, None)))
            .await
            .is_err()
    );
    create_match(&server, Some(tls(&pki.ca.pem, Some(pki.ca.leaf(false)))))
        .await
        .unwrap();
}

/// With TLS the connection limit still counts every connection, and a client that starts a
/// handshake and stalls is closed after the handshake timeout: a flood of idle and stalled
/// connections does not keep a real client out for long.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_keeps_the_connection_limit_and_the_handshake_timeout() {
    let pki = Pki::new();
    let mut flags = pki.flags(false);
    flags.extend(["--max-connections", "8", "--handshake-timeout-secs", "1"].map(String::from));
    let server = start(&flags);

    // A stalled handshake: the first bytes of a TLS record, then nothing. The server closes
    // it after the handshake timeout (its first byte came, so only the TLS timeout can).
    let mut stalled = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stalled
        .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
        .await
        .unwrap();
    let t = Instant::now();
    let mut buf = [0u8; 64];
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match stalled.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a stalled TLS handshake was kept open");
    assert!(
        t.elapsed() >= Duration::from_millis(800),
        "{:?}",
        t.elapsed()
    );

    // The limit: 8 connections held, the 9th (a real client) is closed at once...
    let mut held = Vec::new();
    for _ in 0..8 {
        let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        s.write_all(&[0x16, 0x03, 0x01]).await.unwrap();
        held.push(s);
    }
    // (Accepted in order: let the server take all eight before the client comes.)
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        create_match(&server, Some(tls(&pki.ca.pem, None)))
            .await
            .is_err(),
        "a ninth connection was served with --max-connections 8"
    );
    // ...and gets through once the stalled ones are timed out (bounded retries).
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match create_match(&server, Some(tls(&pki.ca.pem, None))).await {
            Ok(()) => break,
            Err(e) => {
                assert!(Instant::now() < deadline, "starved: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    drop(held);
}

fn start_error(flags: &[&str]) -> String {
    let failed = Server::start(flags)
        .map(|_| ())
        .expect_err("the server started");
    assert!(!failed.status.success());
    failed.stderr
}

fn p(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn bad_tls_files_stop_the_start_naming_the_flag_and_the_file() {
    let pki = Pki::new();
    let cert = pki.path("server.pem");
    let key = pki.path("server.key");
    let missing = p(&pki.dir.path().join("missing.pem"));
    let e = start_error(&["--in-memory", "--tls-cert", &missing, "--tls-key", &key]);
    assert!(e.contains("--tls-cert") && e.contains("missing.pem"), "{e}");

    let empty = p(&pki.write("empty.pem", "not a certificate\n"));
    let e = start_error(&["--in-memory", "--tls-cert", &empty, "--tls-key", &key]);
    assert!(
        e.contains("--tls-cert") && e.contains("no certificate"),
        "{e}"
    );
    let e = start_error(&["--in-memory", "--tls-cert", &cert, "--tls-key", &empty]);
    assert!(
        e.contains("--tls-key") && e.contains("no usable private key"),
        "{e}"
    );
    let e = start_error(&[
        "--in-memory",
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--tls-client-ca",
        &empty,
    ]);
    assert!(
        e.contains("--tls-client-ca") && e.contains("no certificate"),
        "{e}"
    );

    // A key that is not the certificate's.
    let (_, other_key) = pki.ca.leaf(true);
    let other_key = p(&pki.write("other.key", &other_key));
    let e = start_error(&["--in-memory", "--tls-cert", &cert, "--tls-key", &other_key]);
    assert!(e.contains("TLS configuration"), "{e}");

    // One without the other is a usage error.
    let e = start_error(&["--in-memory", "--tls-cert", &cert]);
    assert!(e.contains("--tls-key"), "{e}");
    let e = start_error(&["--in-memory", "--tls-client-ca", &cert]);
    assert!(e.contains("--tls-cert"), "{e}");
}
