//! The `secrets` rule set: credentials in known token formats, private key
//! blocks, and credentials assigned to a password, secret, token or key name.
//! Messages and suggestions never name the value.
//!
//! Policy (docs/diagnostics.md#the-secrets-rule-set), tested on the corpus of
//! tests/fixtures/secrets/:
//! - Known token formats always flag: AWS access key ids (`AKIA`/`ASIA`),
//!   GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab
//!   (`glpat-`), Slack (`xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`), Stripe live keys
//!   (`sk_live_`, `rk_live_`), Google API keys (`AIza`), private key blocks
//!   and JWTs. Only a visible placeholder is not a token: AWS's documented
//!   examples (`…EXAMPLE`) and a body of fewer than `MIN_TOKEN_DISTINCT`
//!   distinct letters and digits (`ghp_xxxx…`, `xoxb-0000-…`).
//! - The generic `credential-assignment` rule (a name ending in `password`,
//!   `passwd`, `secret`, `token`, `api_key`, `secret_key`, `private_key` or
//!   `access_key`, assigned a quoted literal anywhere, or a bare value on a
//!   line of its own as in `.env`, YAML or properties files) flags only a
//!   value that looks generated: see `real_credential`. On a line where a
//!   known format flags, it is not reported again.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::{Builtin, Verify};

/// The set's name.
pub(super) const SECRETS: &str = "secrets";

const SECRET_WHY: &str = "anyone who can read the repository can use it; remove it, rotate \
                          it, and load it from the environment or a secret store";

/// The name of a credential: any identifier (letters, digits, `_`, `.`, `-`)
/// ending in one of the keywords, in lower, upper or capitalised case (not
/// case-insensitive: exact literals keep the literal prefilter fast).
macro_rules! credential_name {
    () => {
        concat!(
            r"(?P<name>[A-Za-z0-9_.-]*?",
            r"(?:[Pp]assw(?:or)?d|PASSW(?:OR)?D|[Ss]ecret|SECRET|[Tt]oken|TOKEN",
            r"|(?:[Aa]pi|API)[_-]?(?:[Kk]ey)|API[_-]?KEY",
            r"|(?:[Ss]ecret|[Pp]rivate|[Aa]ccess)[_-]?[Kk]ey|(?:SECRET|PRIVATE|ACCESS)[_-]?KEY))"
        )
    };
}

/// Needles of the credential names (one is in every keyword above).
const CREDENTIAL_NEEDLES: &[&str] = &[
    "assword", "asswd", "ASSWORD", "ASSWD", "ecret", "ECRET", "oken", "OKEN", "key", "Key", "KEY",
];

/// The set's rules: messages and suggestions never name the value.
pub(super) const RULES: &[Builtin] = &[
    Builtin {
        set: SECRETS,
        name: "aws-access-key-id",
        pattern: concat!(wb!(), r"(?:AKIA|ASIA)[0-9A-Z]{16}", wb!()),
        verify: Verify::RealToken,
        needles: &["AKIA", "ASIA"],
        what: "an AWS access key id (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "private-key",
        pattern: r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
        verify: Verify::Always,
        needles: &["PRIVATE KEY"],
        what: "a private key block (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "github-token",
        pattern: concat!(wb!(), r"gh[pousr]_[A-Za-z0-9]{36,251}", wb!()),
        verify: Verify::RealToken,
        needles: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        what: "a GitHub token (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "github-token",
        pattern: concat!(wb!(), r"github_pat_[A-Za-z0-9_]{22,251}", wb!()),
        verify: Verify::RealToken,
        needles: &["github_pat_"],
        what: "a GitHub token (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "gitlab-token",
        pattern: concat!(wb!(), r"glpat-[A-Za-z0-9_-]{20,}"),
        verify: Verify::RealToken,
        needles: &["glpat-"],
        what: "a GitLab personal access token (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "slack-token",
        pattern: concat!(wb!(), r"xox[abpr]-[0-9]+-[A-Za-z0-9-]{10,}"),
        verify: Verify::RealToken,
        needles: &["xoxa-", "xoxb-", "xoxp-", "xoxr-"],
        what: "a Slack token (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "stripe-live-key",
        pattern: concat!(wb!(), r"[rs]k_live_[A-Za-z0-9]{20,}", wb!()),
        verify: Verify::RealToken,
        needles: &["sk_live_", "rk_live_"],
        what: "a Stripe live secret or restricted key (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "google-api-key",
        pattern: concat!(wb!(), r"AIza[A-Za-z0-9_-]{35}"),
        verify: Verify::RealToken,
        needles: &["AIza"],
        what: "a Google API key (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "jwt",
        pattern: concat!(
            wb!(),
            r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
        ),
        verify: Verify::Always,
        needles: &["eyJ"],
        what: "a JSON Web Token (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    // A quoted literal, anywhere on the line: `password = "…"`,
    // `"apiToken": "…"`, `secret_key='…'`, `const API_KEY: &str = "…"`.
    Builtin {
        set: SECRETS,
        name: "credential-assignment",
        pattern: concat!(
            credential_name!(),
            r#"["']?[ \t]*"#,
            r"(?::=|=>|=|:(?:[ \t]*(?:&(?:'static[ \t]+)?str|str|string|String)[ \t]*=)?)",
            r#"[ \t]*[bBrRuU]{0,2}(?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)')"#
        ),
        verify: Verify::Credential,
        needles: CREDENTIAL_NEEDLES,
        what: "a password, token or key assigned a literal (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    // A bare value on a line of its own: `API_KEY=…` (`.env`, `export`),
    // `password: …` (YAML, `- ` items too), `db.password=…` (properties),
    // up to the line end or a ` #` comment.
    Builtin {
        set: SECRETS,
        name: "credential-assignment",
        pattern: concat!(
            r#"^[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?["']?"#,
            credential_name!(),
            r#"["']?[ \t]*[:=][ \t]*"#,
            r"(?P<bare>[A-Za-z0-9+/_.~!@%^&*-][A-Za-z0-9+/=_.~!@#%^&*-]*)",
            r"(?:[ \t]+#.*)?[ \t]*$"
        ),
        verify: Verify::Credential,
        needles: CREDENTIAL_NEEDLES,
        what: "a password, token or key assigned a literal (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
];

/// Shortest credential value reported (as gitleaks' generic rule).
pub(super) const MIN_CREDENTIAL_CHARS: usize = 10;
/// Least Shannon entropy, in bits per character, of a reported credential
/// value (gitleaks' generic rule uses 3.5 too). A value of n characters has
/// at most log2(n) bits, so this also asks for 12 or more characters unless
/// nearly all differ.
pub(super) const MIN_ENTROPY: f64 = 3.5;
/// The same for a hexadecimal value of `MIN_HEX_CHARS` or more, whose
/// characters carry at most 4 bits each (a random 32-digit hex key has
/// about 3.7).
pub(super) const MIN_HEX_ENTROPY: f64 = 3.0;
/// Shortest hexadecimal value measured against `MIN_HEX_ENTROPY`.
const MIN_HEX_CHARS: usize = 16;
/// Fewest distinct letters and digits in a token's body (after its prefix).
const MIN_TOKEN_DISTINCT: usize = 6;

/// Lowercased words that mark a credential value as a placeholder or a test
/// value, wherever they occur in it (also after undoing leetspeak, so
/// `p@ssw0rd` is `password`).
const PLACEHOLDER_WORDS: &[&str] = &[
    "change",
    "example",
    "sample",
    "placeholder",
    "dummy",
    "fake",
    "mock",
    "test",
    "demo",
    "redacted",
    "replace",
    "your",
    "insecure",
    "default",
    "invalid",
    "wrong",
    "bogus",
    "secret",
    "pass",
    "token",
    "admin",
    "letmein",
    "welcome",
    "hunter",
    "qwerty",
    "foobar",
    "todo",
    "fixme",
    "xxx",
    "***",
    "...",
];

/// Runs of keys typed in order, in a lowercased value.
const SEQUENCES: &[&str] = &["1234", "abcd", "asdf"];

/// Whether the value assigned to the credential `name` looks like a real
/// secret. Policy, in order:
/// 1. at least `MIN_CREDENTIAL_CHARS` characters and no whitespace (prose:
///    a prompt or a label is no secret);
/// 2. not a reference: a template or variable (`$VAR`, `${..}`, `{{..}}`,
///    `#{..}`, `%s`, `%(..)s`, `<..>`, `{..}`), a URL (`://`) or a file path
///    (`/…`, `./…`, `../…`, `~/…`);
/// 3. not words: it holds a digit or a symbol other than `_`, `-`, `.`
///    (`dataStoreTestQuery`, `your-api-key-here` are names, not secrets);
/// 4. not a placeholder: none of `PLACEHOLDER_WORDS` or `SEQUENCES`, and no
///    word of three or more letters of its own name (`dataStore…` assigned to
///    `dataStorePassword`);
/// 5. random enough: Shannon entropy of at least `MIN_ENTROPY` bits per
///    character (`MIN_HEX_ENTROPY` for a hexadecimal value of
///    `MIN_HEX_CHARS` or more).
pub(super) fn real_credential(name: &str, value: &str) -> bool {
    let chars = value.chars().count();
    if chars < MIN_CREDENTIAL_CHARS || value.chars().any(char::is_whitespace) {
        return false;
    }
    if reference(value) {
        return false;
    }
    if !value
        .chars()
        .any(|c| c.is_ascii_digit() || !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return false;
    }
    if placeholder(name, value) {
        return false;
    }
    let hex = chars >= MIN_HEX_CHARS && value.chars().all(|c| c.is_ascii_hexdigit());
    let hex = hex
        && (value.chars().all(|c| !c.is_ascii_lowercase())
            || value.chars().all(|c| !c.is_ascii_uppercase()));
    entropy(value) >= if hex { MIN_HEX_ENTROPY } else { MIN_ENTROPY }
}

/// A template, variable, URL or path rather than a value.
fn reference(value: &str) -> bool {
    value.starts_with(['$', '%', '<', '#', '{', '/', '~'])
        || value.starts_with("./")
        || value.starts_with("../")
        || ["${", "{{", "#{", "%(", "%s", "://"]
            .iter()
            .any(|marker| value.contains(marker))
}

/// A placeholder word, a key sequence or a word of the credential's name.
fn placeholder(name: &str, value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let plain: String = lower.chars().map(unleet).collect();
    let holds = |word: &str| lower.contains(word) || plain.contains(word);
    PLACEHOLDER_WORDS.iter().any(|w| holds(w))
        || SEQUENCES.iter().any(|s| lower.contains(s))
        || name_words(name).iter().any(|w| holds(w))
}

/// The letter a leetspeak character stands for.
fn unleet(c: char) -> char {
    match c {
        '0' => 'o',
        '1' | '!' => 'i',
        '3' => 'e',
        '4' | '@' => 'a',
        '5' | '$' => 's',
        '7' => 't',
        _ => c,
    }
}

/// The lowercased words of three or more letters of an identifier:
/// `dataStorePassword` → data, store, password; `DB_PASSWORD` → password.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        let boundary = !c.is_ascii_alphabetic()
            || (c.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase()));
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_ascii_alphabetic() {
            word.push(c.to_ascii_lowercase());
        }
        previous = Some(c);
    }
    words.push(word);
    words.retain(|w| w.len() >= 3);
    words
}

/// Shannon entropy of the characters of `text`, in bits per character.
pub(super) fn entropy(text: &str) -> f64 {
    let mut counts: Vec<(char, usize)> = Vec::new();
    let mut total = 0usize;
    for c in text.chars() {
        total += 1;
        match counts.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c, 1)),
        }
    }
    counts
        .iter()
        .map(|&(_, n)| {
            let p = n as f64 / total as f64;
            -p * p.log2()
        })
        .sum()
}

/// The prefixes of the token formats, stripped before judging a body.
const TOKEN_PREFIXES: &[&str] = &[
    "AKIA",
    "ASIA",
    "github_pat_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "glpat-",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxr-",
    "sk_live_",
    "rk_live_",
    "AIza",
];

/// Whether a token of a known format (prefix and all) is real. Policy: AWS's
/// documented example keys end in `EXAMPLE`; a body (after the prefix) of
/// fewer than `MIN_TOKEN_DISTINCT` distinct letters and digits
/// (`ghp_xxxx…`, `xoxb-0000000000-…-xxxx…`) is a placeholder.
pub(super) fn real_token(token: &str) -> bool {
    if token.ends_with("EXAMPLE") {
        return false;
    }
    let body = TOKEN_PREFIXES
        .iter()
        .find_map(|p| token.strip_prefix(p))
        .unwrap_or(token);
    let mut distinct: Vec<char> = body.chars().filter(char::is_ascii_alphanumeric).collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() >= MIN_TOKEN_DISTINCT
}

/// The token formats of [`RULES`] (each rule that needs no name to flag:
/// not `credential-assignment`, not a private key's header), compiled
/// without their word boundaries: in a path `_`, `-` and `.` join a token
/// to its neighbours.
static PATH_TOKENS: LazyLock<Vec<(Regex, Verify)>> = LazyLock::new(|| {
    RULES
        .iter()
        .filter(|r| matches!(r.verify, Verify::RealToken) || r.name == "jwt")
        .filter_map(|r| {
            let pattern = r.pattern.replace(wb!(), "");
            Regex::new(&pattern).ok().map(|regex| (regex, r.verify))
        })
        .collect()
});

/// Characters of a token kept visible in a redacted path: its prefix
/// (`AKIA`, `ghp_`), which names the format and not the secret.
const REDACT_KEEP: usize = 4;

/// `path` with every token of a known format in it (a folder named after
/// an AWS key id) masked after its first [`REDACT_KEEP`] characters, one
/// `*` per character (`AKIA****************`): the same path always reads
/// the same, and no finding or skipped file carries a secret in its name.
/// A documented example (`…EXAMPLE`) or a visible placeholder is no token
/// here either.
pub(crate) fn redact_path(path: &str) -> Cow<'_, str> {
    let mut masked: Vec<(usize, usize)> = Vec::new();
    for (regex, verify) in PATH_TOKENS.iter() {
        for found in regex.find_iter(path) {
            if matches!(verify, Verify::RealToken) && !real_token(found.as_str()) {
                continue;
            }
            masked.push((found.start(), found.end()));
        }
    }
    if masked.is_empty() {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len());
    for (at, c) in path.char_indices() {
        let hidden = masked.iter().any(|&(start, end)| {
            at >= start && at < end && path[start..at].chars().count() >= REDACT_KEEP
        });
        out.push(if hidden { '*' } else { c });
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests;
