use super::super::Hit;
use super::super::tests::{aws_key, clean, found, github_token, hits, matcher};
use super::*;

/// A generated-looking value, assembled at run time (no literal here for
/// a secret scanner to flag).
fn generated() -> String {
    format!("{}{}", "Vq7#kP2x", "Lm9-Rt4wZc8Nb3")
}

#[test]
fn known_formats() {
    let key = aws_key();
    found(&format!("aws_id = {key}"), "secrets/aws-access-key-id");
    found(
        &format!("x {}", key.replace("AKIA", "ASIA")),
        "secrets/aws-access-key-id",
    );
    for kind in ["RSA ", "OPENSSH ", "EC ", "ENCRYPTED ", ""] {
        found(
            &format!("-----BEGIN {kind}PRIVATE {}-----", "KEY"),
            "secrets/private-key",
        );
    }
    found(
        &format!("-----BEGIN PGP PRIVATE {}-----", "KEY BLOCK"),
        "secrets/private-key",
    );
    for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
        found(
            &format!("x {}", github_token().replace("ghp_", prefix)),
            "secrets/github-token",
        );
    }
    let fine_grained = format!(
        "github_pat_{}_{}",
        "1".repeat(11) + "ABCDEFGHIJK",
        "xY7".repeat(20)
    );
    found(&format!("GH={fine_grained}"), "secrets/github-token");
    found(
        &format!("x = '{}-{}'", "glpat", "Xk29fLq0Zr8Mv3Tb7Wp1"),
        "secrets/gitlab-token",
    );
    found(
        &format!(
            "x {}-{}-{}",
            "xoxb", "3141592653", "2718281828-Qw7Er2Ty9Ui4Op1As6Df3Gh"
        ),
        "secrets/slack-token",
    );
    found(
        &format!("x {}-2-{}", "xoxa", "4815162342-Zx8Cv3Bn6Mq1"),
        "secrets/slack-token",
    );
    for prefix in ["sk", "rk"] {
        found(
            &format!("k = {prefix}_{}_{}", "live", "4Fh8Jk2Lm6Np0Qr3St7Uv1Wx"),
            "secrets/stripe-live-key",
        );
    }
    found(
        &format!("key={}{}", "AIza", "Sy9Xk2Lm4Qp7Rt1Vw3Zb6Nc8Hd0Jf5Gh-Tk_"),
        "secrets/google-api-key",
    );
    found(
        &format!(
            "Authorization: Bearer {}.{}.{}",
            "eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiJhbGljZSJ9", "Qk9vX3JhbmRvbV9zaWduYXR1cmU"
        ),
        "secrets/jwt",
    );
}

#[test]
fn known_format_placeholders_are_not_tokens() {
    clean("AKIAIOSFODNN7EXAMPLE");
    clean("AKIA1234567890ABCDE"); // one character short
    clean(&format!("-----BEGIN PUBLIC {}-----", "KEY"));
    clean(&format!("ghx_{}", &github_token()[4..]));
    clean(&github_token()[..39]);
    clean(&format!("ghp_{}", "x".repeat(36)));
    clean(&format!("{}-{}", "glpat", "x".repeat(20)));
    clean(&format!(
        "{}-0000000000-0000000000-{}",
        "xoxb",
        "x".repeat(24)
    ));
    clean("xoxb-not-a-real-token-this-will-not-work");
    clean(&format!("sk_{}_{}", "test", "4Fh8Jk2Lm6Np0Qr3St7Uv1Wx"));
    clean(&format!("sk_{}_{}", "live", "x".repeat(24)));
    clean("eyJhbGciOiJIUzI1NiJ9.payload.sig");
}

#[test]
fn generic_assignments_flag_generated_values() {
    let value = generated();
    for line in [
        format!("password = \"{value}\""),
        format!("  DB_PASSWORD: \"{value}\""),
        format!("{{\"api_key\": \"{value}\"}}"),
        format!("{{\"apiToken\": \"{value}\"}}"),
        format!("let token = \"{value}\";"),
        format!("const API_KEY: &str = \"{value}\";"),
        format!("password: str = '{value}'"),
        format!("client_secret := \"{value}\""),
        format!("secret_key: '{value}'"),
        format!("SECRET = b\"{value}\""),
        // Bare values on a line of their own.
        format!("API_KEY={value}"),
        format!("export GITHUB_TOKEN={value}  # ci"),
        format!("  password: {value}"),
        format!("- access_key: {value}"),
        format!("spring.datasource.password={value}"),
    ] {
        found(&line, "secrets/credential-assignment");
    }
    // Hexadecimal: a lower entropy threshold.
    found(
        &format!("token = \"{}{}\"", "83f7a9802a91f13e", "69b952f86c326290"),
        "secrets/credential-assignment",
    );
    // The column is the name's.
    assert_eq!(
        hits(&format!("  cfg.db_password = \"{value}\"")),
        vec![("secrets/credential-assignment".to_string(), 1, 3)]
    );
    // A known format on the line replaces the generic finding.
    assert_eq!(
        hits(&format!("GITHUB_TOKEN={}", github_token())),
        vec![("secrets/github-token".to_string(), 1, 14)]
    );
}

#[test]
fn generic_assignments_skip_placeholders_and_test_values() {
    for line in [
        "password = \"\"",
        "password = \"changeme\"",
        "password = \"${DB_PASSWORD}\"",
        "password = os.environ[\"DB_PASSWORD\"]",
        "password = os.environ.get(\"DB_PASSWORD\", \"\")",
        "password_hint = \"first pet\"",
        "tokenizer = \"bert-base\"",
        "if password == \"hunter2-9fKq7Lz\":",
        "password = \"Enter your password\"",
        "token = \";\"",
        "password = \"xxxxxxxxxxxx\"",
        "api_key = \"<your api key>\"",
        "secret = \"example-secret\"",
        // The two corpora of the issue: words, no digit or symbol.
        "s = Signer(secret_key=\"secret-key\")",
        "\"dataStorePassword\": \"dataStoreTestQuery\",",
        "const apiKey = \"your-api-key-here\";",
        "password: changeme",
        "SECRET_KEY=",
        "JWT_SECRET=${JWT_SECRET}",
        "password: {{ .Values.password }}",
        // Too short, or too little entropy for a generated value.
        "password = \"hunter2!x\"",
        "let password = \"Summer2024!\";",
        "token = \"aaaabbbb1234\"",
        // Placeholder words, also in leetspeak, and key runs.
        "password = \"P@ssw0rd123!\"",
        "password = \"s3cr3t-9fKq7Lz\"",
        "DB_PASSWORD=Welcome-9fKq7Lz",
        "api_key = \"sk_test_9fKq7LzW2x\"",
        "token = \"qx1234-9fKq7Lz\"",
        // A word of the variable's own name.
        "redisSecret = \"redis-local-9f3k2\"",
        // References, URLs, paths.
        "token_url = \"https://example.invalid/oauth/token\"",
        "secret = \"https://vault.local/v1/kv/9fKq7Lz\"",
        "private_key = \"./keys/dev-9fKq7Lz.pem\"",
        "private_key = \"~/.ssh/id_ed25519\"",
        "password = \"%(db_password)s\"",
        "token = \"{token_9fKq7Lz}\"",
        // Not a bare assignment of its own line.
        "password = get_password(9, \"x\")",
        "token = self.token_9fKq7Lz",
    ] {
        clean(line);
    }
}

#[test]
fn thresholds() {
    assert_eq!(entropy(""), 0.0);
    assert_eq!(entropy("aaaa"), 0.0);
    assert_eq!(entropy("abcd"), 2.0);
    assert_eq!(entropy("aabb"), 1.0);
    // 12 distinct characters: 3.58 bits; the first 11 of them: 3.46.
    let edge = "Xk9#mQ2vLp7Z";
    assert!(entropy(edge) > MIN_ENTROPY && entropy(&edge[..11]) < MIN_ENTROPY);
    assert!(real_credential("password", edge));
    assert!(!real_credential("password", &edge[..11]));
    assert!(!real_credential("password", "Xk9#mQ2vL")); // 9 characters
    assert_eq!(MIN_CREDENTIAL_CHARS, 10);
    assert_eq!(MIN_ENTROPY, 3.5);
    assert_eq!(MIN_HEX_ENTROPY, 3.0);
    assert_eq!(
        name_words("dataStorePassword"),
        ["data", "store", "password"]
    );
    assert_eq!(name_words("DB_PASSWORD"), ["password"]);
    assert_eq!(
        name_words("spring.datasource.password"),
        ["spring", "datasource", "password"]
    );
}

#[test]
fn secret_findings_never_carry_the_secret() {
    let secrets = [
        aws_key(),
        github_token(),
        generated(),
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

#[test]
fn tokens_in_a_path_are_masked_after_their_prefix() {
    let key = aws_key();
    let masked = format!("AKIA{}", "*".repeat(16));
    assert_eq!(
        redact_path(&format!("src/{key}/app.py")),
        format!("src/{masked}/app.py")
    );
    // Joined to its neighbours by `_` or `.`, and twice in one path.
    assert_eq!(
        redact_path(&format!("keys_{key}.d/{key}.txt")),
        format!("keys_{masked}.d/{masked}.txt")
    );
    let token = github_token();
    assert_eq!(
        redact_path(&format!("t/{token}")),
        format!("t/ghp_{}", "*".repeat(token.len() - 4))
    );
    // No token, an example, a placeholder: the path as it is.
    for path in [
        "src/app.py",
        "docs/AKIAIOSFODNN7EXAMPLE/x.md",
        "t/ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ] {
        assert!(
            matches!(redact_path(path), Cow::Borrowed(p) if p == path),
            "{path}"
        );
    }
}
