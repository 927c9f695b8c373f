//! Human durations of checks.toml (`"500ms"`, `"90s"`, `"2m"`, `"1h"`, and
//! sums such as `"1m30s"`). A bare number is refused: its unit would be a guess.

use std::time::Duration;

/// Parses a duration; the error is a short description of what is wrong.
pub fn parse(text: &str) -> Result<Duration, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    let mut total = Duration::ZERO;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(format!("expected a number at `{rest}`"));
        }
        let number: u64 = rest[..digits]
            .parse()
            .map_err(|_| format!("number `{}` is too large", &rest[..digits]))?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let part = match unit {
            "ms" => Duration::from_millis(number),
            "s" => Duration::from_secs(number),
            "m" => number
                .checked_mul(60)
                .map(Duration::from_secs)
                .ok_or("too large")?,
            "h" => number
                .checked_mul(3600)
                .map(Duration::from_secs)
                .ok_or("too large")?,
            "" => return Err(format!("`{number}` has no unit (use ms, s, m or h)")),
            other => return Err(format!("unknown unit `{other}` (use ms, s, m or h)")),
        };
        total = total.checked_add(part).ok_or("too large")?;
    }
    if total.is_zero() {
        return Err("must be greater than zero".into());
    }
    Ok(total)
}

/// Renders a duration the way checks.toml writes it (for `list`).
pub fn display(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(3_600_000) {
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
        ok("1m30s", 90_000);
        ok(" 10s ", 10_000);
    }

    #[test]
    fn refusals() {
        bad("", "empty");
        bad("10", "no unit");
        bad("5x", "unknown unit `x`");
        bad("s", "expected a number");
        bad("0s", "greater than zero");
        bad("-1s", "expected a number");
        bad("99999999999999999999s", "too large");
    }

    #[test]
    fn display_picks_the_largest_exact_unit() {
        assert_eq!(display(Duration::from_secs(600)), "10m");
        assert_eq!(display(Duration::from_secs(7200)), "2h");
        assert_eq!(display(Duration::from_secs(90)), "90s");
        assert_eq!(display(Duration::from_millis(1500)), "1500ms");
    }
}
