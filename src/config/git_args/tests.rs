use super::*;

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn why(words: &[&str], allow: &[&str]) -> Option<String> {
    refused(&args(words), &args(allow))
}

#[test]
fn git_is_known_by_its_file_name() {
    for name in [
        "git",
        "/usr/bin/git",
        "./git",
        "GIT.EXE",
        "C:\\Git\\cmd\\git.exe",
    ] {
        assert!(is_git(name), "{name}");
    }
    for name in ["gitk", "git-lfs", "./scripts/git.sh", "legit"] {
        assert!(!is_git(name), "{name}");
    }
}

#[test]
fn program_keys_are_refused_in_every_spelling() {
    let refused_forms: &[&[&str]] = &[
        &["-c", "alias.x=!sh -c 'touch marker'", "x"],
        &["-c", "ALIAS.x=!touch m", "x"],
        &["-c", "Alias.X=!touch", "X"],
        &["-c", "alias.x= !touch", "x"],
        &["-c", " alias.x =!touch", "x"],
        &["-c", "core.pager=less -R", "log"],
        &["-c", "Core.Pager=less", "log"],
        &["-c", "core.sshCommand=ssh -i key", "fetch"],
        &["-c", "core.fsmonitor=./watch.sh", "status"],
        &["-c", "core.hooksPath=hooks", "commit"],
        &["-c", "core.editor=vim", "commit"],
        &["-c", "sequence.editor=touch", "rebase"],
        &["-c", "filter.f.clean=touch", "status"],
        &["-c", "filter.f.smudge=touch", "status"],
        &["-c", "filter.f.process=touch", "status"],
        &["-c", "diff.d.command=touch", "diff"],
        &["-c", "diff.d.textconv=touch", "diff"],
        &["-c", "diff.external=touch", "diff"],
        &["-c", "merge.m.driver=touch", "merge"],
        &["-c", "credential.helper=!touch", "fetch"],
        &["-c", "credential.https://x.helper=store", "fetch"],
        &["-c", "gpg.program=touch", "log"],
        &["-c", "gpg.ssh.program=touch", "log"],
        &["-c", "gpg.ssh.defaultKeyCommand=touch", "log"],
        &["-c", "pager.log=touch", "log"],
        &["-c", "remote.o.uploadpack=touch", "fetch"],
        &["-c", "remote.o.vcs=evil", "fetch"],
        &["-c", "uploadpack.packObjectsHook=touch", "fetch"],
        &["-c", "gc.recentObjectsHook=touch", "gc"],
        &["-c", "core.alternateRefsCommand=touch", "fetch"],
        &["-c", "sendemail.sendmailCmd=touch", "log"],
        &["-c", "trailer.t.command=touch", "log"],
        &["-c", "tar.tgz.command=touch", "archive"],
        &["-c", "interactive.diffFilter=touch", "add"],
        &["-c", "imap.tunnel=touch", "imap-send"],
        &["-c", "submodule.s.update=!touch", "submodule"],
        &["-c", "include.path=/tmp/x", "status"],
        &["-c", "includeIf.onbranch:main.path=/tmp/x", "status"],
        &["-c", "protocol.allow=always", "ls-remote"],
        &["-c", "protocol.ext.allow=user", "ls-remote"],
        &["-c", "some.future.fooCommand=touch", "status"],
        &["--config-env=alias.x=VAR", "x"],
        &["--config-env", "core.pager=VAR", "log"],
        &["--exec-path=/tmp", "status"],
        &["-c", "alias.x=ls-remote --upload-pack=touch .", "x"],
        &["-c", "alias.x=ls-remote --upl='touch m' .", "x"],
        &["ls-remote", "--upload-pack=touch", "."],
        &["ls-remote", "--upl", "touch", "."],
        &["fetch", "--upload-pack", "touch"],
        &["push", "--receive-pack=touch"],
        &["push", "--exec=touch"],
        &["archive", "--remote=.", "--exec=touch"],
        &["clone", "-u", "touch", ".", "d"],
        &["clone", "-qutouch", ".", "d"],
        &["clone", "-c", "alias.y=!touch", ".", "d"],
        &["clone", "--config=core.hooksPath=h", ".", "d"],
        &["clone", "--template=t", ".", "d"],
        &["init", "--templ=t"],
        &["rebase", "-x", "touch", "HEAD"],
        &["rebase", "--exe=touch", "HEAD"],
        &["grep", "-Otouch", "x"],
        &["grep", "-O", "x"],
        &["grep", "--open-files-in-pager", "x"],
        &["difftool", "HEAD"],
        &["mergetool"],
        &["filter-branch", "--tree-filter", "x"],
        &["bisect", "run", "touch"],
        &["submodule", "foreach", "touch"],
        &["-C", "sub", "-c", "core.pager=touch", "log"],
        &["--git-dir", ".git", "-c", "core.pager=touch", "log"],
    ];
    for form in refused_forms {
        assert!(why(form, &["git"]).is_some(), "{form:?} was not refused");
    }
}

#[test]
fn harmless_arguments_and_listed_programs_pass() {
    let allowed: &[(&[&str], &[&str])] = &[
        (&["status", "--porcelain"], &[]),
        (&["-c", "alias.x=status", "x"], &[]),
        (&["-c", "alias.st=status --short", "st"], &[]),
        (
            &["-c", "core.quotePath=false", "-c", "color.ui=never", "log"],
            &[],
        ),
        (&["-c", "color.pager=false", "log"], &[]),
        (&["-c", "advice.waitingForEditor=false", "log"], &[]),
        (&["-c", "core.pager=cat", "log"], &[]),
        (&["-c", "core.pager=", "log"], &[]),
        (&["-c", "pager.log=false", "log"], &[]),
        (&["-c", "core.fsmonitor=false", "status"], &[]),
        (&["-c", "core.hooksPath=/dev/null", "commit"], &[]),
        (&["-c", "core.editor=:", "commit"], &[]),
        (&["-c", "credential.helper=", "fetch"], &[]),
        (&["-c", "protocol.ext.allow=never", "fetch"], &[]),
        (&["-c", "protocol.file.allow=always", "fetch"], &[]),
        (&["-c", "diff.d.cachetextconv=true", "diff"], &[]),
        (&["-c", "safe.directory=*", "status"], &[]),
        (&["--config-env=user.name=NAME", "log"], &[]),
        (&["--exec-path"], &[]),
        (&["grep", "-c", "pattern"], &[]),
        (&["log", "-c", "--cc"], &[]),
        (&["ls-files", "-x", "*.o"], &[]),
        (&["cherry-pick", "-x", "HEAD"], &[]),
        (&["log", "--oneline", "--", "src"], &[]),
        (&["bisect", "start"], &[]),
        // The program named is listed.
        (&["-c", "core.pager=less", "log"], &["less"]),
        (&["-c", "alias.x=!./scripts/x.sh", "x"], &["./scripts/x.sh"]),
        (&["-c", "alias.x=!sh -c 'touch m'", "x"], &["sh"]),
        (&["-c", "core.pager=less -R", "log"], &["/bin/sh"]),
        (&["-c", "diff.d.textconv=strings", "diff"], &["strings"]),
        (
            &["ls-remote", "--upload-pack=git-upload-pack", "."],
            &["git-upload-pack"],
        ),
        (&["rebase", "-x", "make", "HEAD"], &["make"]),
        (&["-c", "alias.x=!git status", "x"], &["git"]),
    ];
    for (form, allow) in allowed {
        let mut list = vec!["git"];
        list.extend_from_slice(allow);
        assert_eq!(why(form, &list), None, "{form:?} with {allow:?}");
    }
}

#[test]
fn the_reasons_name_the_argument_and_the_program() {
    assert_eq!(
        why(&["-c", "alias.x=!sh -c 'touch marker'", "x"], &["git"]).unwrap(),
        "`-c alias.x=!sh -c 'touch marker'` makes git run `sh -c 'touch marker'` through \
             `sh -c`, and `settings.allow` does not list `sh` (an allowed git runs only listed \
             programs)"
    );
    assert_eq!(
        why(&["-c", "core.pager=less", "log"], &["git"]).unwrap(),
        "`-c core.pager=less` makes git run `less`, which `settings.allow` does not list \
             (an allowed git runs only listed programs)"
    );
    // A git word inside a value is read again.
    assert_eq!(
        why(
            &["-c", "alias.x=!git ls-remote --upload-pack touch .", "x"],
            &["git"]
        )
        .unwrap(),
        "`--upload-pack touch` makes git run `touch`, which `settings.allow` does not list \
             (an allowed git runs only listed programs)"
    );
    assert_eq!(
        why(
            &["-c", "alias.x=ls-remote --upload-pack=touch .", "x"],
            &["git"]
        )
        .unwrap(),
        "`--upload-pack=touch` makes git run `touch`, which `settings.allow` does not list \
             (an allowed git runs only listed programs) (in the alias `-c alias.x=ls-remote \
             --upload-pack=touch .`)"
    );
    assert_eq!(
        why(&["--config-env=alias.x=V", "x"], &["git"]).unwrap(),
        "`--config-env=alias.x=V` gives `alias.x` the value of an environment variable when \
             git runs, where the whitelist cannot see the program it names (give it with `-c`)"
    );
    assert_eq!(
        why(&["bisect", "run", "x"], &["git"]).unwrap(),
        "`git bisect run` runs the programs it is given or configured with"
    );
}

#[test]
fn aliases_are_split_as_git_splits_them() {
    assert_eq!(
        split_cmdline("ls-remote  --upl'oad-pack'=\"a b\" ."),
        Some(args(&["ls-remote", "--upload-pack=a b", "."]))
    );
    assert_eq!(split_cmdline("a \\\"b"), Some(args(&["a", "\"b"])));
    assert_eq!(split_cmdline("'a\\b'"), Some(args(&["a\\b"])));
    assert_eq!(split_cmdline("'open"), None);
    assert_eq!(split_cmdline("trailing\\"), None);
}

#[test]
fn nesting_is_bounded() {
    let allow = args(&["git"]);
    let reader = Reader { allow: &allow };
    assert!(reader.args(&args(&["status"]), MAX_DEPTH).is_ok());
    assert_eq!(
        reader.args(&args(&["status"]), MAX_DEPTH + 1),
        Err("nests aliases and commands too deeply to be checked".to_string())
    );
    // An alias of an alias of ... is read level by level.
    let mut value = "ls-remote --upload-pack=touch .".to_string();
    for _ in 0..3 {
        value = format!("-c 'alias.y={}' y", value.replace('\'', "'\"'\"'"));
    }
    assert!(why(&["-c", &format!("alias.x={value}"), "x"], &["git"]).is_some());
}
