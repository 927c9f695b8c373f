//! Digests as text: the one lower-case hex encoder of the cache keys, the
//! config's and artifacts' SHA-256, the agent session's names.

/// Lower-case hex of `bytes`. By table, not `{:02x}`: the cache key
/// writes one blob id per tracked file on every run, and the formatter's
/// per-byte cost was a tenth of an all-hit run.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lower_case_two_digits_per_byte() {
        assert_eq!(hex(&[0x00, 0x0a, 0xab, 0xff, 0x10]), "000aabff10");
        assert_eq!(hex(&[]), "");
        let every: Vec<u8> = (0..=255).collect();
        let formatted: String = every.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&every), formatted);
    }
}
