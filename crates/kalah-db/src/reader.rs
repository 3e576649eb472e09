//! Reading a database file: memory-mapped, checked, probed in microseconds.
//!
//! [`Database::open`] checks everything but the values themselves (see
//! [`crate::format`], "Integrity") and maps the file. A value is read from
//! a block of 65,536 values whose checksum is checked the first time the
//! block is used; a block that fails is reported, never its values:
//! [`Database::probe_board`] returns the error, and the search, which cannot stop
//! mid-node, finds it through [`Tablebase::failure`] before it answers.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use kalah_core::{Board, Indexer, Rules};
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::DbError;
use crate::format::{
    blocks, largest_code_in, level_checksum, read_code, read_values, window_index, Encoding, Header, HeaderProblem, Window, BLOCK_BYTES,
};
use crate::memory::{FrozenBuffer, LargeBuffer, MappedFile};
use crate::tablebase::{Stored, Tablebase};

/// Where a [`Tablebase::slot`] keeps the level (above) and the
/// index within it (below; a level has fewer than 2^48 boards).
const SLOT_LEVEL_SHIFT: u32 = 48;
/// Bytes [`Database::load_into_memory`] reads at a time on one thread
/// (small in tests, so that small files are read in many pieces).
const LOAD_PIECE: usize = if cfg!(test) { 4096 } else { 16 << 20 };

/// The smallest file whose cached pages a copy into memory gives back as
/// it reads them ([`MappedFile::forget_cached`]): smaller ones are left to
/// the page cache, for the other processes that read them.
const FORGET_CACHED_FROM: u64 = 1 << 30;

/// Where a database's bytes are.
enum Storage {
    /// Mapped from the file.
    Mapped(MappedFile),
    /// Copied into memory with huge pages ([`Database::load_into_memory`]).
    Loaded(FrozenBuffer),
}

impl Storage {
    #[inline]
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Mapped(m) => m.bytes(),
            Storage::Loaded(b) => b.bytes(),
        }
    }
}

/// An open database file; see the module docs.
pub struct Database {
    path: PathBuf,
    header: Header,
    indexer: Indexer,
    map: Storage,
    /// Global number of the first block of each level.
    first_block: Vec<u64>,
    /// Window encodings: every level's windows, level after level
    /// ([`window_index`]), and where each mover's seed count starts in
    /// each level (then the level's length); empty otherwise.
    windows: Vec<Window>,
    starts: Vec<Vec<u64>>,
    /// One bit per block: its checksum has been checked and holds.
    verified: Vec<AtomicU64>,
    failed: AtomicBool,
    failure: Mutex<Option<String>>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.path)
            .field("houses", &self.header.houses)
            .field("max_seeds", &self.header.max_seeds)
            .field("rules", &self.header.rules)
            .finish()
    }
}

/// Opens `path` for reading if it is a regular file. Anything else is
/// refused before it is opened: a directory, and a pipe, a device or a
/// socket, which could block the open or never end.
pub fn open_regular(path: &Path) -> Result<File, DbError> {
    let meta = std::fs::metadata(path).map_err(|e| DbError::io(path, e))?;
    if meta.is_dir() {
        let why = std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory; give a file");
        return Err(DbError::io(path, why));
    }
    if !meta.is_file() {
        let why = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file (a pipe, a device or a socket)");
        return Err(DbError::io(path, why));
    }
    File::open(path).map_err(|e| DbError::io(path, e))
}

impl Database {
    /// Opens and checks a database file.
    pub fn open(path: &Path) -> Result<Database, DbError> {
        let file = open_regular(path)?;
        let meta = file.metadata().map_err(|e| DbError::io(path, e))?;
        if meta.len() == 0 {
            return Err(DbError::corrupt(path, "empty file (0 bytes)"));
        }
        let map = Storage::Mapped(MappedFile::open(&file).map_err(|e| DbError::io(path, e))?);
        Database::checked(path, map)
    }

    /// A database from bytes in memory, with every check of
    /// [`Database::open`]; `path` only names it in errors. For tests and
    /// fuzzing (`fuzz/`): the bytes are copied, like a loaded file.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Database, DbError> {
        if bytes.is_empty() {
            return Err(DbError::corrupt(path, "empty file (0 bytes)"));
        }
        let mut buffer = LargeBuffer::zeroed(bytes.len()).map_err(|e| DbError::Memory { needed: bytes.len() as u64, why: e.to_string() })?;
        buffer.bytes().copy_from_slice(bytes);
        Database::checked(path, Storage::Loaded(buffer.freeze()))
    }

    /// The checks of [`Database::open`] on the bytes of `map`.
    fn checked(path: &Path, map: Storage) -> Result<Database, DbError> {
        let bytes = map.bytes();
        let header = Header::decode(bytes).map_err(|p| match p {
            HeaderProblem::Magic => DbError::NotADatabase { path: path.into() },
            HeaderProblem::Version(found) => DbError::Version { path: path.into(), found, expected: crate::format::VERSION },
            HeaderProblem::Truncated(why) => DbError::corrupt(path, format!("truncated: {why}")),
            HeaderProblem::Corrupt(why) => DbError::corrupt(path, why),
        })?;
        if !header.complete {
            return Err(DbError::Incomplete { path: path.into(), levels: header.levels_done, total: header.max_seeds + 1 });
        }
        let indexer = Indexer::new(header.houses, header.max_seeds);
        let expected = header.file_bytes(&indexer);
        if (bytes.len() as u64) != expected {
            return Err(DbError::corrupt(
                path,
                format!(
                    "{} bytes, but a complete {}-seed database has {expected}{}",
                    bytes.len(),
                    header.max_seeds,
                    if (bytes.len() as u64) < expected { " (truncated)" } else { "" }
                ),
            ));
        }
        let mut first_block = Vec::with_capacity(header.levels.len());
        let mut total_blocks = 0u64;
        for (n, e) in header.levels.iter().enumerate() {
            let sums = &bytes[e.sums_offset as usize..(e.sums_offset + 8 * blocks(e.boards)) as usize];
            if level_checksum(sums) != e.checksum {
                return Err(DbError::corrupt(path, format!("level {n}: block checksum table does not match its checksum")));
            }
            first_block.push(total_blocks);
            total_blocks += blocks(e.boards);
        }
        let verified = (0..total_blocks.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let (windows, starts) = if header.encoding.has_windows() {
            let windows = (0..=header.max_seeds).flat_map(|n| header.windows_of(n)).collect();
            let starts = (0..=header.max_seeds).map(|n| (0..=n).map(|m| indexer.block_start(n, m)).chain([indexer.level_len(n)]).collect()).collect();
            (windows, starts)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Database {
            path: path.into(),
            header,
            indexer,
            map,
            first_block,
            windows,
            starts,
            verified,
            failed: AtomicBool::new(false),
            failure: Mutex::new(None),
        })
    }

    /// Opens a database and checks that it is for `houses` and `rules`.
    pub fn open_for(path: &Path, houses: usize, rules: Rules) -> Result<Database, DbError> {
        let db = Database::open(path)?;
        if db.header.houses != houses || db.header.rules != rules {
            return Err(DbError::WrongRules { path: path.into(), found_houses: db.header.houses, found: db.header.rules, houses, wanted: rules });
        }
        Ok(db)
    }

    /// Copies the whole file into memory backed by huge pages, then checks
    /// every block there. A search makes millions of random probes; from a
    /// file mapping each one also misses the TLB (4 KiB pages), which in a
    /// virtual machine costs as much again as the cache miss. Needs the
    /// file's size in free memory. The file is read with plain reads in
    /// pieces on the current rayon pool's threads: copying from the
    /// mapping would fault in, and keep resident, every page of it.
    pub fn load_into_memory(mut self) -> Result<Database, DbError> {
        let Storage::Mapped(mapped) = &self.map else {
            return Ok(self);
        };
        let len = mapped.bytes().len();
        let mut buffer = LargeBuffer::zeroed(len).map_err(|e| DbError::Memory { needed: len as u64, why: e.to_string() })?;
        // A large file's cached pages go as it is read: the copy holds it.
        let forget = len as u64 >= FORGET_CACHED_FROM;
        buffer
            .bytes()
            .par_chunks_mut(LOAD_PIECE)
            .enumerate()
            .try_for_each(|(i, piece)| {
                let offset = (i * LOAD_PIECE) as u64;
                mapped.read_at(piece, offset)?;
                if forget {
                    mapped.forget_cached(offset, piece.len() as u64);
                }
                Ok(())
            })
            .map_err(|e: std::io::Error| DbError::io(&self.path, e))?;
        self.map = Storage::Loaded(buffer.freeze());
        self.verify(&|_| {})?;
        Ok(self)
    }

    /// A mapped database's file read once on a thread of its own, so that
    /// the page cache holds it before the search's probes ask for it
    /// ([`MappedFile::read_ahead_in_background`]); nothing for a loaded
    /// one. Needs the file's size in memory the system can give the page
    /// cache; a larger file would only push its own pages out again.
    pub fn read_ahead_in_background(&self) {
        if let Storage::Mapped(mapped) = &self.map {
            let _ = mapped.read_ahead_in_background();
        }
    }

    /// Whether the values are held in memory rather than mapped from the file.
    pub fn is_loaded(&self) -> bool {
        matches!(self.map, Storage::Loaded(_))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The index of the boards.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.map.bytes().len() as u64
    }

    /// The bytes of the values of level `n` in the file's encoding
    /// ([`Header::encoding`]; one signed byte a board in index order for
    /// [`Encoding::Byte`]), checked only as far as [`Database::verify`] or
    /// [`Database::load_into_memory`] checked them.
    pub fn level_bytes(&self, n: u32) -> &[u8] {
        self.level(n)
    }

    /// `len` bytes of the file from `offset` (within it), as they are.
    pub fn raw_bytes(&self, offset: u64, len: u64) -> Vec<u8> {
        let mut out = vec![0u8; len as usize];
        match &self.map {
            // A read, not a copy from the map: no page of it kept resident.
            Storage::Mapped(m) if m.read_at(&mut out, offset).is_ok() => {}
            storage => out.copy_from_slice(&storage.bytes()[offset as usize..(offset + len) as usize]),
        }
        out
    }

    /// The values of boards `range` of level `n`, decoded, checked only as
    /// far as [`Database::level_bytes`] are. Refused for a file in a window
    /// encoding, which holds bounds for some boards
    /// ([`Database::level_stored`] reads them).
    pub fn level_values(&self, n: u32, range: std::ops::Range<u64>) -> Result<Vec<i8>, DbError> {
        self.refuse_bounds("its values")?;
        let level = self.level(n);
        let mut out = vec![0u8; (range.end - range.start) as usize];
        match self.header.encoding {
            Encoding::Byte => out.copy_from_slice(&level[range.start as usize..range.end as usize]),
            packed => read_values(packed, n, level, range.start, &mut out),
        }
        Ok(out.into_iter().map(|v| v as i8).collect())
    }

    /// What is stored of boards `range` of level `n` (for any encoding),
    /// checked only as far as [`Database::level_bytes`] are.
    pub fn level_stored(&self, n: u32, range: std::ops::Range<u64>) -> Vec<Stored> {
        range.into_par_iter().map(|i| self.stored_in(n, self.mover_seeds_at(n, i), i)).collect()
    }

    /// Whether every value stored is exact (not a window encoding).
    pub fn is_exact(&self) -> bool {
        self.header.encoding.is_exact()
    }

    /// Refuses reading `what` as exact values from a window encoding.
    fn refuse_bounds(&self, what: &str) -> Result<(), DbError> {
        if self.is_exact() {
            return Ok(());
        }
        Err(DbError::Unsupported(format!(
            "{}: {what} as exact values: the file holds a window of values in {} bits a board, and bounds for the values outside it",
            self.path.display(),
            self.header.encoding.bits(0)
        )))
    }

    /// The mover's seeds of board `i` of level `n` (window encodings:
    /// from the level's blocks; 0 for the others, which do not need it).
    #[inline]
    fn mover_seeds_at(&self, n: u32, i: u64) -> u32 {
        match self.starts.get(n as usize) {
            Some(starts) => (starts.partition_point(|&s| s <= i) - 1) as u32,
            None => 0,
        }
    }

    /// The values of level `n`.
    #[inline]
    fn level(&self, n: u32) -> &[u8] {
        let e = &self.header.levels[n as usize];
        &self.map.bytes()[e.offset as usize..(e.offset + self.header.value_bytes(n, e)) as usize]
    }

    /// The byte where the value of board `i` of level `n` starts (`i`
    /// below the level's boards): one bounds check, against the whole
    /// file, where slicing the level first took three. Every probe of a
    /// search comes here.
    #[inline]
    fn byte(&self, n: u32, i: u64) -> &u8 {
        let e = &self.header.levels[n as usize];
        debug_assert!(i < e.boards);
        &self.map.bytes()[(e.offset + i * self.header.encoding.bits(n) as u64 / 8) as usize]
    }

    /// What is stored for board `i` of level `n`, whose mover has `m`
    /// seeds (read only by window encodings), its block unchecked.
    #[inline]
    fn stored_in(&self, n: u32, m: u32, i: u64) -> Stored {
        match self.header.encoding {
            Encoding::Byte => Stored::exact(*self.byte(n, i) as i8 as i32),
            packed => {
                let e = &self.header.levels[n as usize];
                debug_assert!(i < e.boards);
                let code = read_code(&self.map.bytes()[e.offset as usize..], i, packed.bits(n));
                match packed {
                    Encoding::Window(_) => self.windows[window_index(n) + m as usize].stored(code),
                    exact => Stored::exact(exact.value_of(n, code)),
                }
            }
        }
    }

    /// The bytes of block `b` of level `n`, and its boards.
    fn block(&self, n: u32, b: u64) -> (&[u8], u64) {
        let level = self.level(n);
        let boards = self.header.levels[n as usize].boards;
        let size = self.header.encoding.block_bytes(n);
        let start = (b * size) as usize;
        let end = (start + size as usize).min(level.len());
        (&level[start..end], (boards - b * BLOCK_BYTES as u64).min(BLOCK_BYTES as u64))
    }

    /// The stored checksum of block `b` of level `n`.
    fn stored_sum(&self, n: u32, b: u64) -> u64 {
        let at = (self.header.levels[n as usize].sums_offset + 8 * b) as usize;
        u64::from_le_bytes(self.map.bytes()[at..at + 8].try_into().expect("8 bytes"))
    }

    /// The level and the index within it that [`Tablebase::slot`] keeps in `slot`.
    #[inline]
    fn unslot(slot: u64) -> (u32, u64) {
        ((slot >> SLOT_LEVEL_SHIFT) as u32, slot & ((1 << SLOT_LEVEL_SHIFT) - 1))
    }

    /// What is stored of the board at index `i` of level `n`, whose mover
    /// has `m` seeds.
    #[inline]
    fn value_in(&self, n: u32, m: u32, i: u64) -> Stored {
        let b = i / BLOCK_BYTES as u64;
        if !self.check_block(n, b) {
            // No value from a damaged block: remember the damage and answer
            // 0; the search reports the failure instead of its result.
            if !self.failed.swap(true, Relaxed) {
                let why = self.damaged(n, b).to_string();
                *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
            }
            return Stored::exact(0);
        }
        self.stored_in(n, m, i)
    }

    /// Checks block `b` of level `n` (once); `false` if it is damaged.
    /// Every probe asks, so the answer for a checked block is inlined.
    #[inline]
    fn check_block(&self, n: u32, b: u64) -> bool {
        let global = self.first_block[n as usize] + b;
        let word = &self.verified[(global / 64) as usize];
        let bit = 1u64 << (global % 64);
        word.load(Relaxed) & bit != 0 || self.verify_block(n, b, word, bit)
    }

    /// Checks block `b` of level `n`, whose bit in `word` is `bit`, and
    /// marks it checked if it holds.
    #[cold]
    #[inline(never)]
    fn verify_block(&self, n: u32, b: u64, word: &AtomicU64, bit: u64) -> bool {
        let (block, boards) = self.block(n, b);
        if self.codes_in_range(block, b * BLOCK_BYTES as u64, boards, n) && xxh3_64(block) == self.stored_sum(n, b) {
            word.fetch_or(bit, Relaxed);
            true
        } else {
            false
        }
    }

    fn damaged(&self, n: u32, b: u64) -> DbError {
        let (block, _) = self.block(n, b);
        let what = if xxh3_64(block) != self.stored_sum(n, b) {
            "checksum does not match"
        } else {
            "a value lies outside -n..=n (packed: a code above its largest or outside its window's values, or bits set after the level's last) although the checksum matches (written wrong)"
        };
        DbError::corrupt(&self.path, format!("level {n}, block {b}: {what} (the file is damaged; rebuild or unpack it again)"))
    }

    /// The value of `board`, a board of this database's size (its houses,
    /// the player to move's first): what the player to move gains from it
    /// on, stores not counted; `None` if it has more seeds than the
    /// database covers; an error if its block is damaged, or if the file
    /// holds only bounds for it (a window encoding:
    /// [`Database::probe_stored`] reads them). A board with
    /// seeds beyond this database's houses is refused
    /// ([`DbError::WrongBoard`]); a [`Board`] does not know its size, so
    /// one of fewer houses is read as this size with the last houses
    /// empty: [`Database::probe_position`] checks the size, and adds the
    /// stores.
    pub fn probe_board(&self, board: Board) -> Result<Option<i32>, DbError> {
        match self.probe_stored(board)? {
            None => Ok(None),
            Some(Stored { lower, upper }) if lower == upper => Ok(Some(lower)),
            Some(Stored { lower, upper }) => Err(DbError::OnlyBounds { path: self.path.clone(), lower, upper }),
        }
    }

    /// What the file stores of the value of `board`, as
    /// [`Database::probe_board`] reads it: exact, or in a window encoding
    /// bounds for a value outside its window.
    pub fn probe_stored(&self, board: Board) -> Result<Option<Stored>, DbError> {
        let houses = self.header.houses;
        let used = (0..kalah_core::MAX_HOUSES).rev().find(|&i| board.mover(i) != 0 || board.opponent(i) != 0);
        if let Some(last) = used.filter(|&last| last >= houses) {
            return Err(DbError::WrongBoard { position_houses: last + 1, db_houses: houses });
        }
        let n = board.total();
        if n > self.header.max_seeds {
            return Ok(None);
        }
        let (n, i) = self.indexer.locate(board);
        let b = i / BLOCK_BYTES as u64;
        if !self.check_block(n, b) {
            return Err(self.damaged(n, b));
        }
        Ok(Some(self.stored_in(n, board.mover_seeds(), i)))
    }

    /// Every board with `seeds` seeds in its houses (a level of the file),
    /// each with its value as [`Database::probe_board`] gives it, in the
    /// file's order. Each block is checked before its values are given: a
    /// damaged one ends the boards with its error. A level beyond the file,
    /// and a file in a window encoding, are refused ([`DbError::Unsupported`]).
    pub fn boards_of(&self, seeds: u32) -> Result<impl Iterator<Item = Result<(Board, i32), DbError>> + '_, DbError> {
        self.boards_from(seeds, 0)
    }

    /// [`Database::boards_of`] from the `first` board of the level on (a
    /// reader that stops and goes on; none past the level's end).
    pub fn boards_from(&self, seeds: u32, first: u64) -> Result<impl Iterator<Item = Result<(Board, i32), DbError>> + '_, DbError> {
        self.refuse_bounds("its boards")?;
        let max = self.header.max_seeds;
        if seeds > max {
            return Err(DbError::Unsupported(format!("boards of {seeds} seeds: the database covers at most {max}")));
        }
        let start = self.indexer.level_start(seeds);
        let end = self.indexer.level_len(seeds);
        let mut failed = false;
        Ok((first.min(end)..end).map_while(move |i| {
            if failed {
                return None;
            }
            let b = i / BLOCK_BYTES as u64;
            if (i == first || i % BLOCK_BYTES as u64 == 0) && !self.check_block(seeds, b) {
                failed = true;
                return Some(Err(self.damaged(seeds, b)));
            }
            Some(Ok((self.indexer.unrank(start + i), self.stored_in(seeds, 0, i).lower)))
        }))
    }

    /// The value of `position` for its player to move, stores included;
    /// `None` if it has more seeds in its houses than the database covers.
    /// A position of another board size is refused, as is one the file
    /// holds only bounds for ([`Database::probe_board`]).
    pub fn probe_position(&self, position: &kalah_core::Position) -> Result<Option<i32>, DbError> {
        if position.houses() != self.header.houses {
            return Err(DbError::WrongBoard { position_houses: position.houses(), db_houses: self.header.houses });
        }
        Ok(self.probe_board(position.mover_board())?.map(|v| position.store_difference() + v))
    }

    /// [`Database::probe_position`] as [`Database::probe_stored`] reads it:
    /// bounds where the file holds only bounds, stores included.
    pub fn probe_position_stored(&self, position: &kalah_core::Position) -> Result<Option<Stored>, DbError> {
        if position.houses() != self.header.houses {
            return Err(DbError::WrongBoard { position_houses: position.houses(), db_houses: self.header.houses });
        }
        let base = position.store_difference();
        Ok(self.probe_stored(position.mover_board())?.map(|s| Stored { lower: base + s.lower, upper: base + s.upper }))
    }

    /// Checks every block of every level (in parallel); `progress` hears
    /// the bytes checked.
    pub fn verify(&self, progress: &(dyn Fn(u64) + Sync)) -> Result<(), DbError> {
        for n in 0..=self.header.max_seeds {
            let count = blocks(self.header.levels[n as usize].boards);
            let bad = (0..count).into_par_iter().find_first(|&b| {
                let ok = self.check_block(n, b);
                progress(BLOCK_BYTES as u64);
                !ok
            });
            if let Some(b) = bad {
                return Err(self.damaged(n, b));
            }
        }
        // The padding between regions is zero by the format.
        let bytes = self.map.bytes();
        for (n, e) in self.header.levels.iter().enumerate() {
            let sums_end = e.sums_offset + 8 * blocks(e.boards);
            let next = self.header.levels.get(n + 1).map_or(bytes.len() as u64, |x| x.offset);
            let gaps = [(e.offset + self.header.value_bytes(n as u32, e), e.sums_offset), (sums_end, next)];
            for (from, to) in gaps {
                if bytes[from as usize..to as usize].iter().any(|&b| b != 0) {
                    return Err(DbError::corrupt(&self.path, format!("level {n}: padding after its data is not zero")));
                }
            }
        }
        Ok(())
    }
}

impl Database {
    /// Whether every value of a block of level `n`, `boards` boards in
    /// `block` from board `first` of the level on, lies in `-n..=n` (a
    /// packed code: at most its encoding's largest, a window's one that
    /// its window can hold, and the bits after the last code zero).
    fn codes_in_range(&self, block: &[u8], first: u64, boards: u64, n: u32) -> bool {
        let encoding = self.header.encoding;
        if encoding == Encoding::Byte {
            return values_in_range(block, n);
        }
        let w = encoding.bits(n);
        let fit = if encoding.has_windows() {
            let (starts, windows) = (&self.starts[n as usize], &self.windows[window_index(n)..]);
            let mut m = starts.partition_point(|&s| s <= first) - 1;
            // Most blocks lie in windows where every code is a value or a
            // bound: nothing to check board by board (the checksum still
            // covers every bit). The rest are read code by code.
            let last = starts.partition_point(|&s| s < first + boards) - 1;
            windows[m..=last].iter().all(Window::holds_every_code)
                || (0..boards).all(|k| {
                    while first + k >= starts[m + 1] {
                        m += 1;
                    }
                    windows[m].holds(read_code(block, k, w))
                })
        } else {
            // Where every code of `w` bits is a value there is nothing to check.
            let largest = encoding.largest_code(n);
            largest >= (1 << w) - 1 || largest_code_in(block, boards, w) <= largest
        };
        // The bits after the last code are zero, so one set of values has one file.
        let used = boards * w as u64;
        let rest = if used.is_multiple_of(8) { 0 } else { block[(used / 8) as usize] >> (used % 8) };
        fit && rest == 0
    }
}

/// Whether every value of a block of level `n` lies in `-n..=n`. The
/// checksums only say the bytes are the ones written; this refuses a file
/// whose writer was wrong, or forged the checksums (issue 6: the fuzzer got
/// a value of 64 for a 2-seed board that way).
fn values_in_range(block: &[u8], n: u32) -> bool {
    // A maximum over the whole block (no early exit) compiles to vector code.
    block.iter().fold(0u8, |m, &v| m.max((v as i8).unsigned_abs())) as u32 <= n
}

impl Tablebase for Database {
    fn houses(&self) -> usize {
        self.header.houses
    }

    fn rules(&self) -> Rules {
        self.header.rules
    }

    fn max_seeds(&self) -> Option<u32> {
        Some(self.header.max_seeds)
    }

    #[inline]
    fn stored(&self, board: Board) -> Stored {
        let (n, i) = self.indexer.locate(board);
        self.value_in(n, board.mover_seeds(), i)
    }

    fn is_exact(&self) -> bool {
        self.header.encoding.is_exact()
    }

    /// The slot is the board's level (its seeds) above bit 48 and its index
    /// within the level below.
    #[inline]
    fn slot(&self, board: Board) -> u64 {
        let (n, i) = self.indexer.locate(board);
        (n as u64) << SLOT_LEVEL_SHIFT | i
    }

    #[inline]
    fn prefetch_slot(&self, slot: u64) {
        let (n, i) = Self::unslot(slot);
        crate::memory::prefetch(self.byte(n, i));
    }

    #[inline]
    fn stored_at(&self, board: Board, slot: u64) -> Stored {
        let (n, i) = Self::unslot(slot);
        self.value_in(n, board.mover_seeds(), i)
    }

    fn failure(&self) -> Option<String> {
        if self.failed.load(Relaxed) {
            self.failure.lock().unwrap_or_else(|e| e.into_inner()).clone()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_file, Quiet};

    /// Each level's boards are every board of its seeds, once, with the
    /// values the probes give; a reader that goes on from a board gets the
    /// rest; a damaged block ends the boards with an error, not a value.
    #[test]
    fn the_boards_of_a_level_are_its_boards_and_their_values() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.kdb");
        build_file(&path, 3, Rules::default(), 12, &Quiet).unwrap();
        let db = Database::open(&path).unwrap();
        for seeds in 0..=12 {
            let boards: Vec<(Board, i32)> = db.boards_of(seeds).unwrap().map(Result::unwrap).collect();
            assert_eq!(boards.len() as u64, db.indexer().level_len(seeds));
            let distinct: std::collections::HashSet<Board> = boards.iter().map(|b| b.0).collect();
            assert_eq!(distinct.len(), boards.len(), "each board once");
            for &(board, value) in &boards {
                assert_eq!(board.total(), seeds);
                assert_eq!(db.probe_board(board).unwrap(), Some(value));
            }
            let rest: Vec<(Board, i32)> = db.boards_from(seeds, 5).unwrap().map(Result::unwrap).collect();
            assert_eq!(rest, boards.iter().skip(5).copied().collect::<Vec<_>>());
        }
        assert!(db.boards_of(13).is_err(), "beyond the file");
        // A byte of level 12's values changed: its block fails its check.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = db.header().levels[12].offset as usize + 3;
        bytes[at] ^= 0x01;
        std::fs::write(&path, bytes).unwrap();
        let damaged = Database::open(&path).unwrap();
        let read: Vec<_> = damaged.boards_of(12).unwrap().collect();
        assert!(read.last().unwrap().is_err(), "the damaged block is said");
        assert_eq!(read.iter().filter(|r| r.is_err()).count(), 1);
    }

    #[test]
    fn a_loaded_file_reads_in_pieces_and_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.kdb");
        build_file(&path, 4, Rules::default(), 14, &Quiet).unwrap();
        let mapped = Database::open(&path).unwrap();
        assert!(mapped.file_bytes() > 50 * LOAD_PIECE as u64, "many pieces: {} bytes", mapped.file_bytes());
        let loaded = Database::open(&path).unwrap().load_into_memory().unwrap();
        assert!(loaded.is_loaded() && !mapped.is_loaded());
        assert_eq!(loaded.map.bytes(), mapped.map.bytes(), "byte for byte");
        let ix = loaded.indexer().clone();
        for i in (0..ix.len()).step_by(7) {
            let board = ix.unrank(i);
            assert_eq!(loaded.stored(board), mapped.stored(board));
        }

        // A flipped value in the last level is found by the load.
        let mut bytes = std::fs::read(&path).unwrap();
        let last = loaded.header().levels[14];
        bytes[(last.offset + last.boards - 1) as usize] ^= 0x21;
        let bad = dir.path().join("bad.kdb");
        std::fs::write(&bad, &bytes).unwrap();
        let e = Database::open(&bad).unwrap().load_into_memory().unwrap_err().to_string();
        assert!(e.contains("level 14") && e.contains("checksum") && e.contains("bad.kdb"), "{e}");
    }

    #[test]
    fn values_out_of_range_are_found_anywhere_in_a_block() {
        let mut block = vec![3u8; 1000];
        assert!(values_in_range(&block, 3));
        assert!(!values_in_range(&block, 2));
        for (at, v) in [(0, 4i8), (517, -4), (999, i8::MIN)] {
            block[at] = v as u8;
            assert!(!values_in_range(&block, 3), "{v} at {at}");
            block[at] = (-3i8) as u8;
            assert!(values_in_range(&block, 3));
        }
    }
}
