//! Human durations of checks.toml: a whole number with a unit `ms`, `s`,
//! `m`, `h` or `d` (`"500ms"`, `"90s"`, `"2m"`, `"1h"`, `"7d"`), or a sum of
//! such parts (`"1m30s"`, documented before the units were bounded and kept).
//! The total is at least [`MIN`] and at most [`MAX`]: a deadline of
//! `Instant::now() + timeout` can then never overflow, on any platform. A
//! bare number is refused: its unit would be a guess.

use std::time::Duration;

/// The shortest duration accepted: 1 ms.
pub(crate) const MIN: Duration = Duration::from_millis(1);
/// The longest duration accepted: 7 days.
pub(crate) const MAX: Duration = Duration::from_secs(7 * 24 * 3600);

/// Parses a duration; the error is a short description of what is wrong.
/// Never panics, and reads no further than the first bad character: every
/// number is checked against [`MAX`] before it is added.
pub(crate) fn parse(text: &str) -> Result<Duration, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    let too_large = || "longer than the maximum of 7d".to_string();
    let mut total = Duration::ZERO;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(format!("expected a number at `{rest}`"));
        }
        // Any number with more digits than u64 holds is over 7 days in
        // every unit.
        let number: u64 = rest[..digits].parse().map_err(|_| too_large())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let millis_per = match unit {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            "" => return Err(format!("`{number}` has no unit (use ms, s, m, h or d)")),
            other => return Err(format!("unknown unit `{other}` (use ms, s, m, h or d)")),
        };
        let part = number
            .checked_mul(millis_per)
            .map(Duration::from_millis)
            .filter(|part| *part <= MAX)
            .ok_or_else(too_large)?;
        total += part; // both at most MAX: no overflow
        if total > MAX {
            return Err(too_large());
        }
    }
    if total < MIN {
        return Err("must be at least 1ms".into());
    }
    Ok(total)
}

/// Renders a duration the way checks.toml writes it (for `list`).
pub(crate) fn display(d: Duration) -> String {
    let ms = d.as_millis();
    if ms == 0 {
        "0ms".to_string()
    } else if ms.is_multiple_of(86_400_000) {
        format!("{}d", ms / 86_400_000)
    } else if ms.is_multiple_of(3_600_000) {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn ok(text: &str, ms: u64) {
        assert_eq!(parse(text), Ok(Duration::from_millis(ms)), "{text}");
    }

    #[track_caller]
    fn bad(text: &str, fragment: &str) {
        let err = parse(text).unwrap_err();
        assert!(err.contains(fragment), "{text}: {err}");
    }

    #[test]
    fn units() {
        ok("500ms", 500);
        ok("90s", 90_000);
        ok("2m", 120_000);
        ok("1h", 3_600_000);
        ok("7d", 7 * 86_400_000);
        ok("1m30s", 90_000);
        ok(" 10s ", 10_000);
        ok("1ms", 1);
        ok("6d23h59m59s999ms", 7 * 86_400_000 - 1);
        ok("168h", 7 * 86_400_000);
        ok("604800000ms", 7 * 86_400_000);
    }

    #[test]
    fn refusals() {
        bad("", "empty");
        bad("10", "no unit");
        bad("5x", "unknown unit `x`");
        bad("s", "expected a number");
        bad("0s", "at least 1ms");
        bad("0ms0s", "at least 1ms");
        bad("-1s", "expected a number");
        bad("1.5s", "unknown unit `.`");
        bad("99999999999999999999s", "maximum of 7d");
    }

    /// Values that once validated and then panicked in a
    /// worker (`Instant + Duration` overflow), and the edges of the bound.
    #[test]
    fn bounded_at_seven_days() {
        for text in [
            "2562047788015215h",
            "18446744073709551615s",
            "18446744073709551615ms",
            "18446744073709551616ms",
            "18446744073709551615d",
            "8d",
            "169h",
            "604800001ms",
            "7d1ms",
            "4d4d",
            "6d23h59m59s999ms2ms",
        ] {
            bad(text, "longer than the maximum of 7d");
        }
        assert!(std::time::Instant::now().checked_add(MAX).is_some());
    }

    #[test]
    fn display_picks_the_largest_exact_unit() {
        assert_eq!(display(Duration::from_secs(600)), "10m");
        assert_eq!(display(Duration::from_secs(7200)), "2h");
        assert_eq!(display(Duration::from_secs(90)), "90s");
        assert_eq!(display(Duration::from_millis(1500)), "1500ms");
        assert_eq!(display(MAX), "7d");
        assert_eq!(display(Duration::from_secs(86_400 + 3600)), "25h");
    }
}
