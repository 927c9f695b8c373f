#!/usr/bin/env python3
"""Syntax-check PowerShell files with tree-sitter (no PowerShell needed).

Usage: python3 scripts/ps1_syntax.py FILE...

Exit codes:
  0  every file parsed with no ERROR or MISSING node
  1  at least one syntax problem; one line per problem on stdout:
       FILE:LINE:COL: syntax error near ...
     (LINE and COL are 1-based; COL counts characters)
  2  usage error or a file that cannot be read (one line on stderr)
  3  the tree_sitter / tree_sitter_powershell modules are not importable

Tested with (PyPI, Python 3.11):
  tree-sitter==0.26.1
  tree-sitter-powershell==0.26.4
These are the versions pinned by scripts/ps1-venv.sh. The API used is the one
of tree-sitter >= 0.22: Language(tree_sitter_powershell.language()) and
Parser(language); older 0.22/0.23 setters are tried as a fallback.

This is a parse check only, and tree-sitter's PowerShell grammar differs from
PowerShell's own parser in a few corners. A pass means "no syntax error
found", not "PowerShell would run it". Known false alarms with the versions
above: forms PowerShell accepts on one line but the grammar wants on separate
lines, e.g. `function f { param([int]$n) process { $n } }` (put param() and
process {} on their own lines) and `switch ($x) { 'a' { 1 } default { 2 } }`
(one clause per line, or separate clauses with `;`).
"""

import sys

try:
    import tree_sitter
    import tree_sitter_powershell
except ImportError as exc:  # pragma: no cover - depends on the environment
    sys.stderr.write(
        "ps1_syntax.py: cannot import tree_sitter / tree_sitter_powershell "
        "(%s); run scripts/ps1-venv.sh or "
        "pip install tree-sitter tree-sitter-powershell\n" % exc
    )
    sys.exit(3)


def make_parser():
    language = tree_sitter.Language(tree_sitter_powershell.language())
    try:
        return tree_sitter.Parser(language)
    except TypeError:
        parser = tree_sitter.Parser()
        if hasattr(parser, "set_language"):
            parser.set_language(language)
        else:
            parser.language = language
        return parser


def decode_source(raw):
    """Return UTF-8 bytes for the parser, and the text used for columns.

    PowerShell files are commonly UTF-8 with a BOM or UTF-16 (Windows
    PowerShell's default for some editors); the BOM is dropped.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    elif raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff"):
        raw = raw.decode("utf-16").encode("utf-8")
    return raw


def char_column(lines, row, byte_col):
    """1-based character column from tree-sitter's 0-based byte column."""
    if row < len(lines):
        prefix = lines[row][:byte_col]
        return len(prefix.decode("utf-8", errors="replace")) + 1
    return byte_col + 1


def snippet(source, node, limit=40):
    text = source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
    text = text.strip().splitlines()[0].strip() if text.strip() else ""
    if len(text) > limit:
        text = text[:limit] + "..."
    return text


def find_problems(source, root):
    """Yield (node, message) for each ERROR and MISSING node.

    The walk only descends into subtrees that contain an error, and not into
    an ERROR node itself, so one broken construct gives one report.
    """
    stack = [root]
    found = []
    while stack:
        node = stack.pop()
        if node.is_missing:
            found.append((node, "syntax error near %s (missing %r)" % (
                near(source, node), node.type)))
            continue
        if node.type == "ERROR":
            found.append((node, "syntax error near %r" % snippet(source, node)))
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    found.sort(key=lambda item: (item[0].start_point[0], item[0].start_point[1]))
    return found


def near(source, node):
    """Describe where a zero-width MISSING node sits."""
    if node.start_byte >= len(source.rstrip()):
        return "end of file"
    rest = source[node.start_byte:].decode("utf-8", errors="replace").strip()
    first = rest.splitlines()[0].strip() if rest else ""
    return repr(first[:40] + ("..." if len(first) > 40 else ""))


def check_file(parser, path):
    """Return the list of problem lines for one file."""
    with open(path, "rb") as handle:
        source = decode_source(handle.read())
    tree = parser.parse(source)
    root = tree.root_node
    if not root.has_error:
        return []
    lines = source.split(b"\n")
    out = []
    for node, message in find_problems(source, root):
        row, byte_col = node.start_point
        out.append("%s:%d:%d: %s" % (
            path, row + 1, char_column(lines, row, byte_col), message))
    if not out:
        # has_error without a located node should not happen; be safe.
        out.append("%s:1:1: syntax error near start of file" % path)
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: ps1_syntax.py FILE...\n")
        return 0 if argv else 2
    parser = make_parser()
    failed = False
    for path in argv:
        try:
            problems = check_file(parser, path)
        except OSError as exc:
            sys.stderr.write("ps1_syntax.py: %s: cannot read: %s\n" % (path, exc.strerror or exc))
            return 2
        except UnicodeDecodeError as exc:
            sys.stderr.write("ps1_syntax.py: %s: cannot decode: %s\n" % (path, exc))
            return 2
        for line in problems:
            print(line)
        if problems:
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
