//! The servers the bench starts in its own process, each on `127.0.0.1:0`: the bare tonic
//! echo service (the baseline) and cardhouse servers (one node, or PostgreSQL replicas).

use std::net::SocketAddr;
use std::time::Duration;

use cardhouse_server::Config;
use cardhouse_server::bench_pb::echo_server::{Echo, EchoServer};
use cardhouse_server::bench_pb::{EchoRequest, EchoResponse};
use cardhouse_server::server::{ServeError, serve_with_ready};
use tokio::sync::oneshot;
use tonic::transport::Server;
use tonic::{Request, Response, Status};

#[derive(Debug, Default)]
struct EchoService;

#[tonic::async_trait]
impl Echo for EchoService {
    async fn echo(&self, req: Request<EchoRequest>) -> Result<Response<EchoResponse>, Status> {
        Ok(Response::new(EchoResponse {
            payload: req.into_inner().payload,
        }))
    }
}

/// A server started in this process, with what it takes to stop it.
pub(crate) struct Replica {
    pub(crate) addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), ServeError>>,
}

/// Starts a server on `127.0.0.1:0` and waits until it can serve (its store open, its
/// schema migrated), or returns why it could not start.
pub(crate) async fn start_replica(config: Config) -> Result<Replica, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("bind: {e}"))?;
    let addr = listener.local_addr().map_err(|e| format!("addr: {e}"))?;
    let (stop, stopped) = oneshot::channel::<()>();
    let (ready_tx, ready_rx) = oneshot::channel::<()>();
    let mut task = tokio::spawn(serve_with_ready(
        listener,
        config,
        async {
            let _ = stopped.await;
        },
        move |_| {
            let _ = ready_tx.send(());
        },
    ));
    match tokio::time::timeout(Duration::from_secs(120), ready_rx).await {
        Ok(Ok(())) => Ok(Replica { addr, stop, task }),
        // The server ended before it was ready.
        Ok(Err(_)) => Err(match (&mut task).await {
            Ok(Err(e)) => e.to_string(),
            Ok(Ok(())) => "the server stopped before it was ready".to_owned(),
            Err(e) => e.to_string(),
        }),
        Err(_) => {
            task.abort();
            Err("not ready after 120 s".to_owned())
        }
    }
}

impl Replica {
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        match self.task.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("server at {}: {e}", self.addr),
            Err(e) => eprintln!("server at {}: {e}", self.addr),
        }
    }
}

/// Starts the bare tonic echo server: its address, the sender that stops it, and its task.
pub(crate) async fn start_echo() -> (
    SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<Result<(), tonic::transport::Error>>,
) {
    let echo_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let echo_addr = echo_listener.local_addr().expect("addr");
    let (echo_stop, echo_stopped) = oneshot::channel::<()>();
    let echo = tokio::spawn(
        Server::builder()
            .add_service(EchoServer::new(EchoService))
            .serve_with_incoming_shutdown(
                tonic::transport::server::TcpIncoming::from(echo_listener).with_nodelay(Some(true)),
                async {
                    let _ = echo_stopped.await;
                },
            ),
    );
    (echo_addr, echo_stop, echo)
}
