//! The real `cardhouse` binary (`serve` on `127.0.0.1:0`), serving until killed or stopped:
//! started without sleeping or port probing (its first stdout line names the address).

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cardhouse_server::pb::matches_client::MatchesClient;
use tonic::transport::Channel;

/// A running `cardhouse serve`; killed (SIGKILL) when dropped.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    stderr: Arc<Mutex<String>>,
}

/// How a start ended when it did not serve.
#[derive(Debug)]
pub struct Failed {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// A spawned `cardhouse serve` that has not announced its address yet; killed when dropped.
pub struct Starting {
    child: Option<Child>,
    stderr: Arc<Mutex<String>>,
}

/// `cardhouse serve --listen 127.0.0.1:0 --shutdown-grace-secs 30 <extra>`, with neither a
/// create credential nor a store taken from the environment.
pub fn command(extra: &[&str]) -> Command {
    command_under(&[], extra)
}

/// [`command`] run by `wrapper` (a program and its arguments, e.g. `prlimit
/// --nofile=256:256 --`), which is given the binary and its arguments.
pub fn command_under(wrapper: &[&str], extra: &[&str]) -> Command {
    let binary = env!("CARGO_BIN_EXE_cardhouse");
    let mut cmd = match wrapper.split_first() {
        Some((program, args)) => {
            let mut cmd = Command::new(program);
            cmd.args(args).arg(binary);
            cmd
        }
        None => Command::new(binary),
    };
    cmd.arg("serve")
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--shutdown-grace-secs")
        .arg("30")
        .args(extra)
        .env("RUST_LOG", "info")
        .env_remove("CARDHOUSE_CREATE_TOKEN")
        .env_remove("CARDHOUSE_STORE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

impl Starting {
    /// Waits for the listening line, or for the exit of a start that failed.
    pub fn wait(mut self) -> Result<Server, Failed> {
        let mut child = self.child.take().expect("a child");
        let stderr = Arc::clone(&self.stderr);
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout);
        let mut line = String::new();
        let n = lines.read_line(&mut line).expect("read stdout");
        if n == 0 {
            let status = child.wait().expect("wait");
            // Let the stderr reader finish.
            std::thread::sleep(Duration::from_millis(50));
            let stderr = stderr.lock().unwrap().clone();
            return Err(Failed {
                status,
                stdout: line,
                stderr,
            });
        }
        let addr = match line
            .trim()
            .strip_prefix("cardhouse listening on ")
            .and_then(|a| a.parse().ok())
        {
            Some(addr) => addr,
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("unexpected first line {line:?}");
            }
        };
        // Keep draining stdout so the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
        Ok(Server {
            child,
            addr,
            stderr,
        })
    }

    pub fn must_wait(self) -> Server {
        self.wait()
            .unwrap_or_else(|f| panic!("server did not start: {f:?}"))
    }
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Server {
    /// Spawns the binary; [`Starting::wait`] then waits for its listening line.
    pub fn spawn(extra: &[&str]) -> Starting {
        Server::spawn_command(command(extra))
    }

    /// Spawns `cmd` (see [`command`], [`command_under`]).
    pub fn spawn_command(mut cmd: Command) -> Starting {
        let mut child = cmd.spawn().expect("spawn cardhouse");
        let mut stderr_pipe = child.stderr.take().expect("stderr");
        let stderr = Arc::new(Mutex::new(String::new()));
        {
            let stderr = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr_pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    stderr
                        .lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        Starting {
            child: Some(child),
            stderr,
        }
    }

    /// Starts the binary and waits for its listening line.
    pub fn start(extra: &[&str]) -> Result<Server, Failed> {
        Server::spawn(extra).wait()
    }

    pub fn must_start(extra: &[&str]) -> Server {
        Server::spawn(extra).must_wait()
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr))
            .unwrap()
            .connect_timeout(Duration::from_secs(5))
            .connect()
            .await
            .unwrap()
    }

    pub async fn matches(&self) -> MatchesClient<Channel> {
        MatchesClient::new(self.channel().await).max_decoding_message_size(64 << 20)
    }

    pub fn kill9(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("wait");
    }

    /// SIGTERM, then the exit status and how long the exit took.
    pub fn term(mut self) -> (ExitStatus, Duration) {
        let t = Instant::now();
        let pid = self.child.id().to_string();
        let ok = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(ok.success());
        let status = self.child.wait().expect("wait");
        (status, t.elapsed())
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
