//! How a scan reads one file: in pieces of at most [`PIECE_BYTES`], each
//! cut after a line end, so a file of any size is read with the same
//! memory, and a NUL byte is text like any other (a file a scan skips for
//! its size or a NUL byte is a place to hide what the change adds).
//!
//! A line longer than a piece is read in segments of [`PIECE_BYTES`] that
//! overlap by [`OVERLAP_BYTES`], so a match shorter than the overlap (every
//! token, every statement a rule looks for) lies whole in one segment; the
//! caller drops a rule's second hit on the same line ([`Piece::open`]).

use std::io::Read;

/// The most of a file held at once.
pub(super) const PIECE_BYTES: usize = 1024 * 1024;
/// What two segments of one long line share.
pub(super) const OVERLAP_BYTES: usize = 4 * 1024;

/// A run of whole lines, or a segment of one long line.
pub(super) struct Piece<'b> {
    pub(super) bytes: &'b [u8],
    /// The 1-based number of its first line in the file.
    pub(super) first_line: u64,
    /// The characters of its first line before it (a long line's later
    /// segment), which its hits' columns on that line add.
    pub(super) column_offset: u64,
    /// Its first line began in an earlier piece, or its last line goes on
    /// in the next one: the lines whose hits may come twice.
    pub(super) open: bool,
}

/// Hands every piece of `file` to `each`, in order, using `buf`; an error
/// of the read stops it (what was handed over stands).
pub(super) fn pieces(
    file: &mut impl Read,
    buf: &mut Vec<u8>,
    mut each: impl FnMut(Piece<'_>),
) -> std::io::Result<()> {
    buf.clear();
    let mut line = 1u64;
    let mut column_offset = 0u64;
    let mut continued = false;
    loop {
        let eof = fill(file, buf)?;
        if buf.is_empty() {
            return Ok(());
        }
        let last_end = memchr::memrchr(b'\n', buf);
        let (cut, long) = match last_end {
            _ if eof => (buf.len(), false),
            Some(end) => (end + 1, false),
            None => (buf.len(), true),
        };
        each(Piece {
            bytes: &buf[..cut],
            first_line: line,
            column_offset,
            open: continued || long,
        });
        if long {
            // The next segment starts `OVERLAP_BYTES` back on the same line.
            let keep = buf.len() - OVERLAP_BYTES.min(buf.len() / 2);
            column_offset += chars(&buf[..keep]);
            buf.drain(..keep);
            continued = true;
            continue;
        }
        line += memchr::memchr_iter(b'\n', &buf[..cut]).count() as u64;
        column_offset = 0;
        continued = false;
        buf.drain(..cut);
        if eof {
            return Ok(());
        }
    }
}

/// Reads into `buf` until it holds `PIECE_BYTES` or the file ends; whether
/// it ended.
fn fill(file: &mut impl Read, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    while buf.len() < PIECE_BYTES {
        let want = (PIECE_BYTES - buf.len()) as u64;
        let got = file.by_ref().take(want).read_to_end(buf)?;
        if got == 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The characters of `bytes` as the lossy decoder counts them, close
/// enough for a column: every byte that does not continue a UTF-8
/// sequence.
fn chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (first line, column offset, open, length) of each piece.
    fn cut(bytes: &[u8]) -> Vec<(u64, u64, bool, usize)> {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        pieces(&mut &bytes[..], &mut buf, |p| {
            out.push((p.first_line, p.column_offset, p.open, p.bytes.len()))
        })
        .unwrap();
        out
    }

    #[test]
    fn short_files_are_one_piece_and_empty_ones_none() {
        assert_eq!(cut(b"a\nb\n"), [(1, 0, false, 4)]);
        assert_eq!(cut(b"a\n\0b"), [(1, 0, false, 4)]);
        assert_eq!(cut(b""), []);
    }

    #[test]
    fn pieces_end_after_a_line_end_and_count_lines() {
        let mut text = vec![b'x'; PIECE_BYTES - 10];
        text.extend_from_slice(b"\nyyyyyyyyyyyyyyyyyyyy\nz\n");
        assert_eq!(
            cut(&text),
            [(1, 0, false, PIECE_BYTES - 9), (2, 0, false, 23)]
        );
    }

    #[test]
    fn a_long_line_is_read_in_overlapping_segments() {
        let mut text = vec![b'x'; PIECE_BYTES + 100];
        text.extend_from_slice(b"\nnext\n");
        let first = PIECE_BYTES - OVERLAP_BYTES;
        assert_eq!(
            cut(&text),
            [
                (1, 0, true, PIECE_BYTES),
                (1, first as u64, true, OVERLAP_BYTES + 100 + 6),
            ]
        );
    }
}
