//! A PostgreSQL server of the test's own: `initdb` in a temporary directory, `postgres` on a
//! free port of 127.0.0.1, stopped (fast shutdown) and removed when dropped. For what the
//! machine's server cannot show: TLS with a certificate made at run time, `pg_hba.conf`
//! rules that refuse plain connections.
//!
//! The binaries are Debian's (`/usr/lib/postgresql/<version>/bin`, the highest version), or
//! those of `CARDHOUSE_PG_BIN`. PostgreSQL refuses to run as root: when the tests run as
//! root (CI does), every PostgreSQL command runs as the `postgres` system user through
//! `setpriv`, and the temporary directory is handed to that user.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where `initdb` and `postgres` are, if anywhere.
pub fn binaries() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("CARDHOUSE_PG_BIN")
        && !dir.trim().is_empty()
    {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").exists() && bin.join("postgres").exists()).then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// The ids of the user PostgreSQL runs as, when the tests run as root.
fn run_as() -> Option<(u32, u32)> {
    let id = |args: &[&str]| -> Option<u32> {
        let out = Command::new("id").args(args).output().ok()?;
        String::from_utf8(out.stdout).ok()?.trim().parse().ok()
    };
    if id(&["-u"])? != 0 {
        return None;
    }
    let uid = id(&["-u", "postgres"]).expect(
        "the tests run as root, and PostgreSQL refuses to: they need a `postgres` system user",
    );
    let gid = id(&["-g", "postgres"]).expect("the postgres user's group");
    Some((uid, gid))
}

/// What the instance is set up with.
#[derive(Default)]
pub struct Setup {
    /// Files written into the data directory (owner-only: keys may be among them).
    pub files: Vec<(&'static str, Vec<u8>)>,
    /// Lines appended to `postgresql.conf`.
    pub conf: String,
    /// The whole of `pg_hba.conf`.
    pub hba: String,
}

/// A running instance; stopped and removed when dropped.
pub struct PgInstance {
    pub port: u16,
    pub dir: tempfile::TempDir,
    child: Option<Child>,
    log: PathBuf,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl PgInstance {
    /// `initdb`, then `postgres` with `setup`, waiting (up to 30 s) until it accepts
    /// connections.
    pub fn start(bin: &Path, setup: &Setup) -> PgInstance {
        let owner = run_as();
        let dir = tempfile::Builder::new()
            .prefix("cardhouse-pg-")
            .tempdir()
            .expect("a temporary directory");
        let chown = |p: &Path| {
            if let Some((uid, gid)) = owner {
                std::os::unix::fs::chown(p, Some(uid), Some(gid)).expect("chown to postgres");
            }
        };
        chown(dir.path());
        let command = |program: &str| {
            let exe = bin.join(program);
            match owner {
                Some((uid, gid)) => {
                    let mut c = Command::new("setpriv");
                    c.arg(format!("--reuid={uid}"))
                        .arg(format!("--regid={gid}"))
                        .arg("--clear-groups")
                        .arg("--")
                        .arg(exe);
                    c
                }
                None => Command::new(exe),
            }
        };
        let data = dir.path().join("data");
        let out = command("initdb")
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "-A",
                "trust",
                "--no-sync",
                "--locale=C",
                "-E",
                "UTF8",
            ])
            .stdin(Stdio::null())
            .output()
            .expect("run initdb");
        assert!(
            out.status.success(),
            "initdb failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for (name, bytes) in &setup.files {
            let p = data.join(name);
            fs::write(&p, bytes).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
            chown(&p);
        }
        fs::write(data.join("pg_hba.conf"), &setup.hba).unwrap();
        let log = dir.path().join("postgres.log");
        let base = fs::read_to_string(data.join("postgresql.conf")).unwrap();
        // A port found free may be taken before the server binds it: try a few.
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            let conf = format!(
                "\n# cardhouse test instance\nport = {port}\nlisten_addresses = '127.0.0.1'\n\
                 unix_socket_directories = '{}'\nfsync = off\nfull_page_writes = off\n\
                 max_connections = 40\nshared_buffers = 16MB\n{}\n",
                dir.path().display(),
                setup.conf
            );
            fs::write(data.join("postgresql.conf"), format!("{base}{conf}")).unwrap();
            let log_file = fs::File::create(&log).unwrap();
            chown(&log);
            let child = command("postgres")
                .arg("-D")
                .arg(&data)
                .stdin(Stdio::null())
                .stdout(log_file.try_clone().unwrap())
                .stderr(log_file)
                .spawn()
                .expect("spawn postgres");
            let mut child = Some(child);
            match wait_ready(&mut child, &log) {
                Ok(()) => {
                    return PgInstance {
                        port,
                        dir,
                        child,
                        log,
                    };
                }
                Err(text) => {
                    stop(&mut child);
                    assert!(
                        text.contains("could not bind"),
                        "postgres did not start:\n{text}"
                    );
                    last = text;
                }
            }
        }
        panic!("postgres found no free port:\n{last}")
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Waits (up to 30 s) for the log line of a server ready for connections; the log if it
/// exits or takes longer.
fn wait_ready(child: &mut Option<Child>, log: &Path) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = fs::read_to_string(log).unwrap_or_default();
        if text.contains("database system is ready to accept connections") {
            return Ok(());
        }
        let exited = child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
            .is_some();
        if exited || Instant::now() >= deadline {
            return Err(text);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Fast shutdown (SIGINT), then SIGKILL after 10 s.
fn stop(child: &mut Option<Child>) {
    let Some(mut child) = child.take() else {
        return;
    };
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Drop for PgInstance {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}
