//! Criterion benchmarks live in `benches/hot_paths.rs`.
