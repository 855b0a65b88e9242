//! A NATS server with JetStream of the test's own (Debian's `nats-server`): a free port
//! chosen by the server itself (`-p -1`, read back from its ports file, never probed), its
//! store in a temporary directory, killed when dropped. It can be killed and started again
//! on the same port and store. Without `nats-server` the tests skip with a message, unless
//! `CARDHOUSE_REQUIRE_NATS=1` (set by `scripts/test-all.sh`): then they fail.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The nats-server binary, if installed (`CARDHOUSE_NATS_SERVER`, else
/// `/usr/sbin/nats-server`, else `PATH`); `None` after saying why, unless
/// `CARDHOUSE_REQUIRE_NATS=1`, which makes it a failure.
pub fn binary() -> Option<PathBuf> {
    let found = std::env::var("CARDHOUSE_NATS_SERVER")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            let debian = PathBuf::from("/usr/sbin/nats-server");
            debian.exists().then_some(debian)
        })
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join("nats-server"))
                    .find(|p| p.exists())
            })
        });
    if found.is_none() {
        let why = "nats-server is not installed (Debian: apt-get install -y nats-server; or \
                   set CARDHOUSE_NATS_SERVER to its binary)";
        if std::env::var("CARDHOUSE_REQUIRE_NATS").is_ok_and(|v| v == "1") {
            panic!("{why}, and CARDHOUSE_REQUIRE_NATS=1 says the events tests must run");
        }
        eprintln!("skipping: {why}; CARDHOUSE_REQUIRE_NATS=1 makes this a failure");
    }
    found
}

/// A running `nats-server -js`.
pub struct Nats {
    bin: PathBuf,
    child: Option<Child>,
    pub port: u16,
    dir: tempfile::TempDir,
}

impl Nats {
    /// Starts it on a port of its choosing; returns once it listens.
    pub fn start(bin: &Path) -> Nats {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut nats = Nats {
            bin: bin.to_owned(),
            child: None,
            port: 0,
            dir,
        };
        nats.spawn("-1");
        nats
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// SIGKILL: it stops at once, its store as the kill left it.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills it (if running) and starts it again on the same port and store.
    pub fn restart(&mut self) {
        self.kill9();
        let port = self.port.to_string();
        self.spawn(&port);
    }

    /// Spawns the server on `port` and waits for its ports file.
    fn spawn(&mut self, port: &str) {
        let store = self.dir.path().join("store");
        let ports = self.dir.path().join("ports");
        std::fs::create_dir_all(&ports).expect("ports directory");
        let log = std::fs::File::create(self.dir.path().join(format!("nats-{port}.log")))
            .expect("log file");
        let child = Command::new(&self.bin)
            .args(["-js", "-a", "127.0.0.1", "-p", port])
            .arg("-sd")
            .arg(&store)
            .arg("--ports_file_dir")
            .arg(&ports)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn nats-server");
        let file = ports.join(format!(
            "{}_{}.ports",
            self.bin
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("nats-server"),
            child.id()
        ));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(port) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|text| parse_port(&text))
            {
                self.port = port;
                return;
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("nats-server exited at start ({status}): {}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "nats-server did not start: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the server logged so far (every run).
    pub fn log(&self) -> String {
        let mut out = String::new();
        if let Ok(entries) = std::fs::read_dir(self.dir.path()) {
            for e in entries.flatten() {
                if e.path().extension().is_some_and(|x| x == "log") {
                    out.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
                }
            }
        }
        out
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// The client port of a ports file (`{"nats":["nats://127.0.0.1:4222"]}`).
fn parse_port(text: &str) -> Option<u16> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let url = v.get("nats")?.get(0)?.as_str()?;
    url.rsplit(':').next()?.parse().ok()
}

/// One message of the events stream.
#[derive(Clone, Debug)]
pub struct Stored {
    pub subject: String,
    /// Its `Nats-Msg-Id` header.
    pub msg_id: String,
    pub payload: Vec<u8>,
}

/// Every message of stream `name` at `url`, in stream order (none if it does not exist).
pub async fn read_stream(url: &str, name: &str) -> Vec<Stored> {
    let client = async_nats::connect(url)
        .await
        .expect("connect to nats-server");
    let js = async_nats::jetstream::new(client);
    let Ok(mut stream) = js.get_stream(name).await else {
        return Vec::new();
    };
    let state = stream.info().await.expect("stream info").state.clone();
    let mut out = Vec::new();
    if state.messages == 0 {
        return out;
    }
    for seq in state.first_sequence..=state.last_sequence {
        let m = stream.get_raw_message(seq).await.expect("stream message");
        out.push(Stored {
            subject: m.subject.to_string(),
            msg_id: m
                .headers
                .get(async_nats::header::NATS_MESSAGE_ID)
                .map(|v| v.as_str().to_owned())
                .unwrap_or_default(),
            payload: m.payload.to_vec(),
        });
    }
    out
}
