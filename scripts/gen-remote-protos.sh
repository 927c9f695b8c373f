#!/usr/bin/env bash
# gen-remote-protos.sh - regenerate src/remote/client/proto/*.rs (the REAPI
# messages and gRPC clients of run-check-remote) from proto/ with
# tonic-prost-build and protoc-bin-vendored's protoc, in a throwaway crate
# outside the repository: the build itself needs neither.
#
# Usage: bash scripts/gen-remote-protos.sh
set -euo pipefail

ROOT=$(cd -P -- "$(dirname -- "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf -- "$WORK"' EXIT
mkdir -p "$WORK/src"
cat > "$WORK/Cargo.toml" <<'TOML'
[package]
name = "gen-remote-protos"
version = "0.0.0"
edition = "2024"
publish = false

[build-dependencies]
tonic-prost-build = "0.14"
protoc-bin-vendored = "3"
TOML
echo 'fn main() {}' > "$WORK/src/main.rs"
cat > "$WORK/build.rs" <<'RUST'
fn main() {
    let root = std::env::var("PROTO_ROOT").unwrap();
    let out = std::env::var("PROTO_OUT").unwrap();
    // SAFETY: the build script is single-threaded here.
    unsafe { std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path().unwrap()) };
    let include = protoc_bin_vendored::include_path().unwrap();
    tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        .out_dir(&out)
        .compile_protos(
            &[
                format!("{root}/build/bazel/remote/execution/v2/remote_execution.proto"),
                format!("{root}/google/bytestream/bytestream.proto"),
            ],
            &[root.clone(), include.display().to_string()],
        )
        .unwrap();
}
RUST
OUT=$WORK/out
mkdir -p "$OUT"
PROTO_ROOT=$ROOT/proto PROTO_OUT=$OUT cargo build --quiet --manifest-path "$WORK/Cargo.toml" \
    --target-dir "$WORK/target"
# google.api's HTTP annotations are imported by the protos but used by no
# client: not kept.
rm -f -- "$OUT/google.api.rs"
cp -- "$OUT"/*.rs "$ROOT/src/remote/client/proto/"
echo "regenerated $(ls "$OUT" | wc -l) files into src/remote/client/proto/" >&2
