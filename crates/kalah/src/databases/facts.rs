//! What a strong solution's file says, computed from it: its boards won,
//! drawn and lost, the boards and positions reachable from the start, its
//! SHA-256.

use std::io::Read;
use std::path::Path;

use kalah_core::{Engine, Next, Position, Side};
use kalah_db::{Database, DbError};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Boards whose value for the player to move is positive, zero,
/// negative (an exact file: one in a window encoding is refused).
pub(crate) fn outcome_counts(db: &Database) -> Result<(u64, u64, u64)> {
    use rayon::prelude::*;
    let add = |a: (u64, u64, u64), b: (u64, u64, u64)| (a.0 + b.0, a.1 + b.1, a.2 + b.2);
    const CHUNK: u64 = 1 << 20;
    let mut total = (0, 0, 0);
    for n in 0..=db.header().max_seeds {
        let boards = db.indexer().level_len(n);
        let level = (0..boards.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let values = db.level_values(n, c * CHUNK..((c + 1) * CHUNK).min(boards))?;
                Ok::<_, Error>(values.iter().fold((0, 0, 0), |(w, d, l), &v| match v {
                    v if v > 0 => (w + 1, d, l),
                    0 => (w, d + 1, l),
                    _ => (w, d, l + 1),
                }))
            })
            .try_reduce(|| (0, 0, 0), |a, b| Ok(add(a, b)))?;
        total = add(total, level);
    }
    Ok(total)
}

/// The boards (seen from the mover) and the positions (board and side to
/// move) reachable from `start`.
pub(crate) fn reachable(engine: &Engine, db: &Database, start: &Position) -> (u64, u64) {
    let ix = db.indexer();
    let len = ix.len() as usize;
    // One bit per board and side to move: South's in `seen[0]`, North's in `seen[1]`.
    let mut seen = [vec![0u64; len.div_ceil(64)], vec![0u64; len.div_ceil(64)]];
    let side_bit = |s: Side| (s == Side::North) as usize;
    let mut stack = vec![(ix.index(start.mover_board()), side_bit(start.to_move()))];
    let mark = |seen: &mut [Vec<u64>; 2], i: u64, side: usize| -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        let new = seen[side][w] & (1 << b) == 0;
        seen[side][w] |= 1 << b;
        new
    };
    mark(&mut seen, stack[0].0, stack[0].1);
    while let Some((i, side)) = stack.pop() {
        let board = ix.unrank(i);
        if engine.is_over(board) {
            continue;
        }
        for house in engine.moves(board) {
            let o = engine.play(board, house);
            let next_side = match o.next {
                Next::Over => continue,
                Next::Mover => side,
                Next::Opponent => 1 - side,
            };
            let c = ix.index(o.board);
            if mark(&mut seen, c, next_side) {
                stack.push((c, next_side));
            }
        }
    }
    let positions: u64 = seen.iter().flatten().map(|w| w.count_ones() as u64).sum();
    let boards: u64 = seen[0].iter().zip(&seen[1]).map(|(a, b)| (a | b).count_ones() as u64).sum();
    (boards, positions)
}

/// The size and SHA-256 (hex) of a file.
pub fn sha256(path: &Path) -> Result<(u64, String)> {
    let io = |e| Error::from(DbError::io(path, e));
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let got = file.read(&mut buffer).map_err(io)?;
        if got == 0 {
            break;
        }
        hasher.update(&buffer[..got]);
        bytes += got as u64;
    }
    Ok((bytes, hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()))
}
