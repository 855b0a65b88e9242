//! Scraping a server's `/metrics` (Prometheus text format) and reading its series.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One scrape: every sample as (name, labels, value).
#[derive(Debug, Clone)]
pub struct Scrape {
    pub samples: Vec<(String, BTreeMap<String, String>, f64)>,
    pub text: String,
}

/// `GET /metrics` from `addr` (HTTP/1.1, within 5 s); panics unless it answers 200.
pub async fn scrape(addr: SocketAddr) -> Scrape {
    let text = tokio::time::timeout(Duration::from_secs(5), async {
        let mut s = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connect to /metrics");
        s.write_all(b"GET /metrics HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    })
    .await
    .expect("/metrics answers within 5 s");
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    parse(body)
}

/// Parses Prometheus's text format (enough of it for our own output).
pub fn parse(body: &str) -> Scrape {
    let mut samples = Vec::new();
    for line in body.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect("a sample line");
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("a value: {line}"));
        let (name, labels) = match series.split_once('{') {
            Some((n, rest)) => {
                let rest = rest.strip_suffix('}').expect("closing brace");
                let mut labels = BTreeMap::new();
                for pair in rest.split("\",").filter(|p| !p.is_empty()) {
                    let (k, v) = pair.split_once("=\"").expect("label=\"value\"");
                    labels.insert(k.to_owned(), v.trim_end_matches('"').to_owned());
                }
                (n.to_owned(), labels)
            }
            None => (series.to_owned(), BTreeMap::new()),
        };
        samples.push((name, labels, value));
    }
    Scrape {
        samples,
        text: body.to_owned(),
    }
}

impl Scrape {
    /// The sum of series `name` over every sample whose labels include `labels` (0 if none).
    pub fn sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.samples
            .iter()
            .filter(|(n, l, _)| {
                n == name
                    && labels
                        .iter()
                        .all(|(k, v)| l.get(*k).is_some_and(|x| x == v))
            })
            .map(|(_, _, v)| v)
            .sum()
    }

    /// True if any sample of series `name` exists.
    pub fn has(&self, name: &str) -> bool {
        self.samples.iter().any(|(n, _, _)| n == name)
    }
}
