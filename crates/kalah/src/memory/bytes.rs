//! Reading the little-endian files of this crate (journals, books) and
//! naming their boards in messages.

use kalah_core::Board;

/// Reads a byte slice from its start: `None` once it ends too soon.
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    /// Where the next read begins.
    pub(crate) at: usize,
}

impl Reader<'_> {
    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Option<&[u8]> {
        let piece = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(piece)
    }
    /// The next `u32`.
    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    /// The next `u64`.
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A text: its length (`u16`), then UTF-8.
    pub(crate) fn text(&mut self) -> Option<String> {
        let n = u16::from_le_bytes(self.take(2)?.try_into().ok()?) as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

/// A board as its file holds it, for messages: the mover's houses, then
/// the other's.
pub(crate) fn board_text(board: Board, houses: usize) -> String {
    let side = |cells: &mut dyn Iterator<Item = u8>| cells.map(|c| c.to_string()).collect::<Vec<_>>().join(",");
    format!("{} | {}", side(&mut board.mover_houses(houses)), side(&mut board.opponent_houses(houses)))
}
