//! Bounded capture of one output stream: the first `limit` bytes, the last
//! `limit` bytes and a byte count. Memory is at most `2 * limit` whatever a
//! check prints; bytes are stored raw and decoded (lossily) only when rendered.

/// Head + tail capture of a byte stream.
#[derive(Debug, Clone, Default)]
pub(crate) struct Excerpt {
    limit: usize,
    head: Vec<u8>,
    /// Ring buffer of the last `limit` bytes after the head filled up.
    tail: Vec<u8>,
    /// Index in `tail` of the oldest byte once the ring is full.
    tail_start: usize,
    total: u64,
}

impl Excerpt {
    /// An empty capture keeping `limit` bytes at each end.
    pub(crate) fn new(limit: usize) -> Excerpt {
        Excerpt {
            limit,
            ..Excerpt::default()
        }
    }

    /// Appends a chunk. Constant work per byte, no allocation once full.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        if self.head.len() < self.limit {
            let take = (self.limit - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.is_empty() || self.limit == 0 {
            return;
        }
        if chunk.len() >= self.limit {
            // The chunk alone fills the ring: keep its last `limit` bytes.
            self.tail.clear();
            self.tail
                .extend_from_slice(&chunk[chunk.len() - self.limit..]);
            self.tail_start = 0;
            return;
        }
        let room = self.limit - self.tail.len();
        if room > 0 {
            let take = room.min(chunk.len());
            self.tail.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        // Overwrite the oldest bytes, wrapping around.
        while !chunk.is_empty() {
            let take = (self.limit - self.tail_start).min(chunk.len());
            self.tail[self.tail_start..self.tail_start + take].copy_from_slice(&chunk[..take]);
            self.tail_start = (self.tail_start + take) % self.limit;
            chunk = &chunk[take..];
        }
    }

    /// Bytes seen in all.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Whether bytes were dropped between head and tail.
    pub(crate) fn truncated(&self) -> bool {
        self.total > (self.head.len() + self.tail.len()) as u64
    }

    /// The bytes kept: head then tail (the whole stream when not
    /// `truncated`).
    pub(crate) fn bytes(&self) -> Vec<u8> {
        [
            &self.head[..],
            &self.tail[self.tail_start..],
            &self.tail[..self.tail_start],
        ]
        .concat()
    }

    /// The excerpt as text: head, then (when cut) a line
    /// `… [N bytes omitted] …`, then tail. Invalid UTF-8 is replaced; a
    /// character split by a cut is dropped rather than shown as garbage.
    pub(crate) fn render(&self) -> String {
        let tail = [&self.tail[self.tail_start..], &self.tail[..self.tail_start]].concat();
        if !self.truncated() {
            return String::from_utf8_lossy(&[&self.head[..], &tail[..]].concat()).into_owned();
        }
        let omitted = self.total - (self.head.len() + tail.len()) as u64;
        let head = trim_partial_end(&self.head);
        let tail = trim_partial_start(&tail);
        let mut out = String::from_utf8_lossy(head).into_owned();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("… [{omitted} bytes omitted] …\n"));
        out.push_str(&String::from_utf8_lossy(tail));
        out
    }
}

/// Drops an incomplete UTF-8 sequence at the end of `bytes`.
fn trim_partial_end(bytes: &[u8]) -> &[u8] {
    // Look back at most 3 bytes for the start of the last sequence.
    for back in 1..=bytes.len().min(4) {
        let b = bytes[bytes.len() - back];
        if b & 0b1100_0000 != 0b1000_0000 {
            let needed = match b {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => return bytes, // not UTF-8 anyway: leave it to lossy decoding
            };
            return if back < needed {
                &bytes[..bytes.len() - back]
            } else {
                bytes
            };
        }
    }
    bytes
}

/// Drops continuation bytes at the start of `bytes` (the rest of a character
/// whose first bytes were omitted).
fn trim_partial_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|&&b| b & 0b1100_0000 == 0b1000_0000)
        .count();
    &bytes[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(limit: usize, chunks: &[&[u8]]) -> Excerpt {
        let mut e = Excerpt::new(limit);
        for c in chunks {
            e.push(c);
        }
        e
    }

    #[test]
    fn short_output_is_kept_whole() {
        let e = feed(4, &[b"abc", b"defgh"]);
        assert_eq!(e.total(), 8);
        assert!(!e.truncated());
        assert_eq!(e.render(), "abcdefgh");
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let e = feed(4, &[b"0123", b"45", b"6789", b"ab"]);
        // head 0123, tail keeps the last 4 of 456789ab = 89ab, 4 omitted.
        assert!(e.truncated());
        assert_eq!(e.render(), "0123\n… [4 bytes omitted] …\n89ab");
    }

    #[test]
    fn ring_wraps_over_many_small_chunks() {
        let mut e = Excerpt::new(3);
        for b in b"abcdefghijklmnop" {
            e.push(&[*b]);
        }
        assert_eq!(e.render(), "abc\n… [10 bytes omitted] …\nnop");
    }

    #[test]
    fn a_chunk_larger_than_the_ring_keeps_its_end() {
        let e = feed(2, &[b"xy", b"z", b"0123456789"]);
        assert_eq!(e.render(), "xy\n… [9 bytes omitted] …\n89");
    }

    #[test]
    fn split_characters_are_dropped_and_invalid_bytes_replaced() {
        // "é" is c3 a9; cut it at both ends.
        let e = feed(3, &[b"ab\xc3\xa9", b"0000000", b"\xa9yz"]);
        assert_eq!(e.render(), "ab\n… [8 bytes omitted] …\nyz");
        let e = feed(8, &[b"ok \xff\xfe"]);
        assert_eq!(e.render(), "ok \u{fffd}\u{fffd}");
    }
}
