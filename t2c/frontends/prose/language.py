"""The tensor-expression language of ```t2c blocks: tokens, syntax tree, parser.

    parse(blocks) -> [Assign | For | While | Compact | ...];  SpecSyntaxError

Takes the text of a spec's formal blocks, each with the spec line it starts on; gives the
statements, every node carrying its spec line and column. Refuses malformed text with
`SpecSyntaxError(message, line, col, hint)`, to which the caller adds the file (a UserError).
Precedence is C's, but a comparison as an operand of `&`, `|` or `^` without parentheses is
refused (C's trap `x & 1 == 0`); `max(a, b)` is the function and `max(k: e)` the reduction.
The grammar: docs/specs.md, "Grammar".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

REDUCERS = ("sum", "prod", "max", "min")
SORTS = ("sort", "sort_desc", "argsort", "argsort_desc")   # whole statements: `Y[r, q] = sort(i: X[r, i])`
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
ASSIGN_OPS = ("=", "+=", "-=", "*=", "/=")
KEYWORDS = ("for", "in", "let", "while")
STEPS = ("halving", "doubling")        # geometric steps of a `for` (after its range)


class SpecSyntaxError(Exception):
    def __init__(self, message, line, col, hint=None):
        super().__init__(message)
        self.message, self.line, self.col, self.hint = message, line, col, hint


# -- syntax tree ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Node:
    line: int
    col: int


@dataclass(frozen=True)
class Num(Node):
    text: str

    @property
    def is_real(self) -> bool:
        return not self.text.lower().startswith("0x") and any(c in self.text for c in ".eE")

    @property
    def value(self) -> int:
        """The value of an integer literal (decimal or 0x hexadecimal, optional u suffix)."""
        return int(self.text.rstrip("uU"), 16 if self.text.lower().startswith("0x") else 10)


@dataclass(frozen=True)
class Name(Node):
    id: str


@dataclass(frozen=True)
class Ref(Node):
    array: str
    subs: tuple


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple


@dataclass(frozen=True)
class Binder(Node):
    name: str
    lo: object = None          # Node or None: 0 when hi is given, inferred when both are None
    hi: object = None


@dataclass(frozen=True)
class Reduce(Node):
    op: str                    # REDUCERS, SORTS, or a name the compiler refuses (`mean(j: ...)`)
    binders: tuple
    body: object
    text: str = field(default="", compare=False)    # as written, for messages


@dataclass(frozen=True)
class BinOp(Node):
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class UnOp(Node):
    op: str
    operand: object


@dataclass(frozen=True)
class LhsIndex(Node):
    """One subscript of an assignment's target: a new index (with an optional range)
    or an expression over names already bound (for-loop variables, sizes)."""
    expr: object
    lo: object = None
    hi: object = None


@dataclass(frozen=True)
class Assign(Node):
    array: str
    subs: tuple                # LhsIndex, empty for a 0-d target
    op: str
    value: object
    let: bool = False          # `let`: declares a temporary (not a parameter of the kernel)
    dtype: str | None = None   # its element type as written (`let m: double[i] = ...`), or inferred


@dataclass(frozen=True)
class Target(Node):
    array: str
    subs: tuple                # LhsIndex, empty for a 0-d target


@dataclass(frozen=True)
class Compact(Node):
    """`y[k], ..., n = compact(i: E, ... where P)`: the values E of the i where P holds, in
    increasing i, at positions k = 0, 1, ... of the array targets; their number in n."""
    targets: tuple             # Target: the arrays, then the count
    binder: object             # Binder i
    values: tuple              # one per array target
    cond: object               # P


@dataclass(frozen=True)
class For(Node):
    var: str
    lo: object
    hi: object
    body: tuple = field(default=())
    step: str | None = None    # None (+1), "halving" or "doubling"


@dataclass(frozen=True)
class While(Node):
    cond: object
    body: tuple = field(default=())


def walk(node):
    """Every node of an expression tree, parents first."""
    yield node
    if isinstance(node, Ref):
        for s in node.subs:
            yield from walk(s)
    elif isinstance(node, Call):
        for a in node.args:
            yield from walk(a)
    elif isinstance(node, Reduce):
        for b in node.binders:
            for e in (b.lo, b.hi):
                if e is not None:
                    yield from walk(e)
        yield from walk(node.body)
    elif isinstance(node, BinOp):
        yield from walk(node.left)
        yield from walk(node.right)
    elif isinstance(node, UnOp):
        yield from walk(node.operand)


# -- tokens --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Token:
    kind: str                  # NAME NUMBER OP NEWLINE INDENT DEDENT EOF
    text: str
    line: int
    col: int


_TOKEN = re.compile(r"""
    (?P<space>[ \t]+) | (?P<comment>\#[^\n]*) | (?P<newline>\n)
  | (?P<number>0[xX][0-9a-fA-F]+[uU]?|\d+[uU](?![\w.])|(?:\d+(?:\.(?!\.)\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>\.\.|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|[-+*/%<>=!~&|^()\[\],:;{}])
""", re.VERBOSE)


def tokenize(blocks) -> list[Token]:
    """Tokens of the blocks [(first spec line, text)], with Python-like INDENT/DEDENT
    outside brackets and braces."""
    out = []
    for first_line, text in blocks:
        out.extend(_tokenize_block(first_line, text))
    out.append(Token("EOF", "", out[-1].line if out else 1, 1))
    return out


def _tokenize_block(first_line, text):
    toks, stack, indents = [], [], [0]
    line, line_start, pos = first_line, 0, 0
    at_line_start = True
    while pos < len(text):
        if at_line_start and stack:
            at_line_start = False                      # continuation or braced body: free indentation
        if at_line_start:
            m = re.match(r"[ \t]*", text[pos:])
            rest = text[pos + m.end():]
            if rest.startswith("\n") or rest.startswith("#") or not rest:
                pass                                   # blank or comment line: no indentation
            else:
                width = len(m.group().expandtabs(4))
                col = m.end() + 1
                if width > indents[-1]:
                    indents.append(width)
                    toks.append(Token("INDENT", "", line, col))
                else:
                    while width < indents[-1]:
                        indents.pop()
                        toks.append(Token("DEDENT", "", line, col))
                    if width != indents[-1]:
                        raise SpecSyntaxError("this line's indentation matches no enclosing block",
                                              line, col, "indent a loop body consistently")
            at_line_start = False
        m = _TOKEN.match(text, pos)
        col = pos - line_start + 1
        if not m:
            raise SpecSyntaxError(f"unexpected character '{text[pos]}'", line, col,
                                  "the t2c language uses names, numbers and + - * / % < > = ! ~ & | ^ ( ) [ ] , : ; { } ..")
        kind = m.lastgroup
        value = m.group()
        if kind == "newline":
            if not stack or stack[-1][0] == "{":
                if toks and toks[-1].kind not in ("NEWLINE", "INDENT", "DEDENT") and \
                        not (toks[-1].kind == "OP" and toks[-1].text == "{"):
                    toks.append(Token("NEWLINE", "", line, col))
            line += 1
            line_start = m.end()
            at_line_start = True
        elif kind in ("number", "name"):
            toks.append(Token(kind.upper(), value, line, col))
        elif kind == "op":
            if value in "([{":
                stack.append((value, line, col))
            elif value in ")]}":
                want = {")": "(", "]": "[", "}": "{"}[value]
                if not stack or stack[-1][0] != want:
                    raise SpecSyntaxError(f"unbalanced '{value}'", line, col,
                                          "check the brackets of this statement")
                stack.pop()
            toks.append(Token("OP", value, line, col))
        pos = m.end()
    if stack:
        opened, at_line, at_col = stack[-1]
        raise SpecSyntaxError(f"'{opened}' is never closed", at_line, at_col,
                              "close every bracket before the block ends")
    if toks and toks[-1].kind != "NEWLINE":
        toks.append(Token("NEWLINE", "", line, 1))
    while len(indents) > 1:
        indents.pop()
        toks.append(Token("DEDENT", "", line, 1))
    return toks


# -- parser --------------------------------------------------------------------------------

class _Backtrack(Exception):
    pass


class Parser:
    def __init__(self, tokens, source=None):
        self.toks, self.i = tokens, 0
        self.source = source or {}            # spec line -> its text, to quote what was written
        self.grouped: dict[int, object] = {}   # id -> parenthesized node (held, so no id is reused)

    # token helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k=1) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, text, kind="OP") -> bool:
        return self.tok.kind == kind and self.tok.text == text

    def take(self) -> Token:
        t = self.tok
        self.i += 1
        return t

    def expect(self, text, hint=None) -> Token:
        if not self.at(text):
            self.error(f"expected '{text}'", hint)
        return self.take()

    def error(self, message, hint=None):
        t = self.tok
        found = {"NEWLINE": "the end of the line", "EOF": "the end of the block",
                 "INDENT": "an indented line", "DEDENT": "the end of an indented body"}.get(t.kind, f"'{t.text}'")
        raise SpecSyntaxError(f"{message}, found {found}", t.line, t.col, hint)

    def written(self, first: Token, last: Token) -> str:
        """The spec text from token `first` to token `last`, on one line."""
        parts = []
        for n in range(first.line, last.line + 1):
            text = self.source.get(n, "")
            end = last.col - 1 + len(last.text) if n == last.line else len(text.split("#")[0])
            parts.append(text[first.col - 1 if n == first.line else 0:end].strip())
        return " ".join(p for p in parts if p)

    def name(self, what="a name") -> Token:
        if self.tok.kind != "NAME" or self.tok.text in KEYWORDS:
            self.error(f"expected {what}")
        return self.take()

    # statements
    def program(self) -> list:
        out = []
        while self.tok.kind != "EOF":
            if self.tok.kind == "NEWLINE" or self.at(";"):
                self.take()
            elif self.tok.kind == "INDENT":
                self.error("unexpected indentation", "only the body of a `for ... :` is indented")
            elif self.tok.kind == "DEDENT":
                self.take()
            else:
                out.append(self.statement())
        return out

    def statement(self):
        if self.at("for", "NAME"):
            return self.for_loop()
        if self.at("while", "NAME"):
            start = self.take()
            cond = self.expr()
            return While(start.line, start.col, cond, self.body(start))
        if self.compacts():
            return self.compact()
        return self.assignment()

    def compacts(self) -> bool:
        """Whether the statement here assigns `compact(...)`: its '=' (outside brackets) is
        followed by `compact (`."""
        depth, k = 0, self.i
        while (t := self.toks[k]).kind not in ("NEWLINE", "EOF", "DEDENT") and not (depth == 0 and t.text in (";", "}")):
            if t.kind == "OP":
                depth += (t.text in ("(", "[", "{")) - (t.text in (")", "]", "}"))
                if depth == 0 and t.text in ASSIGN_OPS:
                    after = self.toks[k + 1:k + 3]
                    return len(after) == 2 and after[0].text == "compact" and after[1].text == "("
            k += 1
        return False

    def compact(self) -> Compact:
        """`y[k], idx[k], n = compact(i: x[i], i where x[i] > t)`."""
        form = "`y[k], n = compact(i: x[i] where x[i] > 0)`"
        targets = []
        while True:
            t = self.name("a target of compact (an array `y[k]` or the count `n`)")
            subs = []
            if self.at("["):
                self.take()
                subs.append(self.lhs_index())
                while self.at(","):
                    self.take()
                    subs.append(self.lhs_index())
                self.expect("]", "separate subscripts with ','")
            targets.append(Target(t.line, t.col, t.text, tuple(subs)))
            if not self.at(","):
                break
            self.take()
        if not self.at("="):
            self.error("expected '=' before compact(...)", f"write {form}")
        self.take()
        start = self.take()
        self.expect("(")
        binder = self.binder(strict=True)
        self.expect(":", f"write {form}: the index, ':', the values, 'where' and the condition")
        values = [self.expr()]
        while self.at(","):
            self.take()
            values.append(self.expr())
        if not self.at("where", "NAME"):
            self.error("expected 'where' and the condition of the kept elements",
                       f"write {form}; a value per array target, separated by ','")
        self.take()
        cond = self.expr()
        self.expect(")", f"close compact(...): {form}")
        if self.tok.kind == "NEWLINE" or self.at(";"):
            self.take()
        elif not (self.at("}") or self.tok.kind in ("EOF", "DEDENT")):
            self.error("expected the end of the statement", "one statement a line")
        first = targets[0]
        return Compact(first.line, first.col, tuple(targets), binder, tuple(values), cond)

    def for_loop(self) -> For:
        start = self.take()
        var = self.name("the loop variable after 'for'").text
        if not self.at("in", "NAME"):
            self.error("expected 'in' after the loop variable", "write `for t in 0..tsteps:`")
        self.take()
        lo, hi = self.range_("the loop range")
        step = self.take().text if self.tok.kind == "NAME" and self.tok.text in STEPS else None
        return For(start.line, start.col, var, lo, hi, self.body(start), step)

    def body(self, start) -> tuple:
        """The body of a `for` or `while`: indented, braced, or one statement after ':'."""
        if self.at("{"):
            self.take()
            body = []
            while not self.at("}"):
                if self.tok.kind == "NEWLINE" or self.at(";"):
                    self.take()
                elif self.tok.kind == "EOF":
                    self.error("expected '}' closing the loop body")
                else:
                    body.append(self.statement())
            self.take()
        else:
            self.expect(":", "a loop header ends with ':' (indented body) or '{' (braced body)")
            if self.tok.kind == "NEWLINE":
                self.take()
                if self.tok.kind != "INDENT":
                    self.error("expected an indented loop body")
                self.take()
                body = []
                while self.tok.kind not in ("DEDENT", "EOF"):
                    if self.tok.kind == "NEWLINE" or self.at(";"):
                        self.take()
                    else:
                        body.append(self.statement())
                if self.tok.kind == "DEDENT":
                    self.take()
            else:
                body = [self.assignment()]
        if not body:
            raise SpecSyntaxError("the loop body is empty", start.line, start.col,
                                  "give the loop at least one statement")
        return tuple(body)

    def range_(self, what):
        lo = self.expr()
        if not self.at(".."):
            self.error(f"expected '..' in {what}", "ranges are written lo..hi (hi excluded)")
        self.take()
        return lo, self.expr()

    def assignment(self) -> Assign:
        let = self.take() if self.at("let", "NAME") else None
        t = self.name("the temporary's name after 'let'" if let else
                      "a statement (an assignment such as `y[i] = ...`, or a `for` loop)")
        dtype = None
        if let and self.at(":"):
            self.take()
            dtype = self.name("an element type after ':' (float, double, int, long)").text
        subs = []
        if self.at("["):
            self.take()
            while True:
                subs.append(self.lhs_index())
                if self.at(","):
                    self.take()
                    continue
                self.expect("]", "separate subscripts with ','")
                break
        if not (self.tok.kind == "OP" and self.tok.text in ASSIGN_OPS):
            self.error(f"expected '=' after the target '{t.text}'",
                       "a statement assigns to an array: `y[i] = ...`")
        if let and not self.at("="):
            self.error(f"expected '=' after the temporary '{t.text}'", "`let` defines it: `let m[i] = ...`")
        op = self.take().text
        value = self.expr()
        if self.tok.kind == "NEWLINE" or self.at(";"):
            self.take()
        elif not (self.at("}") or self.tok.kind in ("EOF", "DEDENT")):
            self.error("expected the end of the statement",
                       "one statement a line; check for a missing operator or bracket")
        start = let or t
        return Assign(start.line, start.col, t.text, tuple(subs), op, value, let is not None, dtype)

    def lhs_index(self) -> LhsIndex:
        t = self.tok
        if t.kind == "NAME" and self.peek().kind == "NAME" and self.peek().text == "in":
            self.take()
            self.take()
            lo, hi = self.range_("the index range")
            return LhsIndex(t.line, t.col, Name(t.line, t.col, t.text), lo, hi)
        return LhsIndex(t.line, t.col, self.expr())

    # expressions
    def expr(self):
        return self.binary_left(self.and_, ("||",))

    def and_(self):
        return self.binary_left(self.bit_or, ("&&",))

    def bit_or(self):
        return self.binary_left(self.bit_xor, ("|",))

    def bit_xor(self):
        return self.binary_left(self.bit_and, ("^",))

    def bit_and(self):
        return self.binary_left(self.bit_operand, ("&",))

    def bit_operand(self):
        """An operand of & | ^: C would bind `x & 1 == 0` as `x & (1 == 0)`, so a bare
        comparison next to one of them is refused rather than silently meaning that."""
        before = self.toks[self.i - 1] if self.i else None
        e = self.comparison()
        if isinstance(e, BinOp) and e.op in COMPARISONS and id(e) not in self.grouped and \
                any(t is not None and t.kind == "OP" and t.text in ("&", "|", "^")
                    for t in (before, self.tok)):
            raise SpecSyntaxError("a comparison next to '&', '|' or '^' needs parentheses",
                                  e.line, e.col, "C binds `x & 1 == 0` as `x & (1 == 0)`: write "
                                  "`(x & 1) == 0`, or use && and || to combine conditions")
        return e

    def comparison(self):
        left = self.shift()
        if self.tok.kind == "OP" and self.tok.text in COMPARISONS:
            t = self.take()
            left = BinOp(t.line, t.col, t.text, left, self.shift())
            if self.tok.kind == "OP" and self.tok.text in COMPARISONS:
                self.error("comparisons do not chain", "write `a < b && b < c`")
        return left

    def shift(self):
        return self.binary_left(self.additive, ("<<", ">>"))

    def additive(self):
        return self.binary_left(self.multiplicative, ("+", "-"))

    def multiplicative(self):
        return self.binary_left(self.unary, ("*", "/", "%"))

    def binary_left(self, sub, ops):
        left = sub()
        while self.tok.kind == "OP" and self.tok.text in ops:
            t = self.take()
            left = BinOp(t.line, t.col, t.text, left, sub())
        return left

    def unary(self):
        if self.tok.kind == "OP" and self.tok.text in ("-", "+", "!", "~"):
            t = self.take()
            return UnOp(t.line, t.col, t.text, self.unary())
        return self.primary()

    def primary(self):
        t = self.tok
        if t.kind == "NUMBER":
            self.take()
            return Num(t.line, t.col, t.text)
        if self.at("("):
            self.take()
            e = self.expr()
            self.expect(")", "close the parenthesis")
            self.grouped[id(e)] = e
            return e
        if t.kind != "NAME" or t.text in KEYWORDS:
            self.error("expected a number, a name or '('",
                       "an operand is a number, a name, A[i, j], f(x), sum(k: ...) or (...)")
        self.take()
        if t.text == "compact" and self.at("("):
            raise SpecSyntaxError("compact(...) is a whole statement, not part of an expression", t.line, t.col,
                                  "write it alone on the right side: `y[k], n = compact(i: x[i] where x[i] > 0)`")
        if self.at("["):
            self.take()
            subs = [self.expr()]
            while self.at(","):
                self.take()
                subs.append(self.expr())
            self.expect("]", "separate subscripts with ',': A[i, j]")
            return Ref(t.line, t.col, t.text, tuple(subs))
        if self.at("("):
            # NAME(k: body) is a reduction, also with a name that is none (`mean`: the compiler
            # says which reductions there are); NAME(a, b) a function, max(a, b) among them.
            if t.text in REDUCERS + SORTS or self.colon_inside():
                start = self.i
                try:
                    return self.reduction(t)
                except (_Backtrack, SpecSyntaxError):
                    if t.text in ("sum", "prod"):
                        self.i = start
                        return self.reduction(t, strict=True)
                    self.i = start
            self.take()
            args = []
            if not self.at(")"):
                args.append(self.expr())
                while self.at(","):
                    self.take()
                    args.append(self.expr())
            self.expect(")", "close the argument list")
            return Call(t.line, t.col, t.text, tuple(args))
        return Name(t.line, t.col, t.text)

    def colon_inside(self) -> bool:
        """At '(': a ':' stands between it and its ')' (a reduction's, `f(k: body)`)."""
        depth, k = 0, self.i
        while (t := self.toks[k]).kind != "EOF":
            if t.kind == "OP":
                depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(t.text, 0)
                if depth == 0 or (depth == 1 and t.text == ":"):
                    return depth == 1
            k += 1
        return False

    def reduction(self, t, strict=False):
        self.expect("(")
        binders = [self.binder(strict)]
        while self.at(","):
            self.take()
            binders.append(self.binder(strict))
        if not self.at(":"):
            if not strict:
                raise _Backtrack()
            self.error(f"expected ':' after the indices of {t.text}(...)",
                       f"write {t.text}(k: body), {t.text}(k < i: body) or {t.text}(k in lo..hi: body)")
        self.take()
        body = self.expr()
        end = self.expect(")", f"close {t.text}(...)")
        return Reduce(t.line, t.col, t.text, tuple(binders), body, self.written(t, end))

    def binder(self, strict):
        if self.tok.kind != "NAME" or self.tok.text in KEYWORDS:
            if not strict:
                raise _Backtrack()
            self.error("expected a reduction index")
        t = self.take()
        if self.at("in", "NAME"):
            self.take()
            lo, hi = self.range_("the reduction range")
            return Binder(t.line, t.col, t.text, lo, hi)
        if self.at("<") or self.at("<="):
            op = self.take()
            bound = self.shift()
            if op.text == "<=":
                bound = BinOp(op.line, op.col, "+", bound, Num(op.line, op.col, "1"))
            return Binder(t.line, t.col, t.text, Num(t.line, t.col, "0"), bound)
        return Binder(t.line, t.col, t.text)


def parse(blocks) -> list:
    """Statements of the formal blocks [(first spec line, text)]; raises SpecSyntaxError."""
    source = {first + n: text for first, block in blocks for n, text in enumerate(block.split("\n"))}
    return Parser(tokenize(blocks), source).program()
