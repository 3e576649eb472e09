//! The deep check of a database's values (`kalah db verify --deep`):
//! every board against the retrograde equations.

use kalah_db::Database;

use crate::error::Result;

/// Checks every board of `db` against the retrograde equations: each
/// holds its best move's value (a move's from the value the file holds for
/// the board it leads to), a finished board its leftovers' difference.
/// Slower than the checksums ([`Database::verify`]), which a value forged
/// within range with its checksums repaired passes; this does not.
/// `progress` hears of boards checked.
pub fn verify_equations(db: &Database, progress: &(dyn Fn(u64) + Sync)) -> Result<()> {
    let header = db.header();
    let engine = kalah_core::Engine::new(header.houses, header.rules);
    let indexer = db.indexer();
    let broken = check_equations(&engine, db, indexer.len(), &|i| indexer.unrank(i), progress);
    if let Some(why) = kalah_db::Tablebase::failure(db) {
        return Err(kalah_db::DbError::corrupt(db.path(), why).into());
    }
    match broken {
        None => Ok(()),
        Some(b) => {
            let board = kalah_core::Position::from_mover_board(header.houses, b.board, kalah_core::Side::South, [0, 0])
                .map_or_else(|_| format!("{:?}", b.board), |p| p.ring());
            Err(kalah_db::DbError::corrupt(
                db.path(),
                format!(
                    "inconsistent database: the board {} (South to move, stores left out) holds {}, but its moves give it {}",
                    board,
                    range(b.stored),
                    range(b.from_moves)
                ),
            )
            .into())
        }
    }
}

/// A stored value or bounds, for an error: "+4", or "-10..+2".
fn range(s: kalah_db::Stored) -> String {
    match s.value() {
        Some(v) => format!("{v:+}"),
        None => format!("{:+}..{:+}", s.lower, s.upper),
    }
}

/// A board whose stored value its moves do not give it ([`check_equations`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Broken {
    board: kalah_core::Board,
    stored: kalah_db::Stored,
    from_moves: kalah_db::Stored,
}

/// The retrograde equations over the `count` boards of `table`'s index
/// (`board_at` unranks them): each holds its best move's value (a move's
/// from the table's value of the board it leads to), a finished board its
/// leftovers' difference. Where the table holds bounds (a window
/// encoding) the equations hold of some values within them: a board's
/// bounds meet those its moves' bounds give it. The first board, in index
/// order, that breaks them.
fn check_equations<T: kalah_db::Tablebase + Sync>(
    engine: &kalah_core::Engine,
    table: &T,
    count: u64,
    board_at: &(dyn Fn(u64) -> kalah_core::Board + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Option<Broken> {
    use kalah_db::Stored;
    use rayon::prelude::*;
    const CHUNK: u64 = 1 << 16;
    let move_value = |board, house| {
        let o = engine.play(board, house);
        match o.next {
            kalah_core::Next::Over => Stored::exact(o.gain()),
            next => {
                let child = table.stored(o.board);
                let (a, b) = (o.value_with(child.lower), o.value_with(child.upper));
                debug_assert!(next == kalah_core::Next::Mover || a >= b);
                Stored { lower: a.min(b), upper: a.max(b) }
            }
        }
    };
    (0..count.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        let found = (c * CHUNK..count.min((c + 1) * CHUNK)).find_map(|i| {
            let board = board_at(i);
            let stored = table.stored(board);
            let from_moves = match engine.terminal_value(board) {
                Some(v) => Stored::exact(v),
                None => engine
                    .moves(board)
                    .map(|house| move_value(board, house))
                    .reduce(|a, b| Stored { lower: a.lower.max(b.lower), upper: a.upper.max(b.upper) })
                    .unwrap_or(stored),
            };
            let meet = stored.lower <= from_moves.upper && from_moves.lower <= stored.upper;
            (!meet).then_some(Broken { board, stored, from_moves })
        });
        progress(CHUNK.min(count - c * CHUNK));
        found
    })
}
