#!/usr/bin/env python3
"""Reports every function longer than a limit (default 100 lines) in the
project's C++ and shell sources; exits 1 when there is one.

    scripts/function_lengths.py [--root DIR] [--limit N] [--all] [PATH...]

A function's length is the physical lines of its body, from the line of its
opening brace to the line of its closing brace, both included (blank and
comment lines count: they are lines a reader scrolls through). Each finding
reads FILE:LINE: NAME: N lines, where LINE is where the declaration starts.

C++ (*.cc, *.h): a small scanner, not a compiler. It drops comments, string,
raw string and character literals and preprocessor lines, then follows braces.
A brace outside any function opens a function body when what precedes it
ends a parameter list: `)` (possibly followed by const, noexcept, override,
final, mutable, & or &&, or by a trailing `-> type`), a constructor's member
initialisers (`) : a_(x), b_{y} {`), or a lambda's capture list (`[x] {`).
Namespace, class, struct, union, enum and extern "C" braces and initialiser
lists are not functions; the scanner looks inside them for functions and
lambdas. A lambda or local class inside a function counts as part of that
function's lines, so a function is measured as the reader sees it. doctest's
TEST_CASE("...") { ... } is a function like any other.

Shell (*.sh, *.sh.mustache, and extensionless files whose first line names
bash or sh): `name() {` or `function name {` up to the first later line that
is `}` (optionally followed by redirections or a comment) at the same
indentation, skipping here-documents. This is the layout every script here
uses; a one-line `name() { ...; }` is one line long.

Why not clang-tidy's readability-function-size: it agrees on the functions
it sees (counting one line less) but spends 4-5 s of CPU on each
translation unit (about half an hour for the project on two cores, against
2 s here), and it does not see doctest's TEST_CASE bodies, which are macro
expansions; nor shell.

Which files: everything under the source folders below (agent, common,
controller, health, inventory: production; tests, fuzz, bench: the code
that proves and measures it; scripts, templates, packaging: shell), except
build outputs and recorded data (fuzz corpora, test fixtures), which are
not code anyone writes. roles/ is YAML: its inline scripts are no functions.
"""
import argparse
import os
import re
import sys

SOURCE_DIRS = ("agent", "common", "controller", "health", "inventory",
               "tests", "fuzz", "bench", "scripts", "templates", "packaging")
SKIP_DIRS = {"corpus", "fixtures", "__pycache__", ".git"}
CXX_SUFFIXES = (".cc", ".h", ".cpp", ".hpp")
SHELL_SUFFIXES = (".sh", ".sh.mustache")


# ---------------------------------------------------------------- C++ lexer

IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'(?=[0-9A-Za-z])|[0-9A-Za-z_.])*")
RAW_PREFIX = re.compile(r'(?:u8|u|U|L)?R"([^()\\ \t\n]{0,16})\(')
STRING_PREFIX = re.compile(r"(?:u8|u|U|L)?(['\"])")
PUNCT3 = ("->*", "<=>", "<<=", ">>=", "...")
PUNCT2 = ("::", "->", "&&", "||", "==", "!=", "<=", ">=", "++", "--", "+=",
          "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ".*")


class Token:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind = kind  # "id", "str", "num", "punct"
        self.text = text
        self.line = line

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


def _skip_preprocessor(src, i):
    """Returns the index just past the directive starting at src[i] == '#',
    following backslash-newline continuations and skipping comments in it."""
    n = len(src)
    while i < n and src[i] != "\n":
        if src.startswith("\\\n", i):
            i += 2
        elif src.startswith("/*", i):
            end = src.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                i += 1
        else:
            i += 1
    return i


def _skip_quoted(src, i, quote):
    """src[i] is the opening quote; returns the index past the closing one."""
    n = len(src)
    i += 1
    while i < n and src[i] != quote:
        if src[i] == "\\":
            i += 1
        elif src[i] == "\n":  # unterminated: stop at the line's end
            return i
        i += 1
    return i + 1


def cxx_tokens(src):
    """Tokens of C++ source without comments and preprocessor lines; string,
    raw string and character literals become one "str" token each."""
    tokens = []
    i, n, line = 0, len(src), 1
    at_line_start = True
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and src.startswith("\\\n", i):
            i += 2
            line += 1
            continue
        if c == "#" and at_line_start:
            end = _skip_preprocessor(src, i)
            line += src.count("\n", i, end)
            i = end
            continue
        at_line_start = False
        if src.startswith("//", i):
            while i < n and src[i] != "\n":
                if src.startswith("\\\n", i):
                    line += 1
                    i += 1
                i += 1
            continue
        if src.startswith("/*", i):
            end = src.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += src.count("\n", i, end)
            i = end
            continue
        raw = RAW_PREFIX.match(src, i)
        if raw:
            closing = ")" + raw.group(1) + '"'
            end = src.find(closing, raw.end())
            end = n if end < 0 else end + len(closing)
            tokens.append(Token("str", src[i:end], line))
            line += src.count("\n", i, end)
            i = end
            continue
        quoted = STRING_PREFIX.match(src, i)
        if quoted:
            end = _skip_quoted(src, quoted.start(1), quoted.group(1))
            tokens.append(Token("str", src[i:end], line))
            i = end
            continue
        ident = IDENT.match(src, i)
        if ident:
            tokens.append(Token("id", ident.group(), line))
            i = ident.end()
            continue
        number = NUMBER.match(src, i)
        if number:
            tokens.append(Token("num", number.group(), line))
            i = number.end()
            continue
        for text in (src[i:i + 3], src[i:i + 2]):
            if text in PUNCT3 or text in PUNCT2:
                break
        else:
            text = c
        tokens.append(Token("punct", text, line))
        i += len(text)
    return tokens


# ---------------------------------------------------------------- C++ braces

QUALIFIERS = {"const", "noexcept", "override", "final", "mutable", "volatile",
              "&", "&&", "try"}
ACCESS = {"public", "protected", "private"}
TYPE_KEYS = {"class", "struct", "union", "enum"}
LAMBDA_OPENERS = {"=", "(", ",", "{", "return", "[", ":", "?", "&&", "||", "!"}


class Function:
    def __init__(self, name, start_line, open_line, close_line):
        self.name = name
        self.start_line = start_line
        self.open_line = open_line
        self.close_line = close_line

    @property
    def length(self):
        return self.close_line - self.open_line + 1


def _strip_template_heads(head):
    """Drops leading access specifiers (`public:`) and `template <...>`
    groups (which may name class/typename)."""
    while len(head) >= 2 and head[0].text in ACCESS and head[1].text == ":":
        head = head[2:]
    while len(head) >= 2 and head[0].text == "template" and head[1].text == "<":
        depth, i = 0, 1
        while i < len(head):
            t = head[i].text
            if t == "<":
                depth += 1
            elif t == ">":
                depth -= 1
            elif t == ">>":
                depth -= 2
            i += 1
            if depth <= 0:
                break
        head = head[i:]
    return head


def _matching_open(head, close_index, open_text, close_text):
    depth = 0
    for i in range(close_index, -1, -1):
        if head[i].text == close_text:
            depth += 1
        elif head[i].text == open_text:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _top_level(head):
    """Indices of head's tokens outside (), [] and {} groups."""
    depth, out = 0, []
    for i, tok in enumerate(head):
        if tok.text in ("(", "[", "{"):
            if depth == 0:
                out.append(i)
            depth += 1
        elif tok.text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                out.append(i)
        elif depth == 0:
            out.append(i)
    return out


def _unclosed(head):
    """Whether head leaves a parenthesis or bracket open (a lambda argument)."""
    depth = 0
    for tok in head:
        if tok.text in ("(", "["):
            depth += 1
        elif tok.text in (")", "]"):
            depth -= 1
    return depth > 0


def _ends_parameter_list(head):
    """True when head (the tokens before a '{') ends like a function's or a
    lambda's declarator: `(...)` plus qualifiers, `-> type`, member
    initialisers or a capture list."""
    if not head:
        return False
    top = [head[i] for i in _top_level(head)]
    texts = [t.text for t in top]
    # A trailing return type: `) -> T {`, the arrow at top level.
    if "->" in texts:
        arrow = len(texts) - 1 - texts[::-1].index("->")
        before = texts[:arrow]
        while before and before[-1] in QUALIFIERS:
            before.pop()
        if before and before[-1] in (")", "]"):
            return True
    # Constructor member initialisers: `) : a_(x), b_{y}` (also `) noexcept :`).
    if texts and texts[-1] in (")", "}"):
        for colon in (i for i, t in enumerate(texts) if t == ":"):
            before = texts[:colon]
            while before and before[-1] in QUALIFIERS:
                before.pop()
            if before and before[-1] == ")":
                return True
    last = len(head) - 1
    while last >= 0 and head[last].text in QUALIFIERS:
        last -= 1
    if last < 0:
        return False
    if head[last].text == ")":
        opener = _matching_open(head, last, "(", ")")
        # `[captures](params) {`, `name(params) {`, `MACRO("x") {`, `operator()(...) {`
        return opener > 0
    if head[last].text == "]":
        # `[captures] {` is a lambda; `int a[] {`, `x[3] {` are arrays.
        opener = _matching_open(head, last, "[", "]")
        return opener == 0 or (opener > 0 and
                               head[opener - 1].text in LAMBDA_OPENERS)
    return False


def _kind_of_brace(head):
    """What a '{' outside any function opens: "function", "scope"
    (namespace, class, extern "C") or "init" (an initialiser list)."""
    head = _strip_template_heads(head)
    texts = [t.text for t in head]
    if "namespace" in texts:
        return "scope"
    if len(texts) >= 2 and texts[-2] == "extern" and head[-1].kind == "str":
        return "scope"
    first_paren = texts.index("(") if "(" in texts else len(texts)
    if any(t in TYPE_KEYS for t in texts[:first_paren]):
        # `struct X {`, `enum class E : int {`; but `struct X f() {` (C style)
        # ends in a parameter list after its first parenthesis.
        if first_paren == len(texts) or not _ends_parameter_list(head):
            return "scope"
        return "function"
    if _ends_parameter_list(head):
        return "function"
    return "init"


def _function_name(head):
    """A readable name: the (qualified) identifier before the first parameter
    list, "operator..." for operators, a TEST_CASE's string, or "lambda"."""
    head = _strip_template_heads(head)
    for i, tok in enumerate(head):
        if tok.text == "operator":
            symbol = "".join(t.text for t in head[i + 1:i + 3]
                             if t.text != "(" or head[i + 1].text == "(")
            return "operator" + (symbol if symbol == "()" else head[i + 1].text)
        if tok.text == "]" and i + 1 < len(head) and head[i + 1].text in ("(", "{"):
            return "lambda"
        if tok.text != "(" or i == 0 or head[i - 1].kind != "id":
            continue
        j = i - 1
        name = head[j].text
        while j >= 2 and head[j - 1].text == "::" and head[j - 2].kind == "id":
            name = head[j - 2].text + "::" + name
            j -= 2
        if i + 1 < len(head) and head[i + 1].kind == "str" and name.isupper():
            return f"{name}({head[i + 1].text})"
        return name
    return "lambda" if any(t.text == "]" for t in head) else "?"


def cxx_functions(src):
    """Every outermost function (or lambda) body in src, as Functions."""
    tokens = cxx_tokens(src)
    functions = []
    # Each open brace outside functions: (kind, the head before it). A head
    # is the list of tokens since the last boundary (;, { or }) in its scope.
    stack = []
    head = []
    function_depth = 0  # braces opened since (and including) the function's
    # The function being read: name, start line, open line, and the head
    # around it when it is a lambda inside an expression.
    current = None
    for tok in tokens:
        t = tok.text
        if tok.kind == "punct" and function_depth:
            if t == "{":
                function_depth += 1
            elif t == "}":
                function_depth -= 1
                if function_depth == 0:
                    name, start, opened, outer = current
                    functions.append(Function(name, start, opened, tok.line))
                    # A lambda passed as an argument (`thread_([this] {...})`
                    # in a member initialiser) stays part of its declaration.
                    head = outer + [Token("punct", "{", opened), tok] if outer else []
            continue
        if function_depth:
            continue
        if tok.kind == "punct" and t == "{":
            kind = _kind_of_brace(head)
            if kind == "function":
                if _unclosed(head):
                    current = ("lambda", tok.line, tok.line, head)
                else:
                    start = _strip_template_heads(head)
                    current = (_function_name(head),
                               (start[0] if start else tok).line, tok.line, None)
                function_depth = 1
                continue
            stack.append((kind, head))
            head = []
        elif tok.kind == "punct" and t == "}":
            if not stack:
                head = []  # unbalanced (a preprocessor branch): start afresh
                continue
            kind, outer = stack.pop()
            if kind == "init":
                # An initialiser stays part of the declaration around it
                # (`b_{y}` in a member initialiser list, `x{1};`).
                head = outer + [Token("punct", "{", tok.line), tok]
            else:
                head = []
        elif tok.kind == "punct" and t == ";":
            head = []
        elif tok.kind == "punct" and t == "," and stack and stack[-1][0] == "init":
            head = []  # the elements of an initialiser list are separate heads
        else:
            head.append(tok)
    return functions


# ---------------------------------------------------------------- shell

SHELL_FUNCTION = re.compile(
    r"^(?P<indent>[ \t]*)(?:function[ \t]+(?P<n1>[A-Za-z_][\w:.-]*)[ \t]*(?:\(\))?"
    r"|(?P<n2>[A-Za-z_][\w:.-]*)[ \t]*\(\))[ \t]*(?P<rest>.*)$")
HEREDOC = re.compile(r"(?<!<)<<(?!<)-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z_0-9]*)\1")


def _closes(line, indent):
    return re.match(re.escape(indent) + r"\}[ \t]*([<>|&;].*|#.*)?$", line) is not None


def shell_functions(text):
    """Shell functions in text (a script), as Functions."""
    lines = text.split("\n")
    functions = []
    heredoc_end = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if heredoc_end is not None:
            if line.strip() == heredoc_end:
                heredoc_end = None
            i += 1
            continue
        match = SHELL_FUNCTION.match(line)
        if not match or line.lstrip().startswith("#"):
            heredoc = HEREDOC.search(line)
            if heredoc and not line.lstrip().startswith("#"):
                heredoc_end = heredoc.group(2)
            i += 1
            continue
        name = match.group("n1") or match.group("n2")
        rest = match.group("rest")
        indent = match.group("indent")
        if re.search(r"\}[ \t]*([<>|&;].*|#.*)?$", rest) and "{" in rest:
            functions.append(Function(name, i + 1, i + 1, i + 1))
            i += 1
            continue
        opened = i + 1
        j = i + 1
        heredoc = HEREDOC.search(rest)
        inner_heredoc = heredoc.group(2) if heredoc else None
        while j < len(lines):
            if inner_heredoc is not None:
                if lines[j].strip() == inner_heredoc:
                    inner_heredoc = None
            elif _closes(lines[j], indent):
                break
            else:
                heredoc = HEREDOC.search(lines[j])
                if heredoc and not lines[j].lstrip().startswith("#"):
                    inner_heredoc = heredoc.group(2)
            j += 1
        if j == len(lines):  # no closing line found: not a function we can measure
            i += 1
            continue
        functions.append(Function(name, i + 1, opened, j + 1))
        i = j + 1
    return functions


# ---------------------------------------------------------------- files

def is_shell_script(path):
    if path.endswith(SHELL_SUFFIXES):
        return True
    if "." in os.path.basename(path):
        return False
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and (b"bash" in first or b"/sh" in first)


def source_files(root, paths):
    """(path, language) for each file under paths (relative to root)."""
    for top in paths:
        full = os.path.join(root, top)
        if os.path.isfile(full):
            walk = [(os.path.dirname(full), [], [os.path.basename(full)])]
        else:
            walk = os.walk(full)
        for folder, dirs, files in walk:
            dirs[:] = sorted(d for d in dirs
                             if d not in SKIP_DIRS and not d.startswith("build"))
            for name in sorted(files):
                path = os.path.join(folder, name)
                if name.endswith(CXX_SUFFIXES):
                    yield path, "c++"
                elif is_shell_script(path):
                    yield path, "shell"


def functions_in(path, language):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return cxx_functions(text) if language == "c++" else shell_functions(text)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--all", action="store_true",
                        help="print every function's length, not only the long ones")
    parser.add_argument("paths", nargs="*", default=list(SOURCE_DIRS))
    args = parser.parse_args(argv)
    root = os.path.normpath(args.root)
    long_ones, counted = [], {"c++": 0, "shell": 0}
    for path, language in source_files(root, args.paths):
        relative = os.path.relpath(path, root)
        for fn in functions_in(path, language):
            counted[language] += 1
            if args.all:
                print(f"{fn.length}\t{relative}:{fn.start_line}\t{fn.name}")
            elif fn.length > args.limit:
                long_ones.append((relative, fn))
    for relative, fn in long_ones:
        print(f"{relative}:{fn.start_line}: {fn.name}: {fn.length} lines")
    print(f"{len(long_ones)} function(s) over {args.limit} lines "
          f"({counted['c++']} C++ and {counted['shell']} shell functions measured)",
          file=sys.stderr if args.all else sys.stdout)
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
