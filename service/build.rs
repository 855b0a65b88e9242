//! Compiles the protos with `protox` (pure Rust, no system `protoc`) into `OUT_DIR`: the
//! tonic/prost code, and the encoded descriptor set that server reflection serves.

use std::path::PathBuf;

use prost::Message;

const API_PROTOS: &[&str] = &[
    "cardhouse/v1/game.proto",
    "cardhouse/v1/engine.proto",
    "cardhouse/v1/matches.proto",
    "cardhouse/v1/admin.proto",
    "cardhouse/v1/events.proto",
];
const BENCH_PROTOS: &[&str] = &["cardhouse/bench/v1/echo.proto"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let api_root = manifest.join("../proto");
    let bench_root = manifest.join("proto");

    for p in API_PROTOS {
        println!("cargo:rerun-if-changed={}", api_root.join(p).display());
    }
    for p in BENCH_PROTOS {
        println!("cargo:rerun-if-changed={}", bench_root.join(p).display());
    }
    // The PostgreSQL store embeds its migrations (refinery's macro reads the directory):
    // a migration added must rebuild the crate.
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("migrations").display()
    );

    let api = protox::compile(API_PROTOS, [&api_root])?;
    std::fs::write(out.join("cardhouse_v1_descriptor.bin"), api.encode_to_vec())?;
    // Our codec: an undecodable request is INVALID_ARGUMENT (see src/codec.rs).
    tonic_prost_build::configure()
        .codec_path("crate::codec::ApiCodec")
        .compile_fds(api)?;

    let bench = protox::compile(BENCH_PROTOS, [&bench_root])?;
    tonic_prost_build::configure().compile_fds(bench)?;
    Ok(())
}
