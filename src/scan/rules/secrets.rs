//! The `secrets` rule set: AWS access key ids, private key blocks, GitHub
//! tokens, and passwords, tokens or keys assigned a string literal. Messages
//! and suggestions never name the value.
//!
//! Policy of the `secrets` set, to keep false positives cheap to avoid:
//! AWS's documented example keys (ending in `EXAMPLE`) and tokens whose body
//! is one repeated character are placeholders; a credential assignment
//! (`password`, `passwd`, `secret`, `token`, `api_key`, `secret_key`,
//! `private_key`, `access_key`, in lower, upper or capitalised case, ending
//! the assigned name) counts only with a quoted literal of at least six
//! characters that has no whitespace, is not a reference or template
//! (`$VAR`, `${..}`, `{{..}}`, `%s`, `<..>`) and is not a placeholder word
//! (`changeme`, `example`, `dummy`, `xxxx`, `your_...`, ...).

use super::{Builtin, Verify};

/// The set's name.
pub(super) const SECRETS: &str = "secrets";

const SECRET_WHY: &str = "anyone who can read the repository can use it; remove it, rotate \
                          it, and load it from the environment or a secret store";

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
        name: "credential-assignment",
        pattern: concat!(
            // The name ends with a keyword, in lower, upper or capitalised
            // case (not case-insensitive: exact literals keep the union's
            // literal prefilter fast).
            r"(?:[Pp]assw(?:or)?d|PASSW(?:OR)?D|[Ss]ecret|SECRET|[Tt]oken|TOKEN",
            r"|(?:[Aa]pi|API)[_-]?(?:[Kk]ey)|API[_-]?KEY",
            r"|(?:[Ss]ecret|[Pp]rivate|[Aa]ccess)[_-]?[Kk]ey|(?:SECRET|PRIVATE|ACCESS)[_-]?KEY)",
            r#"["']?[ \t]*"#,
            r"(?::=|=>|=|:(?:[ \t]*(?:&(?:'static[ \t]+)?str|str|string|String)[ \t]*=)?)",
            r#"[ \t]*(?:"([^"\n]*)"|'([^'\n]*)')"#
        ),
        verify: Verify::Credential,
        needles: &[
            "assword", "asswd", "ASSWORD", "ASSWD", "ecret", "ECRET", "oken", "OKEN", "key", "Key",
            "KEY",
        ],
        what: "a password, token or key assigned a string literal (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
];

/// Lowercased words that mark a credential value as a placeholder.
const PLACEHOLDER_WORDS: &[&str] = &[
    "changeme",
    "change_me",
    "change-me",
    "example",
    "placeholder",
    "dummy",
    "redacted",
    "replace",
    "your_",
    "your-",
    "yourpassword",
    "yoursecret",
    "yourtoken",
    "xxxx",
    "****",
    "....",
    "todo",
    "fixme",
];

/// Lowercased values that are placeholders as a whole.
const PLACEHOLDER_VALUES: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "default",
    "testing",
    "foobar",
    "undefined",
    "notasecret",
];

/// Shortest credential value reported.
const MIN_CREDENTIAL_CHARS: usize = 6;

/// Whether a credential assignment's value looks real. Policy: not empty, at
/// least `MIN_CREDENTIAL_CHARS` characters, no whitespace (that is prose: a
/// prompt or a label), not a reference or template (`$VAR`, `${..}`, `{{..}}`,
/// `%s`, `<..>`), not a placeholder word (`changeme`, `example`, `xxxx`,
/// `your_...`, ...), not one character repeated.
pub(super) fn real_credential(value: &str) -> bool {
    if value.chars().count() < MIN_CREDENTIAL_CHARS || value.chars().any(char::is_whitespace) {
        return false;
    }
    if value.starts_with(['$', '%', '<', '#', '{']) || value.contains("${") || value.contains("{{")
    {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if PLACEHOLDER_VALUES.contains(&lower.as_str())
        || PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w))
    {
        return false;
    }
    !one_char_repeated(value)
}

/// Whether a key or token (prefix and all) is real. Policy: AWS's documented
/// example keys end in `EXAMPLE`; a body of one repeated character
/// (`ghp_xxxx...`) is a placeholder.
pub(super) fn real_token(token: &str) -> bool {
    if token.ends_with("EXAMPLE") {
        return false;
    }
    let body = token.rsplit('_').next().unwrap_or(token);
    let body = body
        .strip_prefix("AKIA")
        .or_else(|| body.strip_prefix("ASIA"))
        .unwrap_or(body);
    !one_char_repeated(body)
}

fn one_char_repeated(text: &str) -> bool {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => chars.all(|c| c == first),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Hit;
    use super::super::tests::{aws_key, clean, found, github_token, matcher};
    use super::*;

    #[test]
    fn secrets() {
        let key = aws_key();
        found(&format!("aws_id = {key}"), "secrets/aws-access-key-id");
        found(
            &format!("-----BEGIN {}PRIVATE KEY-----", "RSA "),
            "secrets/private-key",
        );
        found(
            &format!("-----BEGIN {}PRIVATE KEY-----", "OPENSSH "),
            "secrets/private-key",
        );
        found(
            &format!("-----BEGIN PRIVATE {}-----", "KEY"),
            "secrets/private-key",
        );
        found(&format!("x {}", github_token()), "secrets/github-token");
        found(
            &format!("x {}", github_token().replace("ghp_", "ghs_")),
            "secrets/github-token",
        );
        let fine_grained = format!(
            "github_pat_{}_{}",
            "1".repeat(11) + "ABCDEFGHIJK",
            "xY7".repeat(20)
        );
        found(&format!("GH={fine_grained}"), "secrets/github-token");
        for line in [
            "password = \"hunter2!x\"",
            "  DB_PASSWORD: \"s3cr3t-P4ss\"",
            "{\"api_key\": \"k-9f8e7d6c\"}",
            "let token = \"abc123def\";",
            "const API_KEY: &str = \"q9w8e7r6t5\";",
            "password: str = 'p4ssw0rd!'",
            "client_secret := \"zz9-yy8-xx7\"",
        ] {
            found(line, "secrets/credential-assignment");
        }

        clean("AKIAIOSFODNN7EXAMPLE");
        clean("AKIA1234567890ABCDE");
        clean(&format!("-----BEGIN PUBLIC {}-----", "KEY"));
        clean(&format!("ghx_{}", &github_token()[4..]));
        clean(&github_token()[..39]);
        clean(&format!("ghp_{}", "x".repeat(36)));
        for line in [
            "password = \"\"",
            "password = \"changeme\"",
            "password = \"${DB_PASSWORD}\"",
            "password = os.environ[\"DB_PASSWORD\"]",
            "password_hint = \"first pet\"",
            "tokenizer = \"bert-base\"",
            "if password == \"hunter22\":",
            "password = \"Enter your password\"",
            "token = \";\"",
            "password = \"xxxxxxxx\"",
            "api_key = \"<your api key>\"",
            "secret = \"example-secret\"",
        ] {
            clean(line);
        }
    }

    #[test]
    fn secret_findings_never_carry_the_secret() {
        let secrets = [
            aws_key(),
            github_token(),
            "hunter2!x".to_string(),
            format!("-----BEGIN {}PRIVATE KEY-----", "EC "),
        ];
        let text = format!(
            "id = {}\ntok = {}\npassword = \"{}\"\n{}\n",
            secrets[0], secrets[1], secrets[2], secrets[3]
        );
        let m = matcher(&[SECRETS], Vec::new());
        let mut seen = 0;
        m.scan(&text, &mut |hit: Hit| {
            seen += 1;
            let rule = m.rule(hit.rule);
            assert_eq!(rule.suggestion, None);
            let shown = format!("{} {}", rule.id, rule.message);
            for secret in &secrets {
                // No 5-character piece of a secret's distinctive part.
                let body = secret.trim_start_matches("-----BEGIN ");
                let chars: Vec<char> = body.chars().collect();
                for window in chars.windows(5) {
                    let piece: String = window.iter().collect();
                    if piece
                        .chars()
                        .all(|c| c.is_ascii_alphabetic() && c.is_ascii_lowercase())
                    {
                        continue; // an English word fragment, not the secret
                    }
                    assert!(
                        !shown.contains(&piece),
                        "`{piece}` of a secret in `{shown}`"
                    );
                }
                assert!(!shown.contains(secret.as_str()));
            }
        });
        assert_eq!(seen, 4);
    }
}
