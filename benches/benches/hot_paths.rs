//! Micro-benchmarks of the hot paths: move generation, key packing,
//! rank/unrank, database probes. `cargo bench -p kalah-benches`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kalah_core::{Board, Capture, Engine, Indexer, KeyPacker, Rules};
use kalah_db::{Builder, Quiet};

/// Deterministic boards of `h` houses with `seeds` seeds (xorshift).
fn boards(h: usize, seeds: u32, count: usize) -> Vec<Board> {
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    (0..count)
        .map(|_| {
            let mut cells = [0u8; 16];
            for _ in 0..seeds {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                cells[(x % (2 * h as u64)) as usize] += 1;
            }
            Board::from_sides(&cells[..h], &cells[h..2 * h])
        })
        .collect()
}

fn moves(c: &mut Criterion) {
    let engine = Engine::new(6, Rules { capture: Capture::Empty, ..Rules::default() });
    let sample = boards(6, 30, 4096);
    let mut g = c.benchmark_group("engine");
    let count: usize = sample.iter().map(|b| engine.moves(*b).count()).sum();
    g.throughput(Throughput::Elements(count as u64));
    g.bench_function("play every move, 6 houses, 30 seeds", |b| {
        b.iter(|| {
            let mut acc = 0i32;
            for &board in &sample {
                for house in engine.moves(board) {
                    acc += engine.play(black_box(board), house).gain();
                }
            }
            acc
        })
    });
    g.finish();
}

fn keys(c: &mut Criterion) {
    let packer = KeyPacker::new(6);
    let sample = boards(6, 30, 4096);
    let mut g = c.benchmark_group("key");
    g.throughput(Throughput::Elements(sample.len() as u64));
    g.bench_function("pack, 6 houses", |b| b.iter(|| sample.iter().map(|&x| packer.pack(black_box(x)).unwrap_or(0)).fold(0, u64::wrapping_add)));
    g.finish();
}

fn ranks(c: &mut Criterion) {
    let ix = Indexer::new(6, 30);
    let sample = boards(6, 30, 4096);
    let indices: Vec<u64> = sample.iter().map(|&b| ix.index(b)).collect();
    let mut g = c.benchmark_group("rank");
    g.throughput(Throughput::Elements(sample.len() as u64));
    g.bench_function("index, 6 houses, 30 seeds", |b| b.iter(|| sample.iter().map(|&x| ix.index(black_box(x))).fold(0, u64::wrapping_add)));
    g.bench_function("unrank, 6 houses, 30 seeds", |b| b.iter(|| indices.iter().map(|&i| ix.unrank(black_box(i)).total()).sum::<u32>()));
    g.finish();
}

fn probes(c: &mut Criterion) {
    let rules = Rules { capture: Capture::Empty, ..Rules::default() };
    let mut builder = Builder::new(6, rules, 14).unwrap();
    builder.build_all(&Quiet);
    let sample = boards(6, 14, 4096);
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(sample.len() as u64));
    g.bench_function("in-memory database, 6 houses, 14 seeds", |b| b.iter(|| sample.iter().map(|&x| builder.value(black_box(x))).sum::<i32>()));
    g.finish();
}

criterion_group!(benches, moves, keys, ranks, probes);
criterion_main!(benches);
