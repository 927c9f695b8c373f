//! The environment keys a check may not set unless `settings.allow_env`
//! lists them: keys that make the allowed program (or a program it starts)
//! load or run code the whitelist never saw. `LD_PRELOAD` on an allowed `git`
//! runs a shared object; `GIT_CONFIG_COUNT`/`KEY_0`/`VALUE_0` set
//! `core.fsmonitor` and git runs a shell command; `RUSTFLAGS="-C linker=./x"`
//! makes cargo run `./x`. README's "Environment keys that load code" lists
//! them with the reason of each group; keep the two in step.
//!
//! Names are compared ignoring ASCII case on every platform: Windows reads
//! `Path` as `PATH`, npm reads `npm_config_*` in any case, and a config
//! should mean the same on every machine it is validated on.

/// One group of refused keys: why they are refused, the exact names, the
/// prefixes (`DYLD_` matches `DYLD_INSERT_LIBRARIES`), and (prefix, suffix)
/// pairs (`CARGO_TARGET_` ... `_LINKER`).
struct Group {
    why: &'static str,
    exact: &'static [&'static str],
    prefixes: &'static [&'static str],
    affixes: &'static [(&'static str, &'static str)],
}

const GROUPS: &[Group] = &[
    Group {
        why: "the dynamic loader loads libraries it names",
        exact: &["GCONV_PATH", "GLIBC_TUNABLES"],
        prefixes: &["LD_", "DYLD_"],
        affixes: &[],
    },
    Group {
        why: "programs are looked up on it, also by the program's own children",
        exact: &["PATH", "PATHEXT", "COMSPEC"],
        prefixes: &[],
        affixes: &[],
    },
    Group {
        why: "a shell reads it as code or startup files",
        exact: &[
            "BASH_ENV",
            "ENV",
            "SHELLOPTS",
            "BASHOPTS",
            "PS4",
            "PROMPT_COMMAND",
            "IFS",
            "ZDOTDIR",
            "FPATH",
            "BASH_LOADABLES_PATH",
            "PSMODULEPATH",
        ],
        prefixes: &["BASH_FUNC_"],
        affixes: &[],
    },
    Group {
        why: "git runs programs or reads configuration it names",
        exact: &[
            "GIT_CONFIG",
            "GIT_EXEC_PATH",
            "GIT_DIR",
            "GIT_COMMON_DIR",
            "GIT_TEMPLATE_DIR",
            "GIT_SSH",
            "GIT_SSH_COMMAND",
            "GIT_ASKPASS",
            "SSH_ASKPASS",
            "GIT_EXTERNAL_DIFF",
            "GIT_PAGER",
            "GIT_EDITOR",
            "GIT_SEQUENCE_EDITOR",
            "GIT_PROXY_COMMAND",
            "GIT_ALLOW_PROTOCOL",
        ],
        prefixes: &["GIT_CONFIG_"],
        affixes: &[],
    },
    Group {
        why: "tools run the program it names",
        exact: &[
            "PAGER",
            "MANPAGER",
            "EDITOR",
            "VISUAL",
            "BROWSER",
            "LESSOPEN",
            "LESSCLOSE",
        ],
        prefixes: &[],
        affixes: &[],
    },
    Group {
        why: "tools read configuration (and so hooks and commands) from below it",
        exact: &[
            "HOME",
            "USERPROFILE",
            "XDG_CONFIG_HOME",
            "XDG_CONFIG_DIRS",
            "CARGO_HOME",
            "RUSTUP_HOME",
            "RUSTUP_TOOLCHAIN",
            "GRADLE_USER_HOME",
            "GOENV",
            "GOROOT",
            "GOTOOLCHAIN",
            "JAVA_HOME",
        ],
        prefixes: &[],
        affixes: &[],
    },
    Group {
        why: "the Rust toolchain runs the program or passes the flags it names \
              (`-C linker=` runs a program)",
        exact: &[
            "RUSTC",
            "RUSTDOC",
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "RUSTFLAGS",
            "RUSTDOCFLAGS",
            "CARGO",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_ENCODED_RUSTDOCFLAGS",
            "CARGO_REGISTRY_CREDENTIAL_PROVIDER",
            "CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS",
            "CARGO_CREDENTIAL_PROVIDER",
        ],
        prefixes: &["CARGO_BUILD_", "CARGO_HOST_"],
        affixes: &[
            ("CARGO_TARGET_", "_LINKER"),
            ("CARGO_TARGET_", "_RUNNER"),
            ("CARGO_TARGET_", "_RUSTFLAGS"),
            ("CARGO_TARGET_", "_RUSTDOCFLAGS"),
            ("CARGO_REGISTRIES_", "_CREDENTIAL_PROVIDER"),
        ],
    },
    Group {
        why: "C toolchains and build tools run the program or read the flags it \
              names (`-B`, `-fplugin=`)",
        exact: &[
            "CC",
            "CXX",
            "CPP",
            "AR",
            "AS",
            "LD",
            "CFLAGS",
            "CXXFLAGS",
            "CPPFLAGS",
            "LDFLAGS",
            "HOST_CC",
            "HOST_CXX",
            "TARGET_CC",
            "TARGET_CXX",
            "COMPILER_PATH",
            "GCC_EXEC_PREFIX",
            "MAKEFLAGS",
            "MFLAGS",
            "GNUMAKEFLAGS",
            "MAKEFILES",
            "GOFLAGS",
        ],
        prefixes: &["CC_", "CXX_", "CFLAGS_", "CXXFLAGS_"],
        affixes: &[],
    },
    Group {
        why: "the interpreter loads modules or runs code it names",
        exact: &[
            "PYTHONPATH",
            "PYTHONHOME",
            "PYTHONSTARTUP",
            "PYTHONUSERBASE",
            "PYTHONWARNINGS",
            "PYTHONBREAKPOINT",
            "PYTHONPYCACHEPREFIX",
            "PYTHONPLATLIBDIR",
            "PERL5OPT",
            "PERL5LIB",
            "PERLLIB",
            "PERL5DB",
            "RUBYOPT",
            "RUBYLIB",
            "GEM_HOME",
            "GEM_PATH",
            "BUNDLE_GEMFILE",
            "NODE_OPTIONS",
            "NODE_PATH",
            "NODE_REPL_EXTERNAL_MODULE",
            "PHPRC",
            "PHP_INI_SCAN_DIR",
            "TCLLIBPATH",
            "R_PROFILE",
            "R_PROFILE_USER",
            "R_ENVIRON",
            "R_ENVIRON_USER",
            "ERL_AFLAGS",
            "ERL_FLAGS",
            "ERL_ZFLAGS",
            "ERL_LIBS",
            "OPENSSL_CONF",
            "OPENSSL_ENGINES",
            "OPENSSL_MODULES",
        ],
        prefixes: &["NPM_CONFIG_", "LUA_INIT", "LUA_PATH", "LUA_CPATH"],
        affixes: &[],
    },
    Group {
        why: "the runtime loads agents, hooks or profilers it names",
        exact: &[
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "JDK_JAVA_OPTIONS",
            "JAVA_OPTS",
            "CLASSPATH",
            "MAVEN_OPTS",
            "GRADLE_OPTS",
            "SBT_OPTS",
            "DOTNET_STARTUP_HOOKS",
            "DOTNET_ADDITIONAL_DEPS",
        ],
        prefixes: &[
            "CORECLR_PROFILER",
            "COR_PROFILER",
            "CORECLR_ENABLE_PROFILING",
        ],
        affixes: &[],
    },
];

/// Why setting `name` lets a program load other code, or `None` when it
/// does not (as far as this list knows).
pub(crate) fn loads_code(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    let upper = upper.as_str();
    GROUPS
        .iter()
        .find(|group| {
            group.exact.contains(&upper)
                || group.prefixes.iter().any(|p| upper.starts_with(p))
                || group.affixes.iter().any(|(p, s)| {
                    upper.len() > p.len() + s.len() && upper.starts_with(p) && upper.ends_with(s)
                })
        })
        .map(|group| group.why)
}

/// Whether `allow_env` lists `name` (ignoring ASCII case, like the list).
pub(crate) fn allowed(name: &str, allow_env: &[String]) -> bool {
    allow_env
        .iter()
        .any(|entry| entry.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_of_the_spec_and_the_issue_are_refused() {
        for name in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "LD_AUDIT",
            "DYLD_INSERT_LIBRARIES",
            "DYLD_LIBRARY_PATH",
            "BASH_ENV",
            "ENV",
            "GIT_CONFIG_COUNT",
            "GIT_CONFIG_KEY_0",
            "GIT_CONFIG_VALUE_0",
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_SYSTEM",
            "GIT_CONFIG",
            "GIT_EXEC_PATH",
            "NODE_OPTIONS",
            "PYTHONSTARTUP",
            "PERL5OPT",
            "RUBYOPT",
            "PYTHONPATH",
            "GIT_SSH_COMMAND",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "RUSTC_WRAPPER",
            "RUSTFLAGS",
            "CARGO_BUILD_RUSTC_WRAPPER",
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER",
            "CARGO_TARGET_AARCH64_APPLE_DARWIN_RUNNER",
            "PATH",
            "IFS",
            "BASH_FUNC_git%%",
            "HOME",
            "npm_config_script_shell",
            "LUA_INIT_5_4",
            "GCONV_PATH",
        ] {
            assert!(loads_code(name).is_some(), "{name} accepted");
        }
    }

    #[test]
    fn case_is_ignored() {
        assert!(loads_code("ld_preload").is_some());
        assert!(loads_code("Path").is_some());
        assert!(loads_code("Git_Config_Count").is_some());
        assert!(allowed("rustflags", &["RUSTFLAGS".into()]));
        assert!(!allowed("RUSTFLAGS", &["RUSTDOCFLAGS".into()]));
    }

    #[test]
    fn ordinary_keys_pass() {
        for name in [
            "CARGO_TERM_COLOR",
            "CARGO_TARGET_DIR",
            "CARGO_INCREMENTAL",
            "RUST_BACKTRACE",
            "RUST_LOG",
            "NO_COLOR",
            "CI",
            "LANG",
            "LC_ALL",
            "TZ",
            "PYTHONDONTWRITEBYTECODE",
            "PYTHONUNBUFFERED",
            "NODE_ENV",
            "GIT_AUTHOR_NAME",
            "ENVIRONMENT",
            "LDAP_URI",
            "TMPDIR",
            "CARGO_TARGET_",
        ] {
            assert_eq!(loads_code(name), None, "{name} refused");
        }
    }
}
