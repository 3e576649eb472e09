# Sourced by the tools: builds the release `kalah` and sets $kalah to it,
# in whatever target directory cargo uses (CARGO_TARGET_DIR, a
# configured one, or target/), as an absolute path.
cargo build --release -q -p kalah-cli
kalah="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/kalah"
