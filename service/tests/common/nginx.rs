//! nginx in front of the replicas, run from `deploy/nginx.conf` itself: the test changes only
//! the replica addresses and the listening address, so the deploy file is what is tested.
//!
//! nginx runs in the foreground (`daemon off`) with a prefix of its own in a temporary
//! directory (its logs, pid and temporary files there, its error log from the start with
//! `-e`), and is stopped (SIGTERM, then SIGKILL) when dropped. Without nginx the tests skip
//! with a message, unless `CARDHOUSE_REQUIRE_NGINX=1` (set by `scripts/test-all.sh`): then
//! they fail.

use std::fs;
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The deploy file, as the repository holds it.
pub const DEPLOY_CONF: &str = include_str!("../../../deploy/nginx.conf");
/// The example replica addresses of the deploy file.
pub const EXAMPLE_REPLICAS: [&str; 2] = ["10.0.0.11:50051", "10.0.0.12:50051"];
/// The deploy file's listening directive.
pub const EXAMPLE_LISTEN: &str = "listen 8080 http2;";

/// The nginx binary, if installed (`CARDHOUSE_NGINX`, else `/usr/sbin/nginx`, else `PATH`);
/// `None` after saying why, unless `CARDHOUSE_REQUIRE_NGINX=1`, which makes it a failure.
pub fn binary() -> Option<PathBuf> {
    let found = std::env::var("CARDHOUSE_NGINX")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            let debian = PathBuf::from("/usr/sbin/nginx");
            debian.exists().then_some(debian)
        })
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join("nginx"))
                    .find(|p| p.exists())
            })
        });
    if found.is_none() {
        let why = "nginx is not installed (Debian: apt-get install -y nginx; or set \
                   CARDHOUSE_NGINX to its binary)";
        if std::env::var("CARDHOUSE_REQUIRE_NGINX").is_ok_and(|v| v == "1") {
            panic!("{why}, and CARDHOUSE_REQUIRE_NGINX=1 says the balancer tests must run");
        }
        eprintln!("skipping: {why}; CARDHOUSE_REQUIRE_NGINX=1 makes this a failure");
    }
    found
}

/// The deploy file for `replicas`, listening on `listen`.
pub fn render(replicas: &[SocketAddr; 2], listen: SocketAddr) -> String {
    let mut conf = DEPLOY_CONF.to_owned();
    for (example, addr) in EXAMPLE_REPLICAS.iter().zip(replicas) {
        let line = format!("server {example} ");
        assert_eq!(
            conf.matches(&line).count(),
            1,
            "deploy/nginx.conf has one `{line}` line"
        );
        conf = conf.replace(&line, &format!("server {addr} "));
    }
    assert_eq!(
        conf.matches(EXAMPLE_LISTEN).count(),
        1,
        "deploy/nginx.conf: {EXAMPLE_LISTEN}"
    );
    conf.replace(EXAMPLE_LISTEN, &format!("listen {listen} http2;"))
}

/// A running nginx; stopped when dropped.
pub struct Nginx {
    pub addr: SocketAddr,
    pub prefix: tempfile::TempDir,
    child: Option<Child>,
}

fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

impl Nginx {
    /// Starts `bin` with the deploy file in front of `replicas`, and waits (up to 10 s) until
    /// it accepts connections.
    pub fn start(bin: &Path, replicas: &[SocketAddr; 2]) -> Nginx {
        let mut last = String::new();
        // A port found free may be taken before nginx binds it: try a few.
        for _ in 0..3 {
            match Nginx::try_start(bin, replicas) {
                Ok(n) => return n,
                Err(log) if log.contains("Address already in use") => last = log,
                Err(log) => panic!("nginx did not start:\n{log}"),
            }
        }
        panic!("nginx found no free port:\n{last}")
    }

    fn try_start(bin: &Path, replicas: &[SocketAddr; 2]) -> Result<Nginx, String> {
        let prefix = tempfile::Builder::new()
            .prefix("cardhouse-nginx-")
            .tempdir()
            .unwrap();
        // Run as root, nginx's workers are `nobody`: they must reach the temporary files.
        fs::set_permissions(prefix.path(), fs::Permissions::from_mode(0o755)).unwrap();
        fs::create_dir(prefix.path().join("logs")).unwrap();
        let conf = prefix.path().join("nginx.conf");
        let addr = free_addr();
        fs::write(&conf, render(replicas, addr)).unwrap();
        let args = [
            "-p".to_owned(),
            format!("{}/", prefix.path().display()),
            "-c".to_owned(),
            conf.display().to_string(),
            "-e".to_owned(),
            prefix.path().join("logs/error.log").display().to_string(),
        ];
        let check = Command::new(bin)
            .args(&args)
            .arg("-t")
            .output()
            .expect("run nginx -t");
        assert!(
            check.status.success(),
            "nginx -t refused deploy/nginx.conf:\n{}",
            String::from_utf8_lossy(&check.stderr)
        );
        let child = Command::new(bin)
            .args(&args)
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn nginx");
        let mut nginx = Nginx {
            addr,
            prefix,
            child: Some(child),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if std::net::TcpStream::connect(addr).is_ok() {
                return Ok(nginx);
            }
            let exited = nginx
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
                .is_some();
            if exited || Instant::now() >= deadline {
                let log = nginx.error_log();
                nginx.stop();
                return Err(log);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// nginx's error log so far.
    pub fn error_log(&self) -> String {
        fs::read_to_string(self.prefix.path().join("logs/error.log")).unwrap_or_default()
    }

    /// nginx's access log so far (the deploy file's `grpc` format).
    pub fn access_log(&self) -> String {
        fs::read_to_string(self.prefix.path().join("logs/access.log")).unwrap_or_default()
    }

    /// SIGTERM (nginx's fast shutdown, which stops its workers), then SIGKILL after 5 s.
    fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}
