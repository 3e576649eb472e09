//! Large zeroed tables in memory, and the project's only `unsafe` code.
//!
//! Transposition tables and databases under construction are gigabytes of
//! small entries looked up at random. With 4 KiB pages nearly every look-up
//! also misses the TLB, which costs as much as the cache miss itself (and
//! makes a prefetch stall). [`LargeBuffer`] maps anonymous memory aligned to
//! 2 MiB and asks the kernel for transparent huge pages, which the Linux
//! default (`madvise` mode) grants only on request. Pages are zeroed lazily
//! by the kernel, so a large table costs nothing until it is touched.
//!
//! Entries are shared between threads as integer atomics of 1 to 8 bytes
//! ([`LargeBuffer::atomics`]); a plain byte view ([`LargeBuffer::bytes`])
//! needs `&mut self`, so it can never coexist with atomic access.
//!
//! [`MappedFile`] is the read-only memory map of a database file.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8};
use std::sync::Arc;

use memmap2::{Mmap, MmapMut, MmapOptions};

/// Alignment of a [`LargeBuffer`]: one transparent huge page.
const HUGE_PAGE: usize = 2 << 20;

/// Zero-initialised memory, aligned to 2 MiB and backed by huge pages where
/// the system has them; see the module docs.
pub struct LargeBuffer {
    map: MmapMut,
    offset: usize,
    len: usize,
}

impl std::fmt::Debug for LargeBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LargeBuffer").field("len", &self.len).finish()
    }
}

impl LargeBuffer {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> io::Result<LargeBuffer> {
        let mapped = len.checked_add(HUGE_PAGE).ok_or_else(|| io::Error::other("size overflows"))?;
        let map = MmapOptions::new().len(mapped).map_anon()?;
        let offset = map.as_ptr().align_offset(HUGE_PAGE);
        #[cfg(target_os = "linux")]
        {
            // Only a hint: without huge pages everything still works, slower.
            let _ = map.advise_range(memmap2::Advice::HugePage, offset, len.max(1));
        }
        Ok(LargeBuffer { map, offset, len })
    }

    /// The size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, for exclusive use (no atomic view can be alive).
    pub fn bytes(&mut self) -> &mut [u8] {
        &mut self.map[self.offset..self.offset + self.len]
    }

    /// The buffer made read-only: plain shared bytes from now on, and no
    /// atomic view can ever exist again.
    pub fn freeze(self) -> FrozenBuffer {
        FrozenBuffer(self)
    }

    /// The memory as a slice of shared integer atomics of one width (the
    /// length rounded down to whole words): `AtomicU8`, `AtomicU16`,
    /// `AtomicU32` or `AtomicU64`.
    #[inline]
    #[allow(unsafe_code)]
    pub fn atomics<W: Word>(&self) -> &[W] {
        debug_assert!(self.offset + self.len <= self.map.len());
        // SAFETY: `offset + len` lies within the map (`zeroed` maps `len`
        // bytes and 2 MiB more, and the offset is below 2 MiB), so the
        // start is in bounds without slicing the map, whose bounds checks
        // cost 1% of a search (every table look-up asks for this view).
        // `W` is an integer atomic ([`Word`] is sealed), which has the size,
        // alignment and bit validity of its integer: any bytes, zero
        // included, are a valid value. The start is 2 MiB-aligned (see
        // `zeroed`), hence aligned for `W` (8 bytes at most), and the length
        // is rounded down to whole words. The memory lives as long as
        // `&self`, and while this shared view exists no `&mut [u8]` can
        // (`bytes` takes `&mut self`), so every access goes through atomics.
        unsafe {
            let start = self.map.as_ptr().add(self.offset);
            debug_assert_eq!(start.align_offset(std::mem::align_of::<W>()), 0);
            std::slice::from_raw_parts(start as *const W, self.len / std::mem::size_of::<W>())
        }
    }

    /// The bytes as shared atomics.
    #[inline]
    pub fn atomic_u8(&self) -> &[AtomicU8] {
        self.atomics()
    }

    /// The memory as shared 16-bit atomics.
    #[inline]
    pub fn atomic_u16(&self) -> &[AtomicU16] {
        self.atomics()
    }

    /// The memory as shared 32-bit atomics.
    #[inline]
    pub fn atomic_u32(&self) -> &[AtomicU32] {
        self.atomics()
    }

    /// The memory as shared 64-bit atomics.
    #[inline]
    pub fn atomic_u64(&self) -> &[AtomicU64] {
        self.atomics()
    }
}

/// An integer atomic a [`LargeBuffer`] can be viewed as ([`LargeBuffer::atomics`]).
pub trait Word: sealed::Sealed + Sync {}

mod sealed {
    /// Only the integer atomics below are [`super::Word`]s.
    pub trait Sealed {}
}

macro_rules! words {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Word for $t {}
    )*};
}

words!(AtomicU8, AtomicU16, AtomicU32, AtomicU64);

/// A [`LargeBuffer`] that is only read (see [`LargeBuffer::freeze`]).
#[derive(Debug)]
pub struct FrozenBuffer(LargeBuffer);

impl FrozenBuffer {
    /// The bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.0.map[self.0.offset..self.0.offset + self.0.len]
    }
}

/// A cache prefetch hint for the line holding `value`.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and never changes
    // memory, and the address comes from a valid reference anyway. SSE,
    // which the intrinsic needs, is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// A read-only memory map of a whole file, and the file.
pub struct MappedFile {
    map: Mmap,
    file: File,
    /// Held while the map lives: a read-ahead thread
    /// ([`MappedFile::read_ahead_in_background`]) stops once it is gone.
    alive: Arc<()>,
}

impl std::fmt::Debug for MappedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MappedFile").field("len", &self.map.len()).finish()
    }
}

impl MappedFile {
    /// Maps `file` for reading.
    ///
    /// # Safety argument
    /// Mapping a file is `unsafe` because another process could truncate or
    /// rewrite it while it is mapped. The database files this project maps
    /// are never written in place: a build writes a temporary file and
    /// renames it over the old one, which leaves an existing mapping of the
    /// old file intact. A reader also checks every level's checksum before
    /// trusting it (`kalah db verify`).
    #[allow(unsafe_code)]
    pub fn open(file: &File) -> io::Result<MappedFile> {
        // SAFETY: see the safety argument above; the map is read-only.
        let map = unsafe { Mmap::map(file)? };
        #[cfg(unix)]
        {
            let _ = map.advise(memmap2::Advice::Random);
        }
        Ok(MappedFile { map, file: file.try_clone()?, alive: Arc::new(()) })
    }

    /// Reads the whole file once, in order, on a thread of its own, so
    /// that the page cache holds it: the map is advised for random access
    /// (no read-ahead), so without this a search's first probes fault its
    /// pages in from disk 4 KiB at a time (the Kalah(6,6) proof's 13.6 GiB
    /// file came in at 10 MB/s that way, where a plain read runs at 1.1
    /// GB/s on the same machine).
    /// Returns at once; the thread stops when the map is dropped, at the
    /// end of the file, or at the first read error (the search's own
    /// probes then fault the pages in as before). The thread, when one
    /// started, answers how many bytes it read. Unix only.
    #[cfg(unix)]
    pub fn read_ahead_in_background(&self) -> Option<std::thread::JoinHandle<u64>> {
        let file = self.file.try_clone().ok()?;
        let alive = Arc::downgrade(&self.alive);
        let len = self.map.len() as u64;
        let reader = move || {
            let mut piece = vec![0u8; READ_AHEAD_PIECE];
            let mut offset = 0u64;
            while offset < len && alive.strong_count() > 0 {
                let n = READ_AHEAD_PIECE.min((len - offset) as usize);
                if read_exact_at(&file, &mut piece[..n], offset).is_err() {
                    break;
                }
                offset += n as u64;
            }
            offset
        };
        std::thread::Builder::new().name("kalah-db-read-ahead".into()).spawn(reader).ok()
    }

    /// Unix only: elsewhere the search faults the pages in.
    #[cfg(not(unix))]
    pub fn read_ahead_in_background(&self) -> Option<std::thread::JoinHandle<u64>> {
        None
    }

    /// Tells the kernel that the bytes of the file from `offset`, `len` of
    /// them, are not needed in its page cache any more (read once, copied
    /// into memory): it frees them where nothing else maps them. A copy
    /// of a file that fills most of the memory would otherwise leave both
    /// the copy and its cached pages, the copy's huge pages refused for
    /// want of unbroken memory (BENCHMARKS.md, "The proof's file copied
    /// into memory"). Only a hint: nothing else changes. Unix only.
    pub fn forget_cached(&self, offset: u64, len: u64) {
        #[cfg(unix)]
        {
            let _ = rustix::fs::fadvise(&self.file, offset, std::num::NonZeroU64::new(len), rustix::fs::Advice::DontNeed);
        }
        #[cfg(not(unix))]
        let _ = (offset, len);
    }

    /// The file's bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Copies the file's bytes from `offset` into `buffer` with a plain
    /// read (the same file as the map, so the same bytes). Reading is
    /// faster than copying from the map, which faults its pages in one by
    /// one, and several threads can read parts of one file at once.
    pub fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<()> {
        #[cfg(unix)]
        {
            read_exact_at(&self.file, buffer, offset)
        }
        #[cfg(not(unix))]
        {
            let from = usize::try_from(offset).map_err(io::Error::other)?;
            let bytes = self.map.get(from..from + buffer.len()).ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
            buffer.copy_from_slice(bytes);
            Ok(())
        }
    }
}

/// Bytes [`MappedFile::read_ahead_in_background`] reads at a time.
const READ_AHEAD_PIECE: usize = 8 << 20;

/// Fills `buffer` from `file` at `offset`, without moving the file's cursor.
#[cfg(unix)]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buffer, offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[cfg(unix)]
    #[test]
    fn read_ahead_reads_the_whole_file_and_stops_with_the_map() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; READ_AHEAD_PIECE * 2 + 5]).unwrap();
        let mapped = MappedFile::open(&File::open(&path).unwrap()).unwrap();
        let reader = mapped.read_ahead_in_background().unwrap();
        assert_eq!(reader.join().unwrap(), (READ_AHEAD_PIECE * 2 + 5) as u64);
        let alive = Arc::downgrade(&mapped.alive);
        drop(mapped);
        assert_eq!(alive.strong_count(), 0, "a reader still running sees the map gone");
    }

    /// Giving a file's cached pages back changes nothing of what it reads.
    #[test]
    fn a_file_forgotten_by_the_cache_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..3 * 4096u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mapped = MappedFile::open(&File::open(&path).unwrap()).unwrap();
        let mut read = vec![0u8; bytes.len()];
        mapped.read_at(&mut read, 0).unwrap();
        mapped.forget_cached(0, bytes.len() as u64);
        mapped.forget_cached(4096, 0);
        let mut again = vec![0u8; bytes.len()];
        mapped.read_at(&mut again, 0).unwrap();
        assert_eq!((&read, &again), (&bytes, &bytes));
        assert_eq!(mapped.bytes(), &bytes[..]);
    }

    #[test]
    fn buffers_start_zeroed_and_share_atomics() {
        let mut b = LargeBuffer::zeroed(3 << 20).unwrap();
        assert_eq!(b.len(), 3 << 20);
        assert!(b.bytes().iter().all(|&x| x == 0));
        b.bytes()[5] = 7;
        assert_eq!(b.atomic_u8()[5].load(Relaxed), 7);
        b.atomic_u64()[1].store(u64::MAX, Relaxed);
        assert_eq!(b.atomic_u8()[8].load(Relaxed), 0xff);
        assert_eq!(b.atomic_u64().len(), (3 << 20) / 8);
        b.atomic_u32()[5].store(0x0102_0304, Relaxed);
        assert_eq!(b.atomic_u8()[20].load(Relaxed), 4, "little-endian words at 4-byte steps");
        assert_eq!(b.atomic_u32()[2].load(Relaxed), u32::MAX, "the word the u64 wrote");
        assert_eq!(b.atomic_u32().len(), (3 << 20) / 4);
        b.atomic_u16()[3].store(0xabcd, Relaxed);
        assert_eq!(b.atomic_u8()[6].load(Relaxed), 0xcd);
        assert_eq!(b.atomic_u8()[7].load(Relaxed), 0xab);
        assert_eq!(b.atomic_u16().len(), (3 << 20) / 2);
        assert_eq!(b.bytes().as_ptr().align_offset(HUGE_PAGE), 0);
    }
}
