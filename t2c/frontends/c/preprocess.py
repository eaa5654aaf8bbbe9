"""Run the C preprocessor the way t2c reads kernels, and read dataset macros.

Takes a C file and `size_defines` (`N=n`: each size macro bound to its runtime parameter, so
`_PB_N`, a bare `N` in an init function and `t <= TSTEPS` all read the call's sizes); gives its
preprocessed text, line markers kept so pycparser's coordinates are the file's own lines, and
its size macros' values at each PolyBench dataset. Standard headers are t2c's stand-ins
(`include/`: pycparser reads C99, not a system's headers); prototypes have runtime extents
(POLYBENCH_USE_C99_PROTO). docs/usage.md, "Reading C".
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

from ...errors import UserError
from ...runtime.process import COMPILE_TIMEOUT, MAX_OUTPUT, clean_env, run_process

FAKE_INCLUDE = Path(__file__).parent / "include"
POLYBENCH_DEFINES = ("POLYBENCH_USE_C99_PROTO",)
GNU_NOISE = ("__attribute__(x)=", "__extension__=", "__restrict=restrict", "__restrict__=restrict",
             "__inline=inline", "__inline__=inline", "__const=const")


def include_dirs(path: Path) -> list[Path]:
    """The file's folder, and the nearest `utilities/` above it holding polybench.h."""
    dirs = [path.parent]
    for up in [path.parent, *path.parent.parents][:5]:
        if (up / "utilities" / "polybench.h").exists():
            dirs.append(up / "utilities")
            break
    return dirs


def _cpp_argv(path: Path, dataset: str | None, defines, cc: str) -> list[str]:
    argv = [cc, "-E", "-std=c99", "-nostdinc", f"-I{FAKE_INCLUDE}"]
    argv += [f"-I{d}" for d in include_dirs(path)]
    argv += [f"-D{d}" for d in (*POLYBENCH_DEFINES, *GNU_NOISE, *defines)]
    if dataset:
        argv.append(f"-D{dataset}_DATASET")
    return argv + [str(path)]


def _cpp_error(path: Path, stderr: str) -> UserError:
    m = re.search(r"^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$", stderr, re.M)
    if m and m.group(1).startswith(str(FAKE_INCLUDE)) and m.group(4).startswith("#error"):
        at = re.search(r"^In file included from (.*?):(\d+)", stderr, re.M)     # t2c's stand-in refuses a header
        what, _, hint = m.group(4).removeprefix("#error").strip().strip('"').partition("; ")
        return UserError(what, file=at.group(1) if at else str(path), line=int(at.group(2)) if at else None,
                         hint=hint or None)
    if m:
        hint = ("put the header beside the file or in a utilities/ folder above it (t2c looks there)"
                if "No such file" in m.group(4) else "fix the preprocessor error")
        return UserError(m.group(4), file=m.group(1), line=int(m.group(2)), col=int(m.group(3)),
                         hint=hint)
    return UserError(f"the C preprocessor failed: {stderr.strip()[:300]}", file=str(path))


def _run_cpp(path: Path, argv: list[str]) -> str:
    """The preprocessor's output on the file; a UserError naming it when cpp fails, runs past
    `COMPILE_TIMEOUT` (killed with its processes) or prints more than t2c reads of a program."""
    r = run_process(argv, env=clean_env(), timeout=COMPILE_TIMEOUT)
    if r.timed_out:
        raise UserError(f"the C preprocessor did not finish within {COMPILE_TIMEOUT:.0f} s", file=str(path),
                        hint="look for a macro that expands without bound or an #include of a very large file")
    if r.returncode != 0:
        raise _cpp_error(path, r.stderr)
    if r.output_cut:
        raise UserError(f"the preprocessed file is larger than t2c reads ({MAX_OUTPUT >> 20} MiB)", file=str(path),
                        hint="include only the headers the kernel needs")
    return r.stdout


def compiler_error(path: Path, defines: tuple = (), cc: str = "gcc") -> tuple[int, int, str] | None:
    """The C compiler's first error in the file, (line, col, message), for a parse error that
    pycparser reports without a place; None when the compiler accepts the file."""
    argv = _cpp_argv(path, None, defines, cc)
    argv[1] = "-fsyntax-only"
    try:
        proc = run_process(argv, env=clean_env(), timeout=COMPILE_TIMEOUT)
    except OSError:
        return None
    m = re.search(rf"^{re.escape(str(path))}:(\d+):(\d+): (?:fatal )?error: (.*)$", proc.stderr, re.M)
    return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None


def _stamp(path: Path) -> tuple:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size)


def preprocess(path: Path, dataset: str | None = None, defines: tuple = (), cc: str = "gcc") -> str:
    return _preprocess(path, _stamp(path), dataset, defines, cc)


def digest(path: Path, memo: Path) -> str:
    """A hash of `preprocess(path)`, remembered in the folder `memo` against the size and mtime of
    every file the preprocessor read (make's rule), so an unchanged kernel costs stats, not a run."""
    entry = memo / (hashlib.sha256(" ".join(_cpp_argv(path, None, (), "gcc")).encode()).hexdigest()[:24] + ".json")
    try:
        seen = json.loads(entry.read_text())
        if all(list(_stamp(Path(f))) == st for f, st in seen["deps"].items()):
            return seen["digest"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    with tempfile.TemporaryDirectory() as tmp:
        dep = Path(tmp, "deps")
        argv = _cpp_argv(path, None, (), "gcc")
        text = _run_cpp(path, argv[:2] + ["-MD", "-MF", str(dep)] + argv[2:])
        files = re.sub(r"\\\n", " ", dep.read_text()).split(":", 1)[1].split()
    got = hashlib.sha256(text.encode()).hexdigest()[:20]
    memo.mkdir(parents=True, exist_ok=True)
    part = entry.with_suffix(f".{os.getpid()}")
    part.write_text(json.dumps({"deps": {f: list(_stamp(Path(f))) for f in files}, "digest": got}))
    os.replace(part, entry)
    return got


def macros(path: Path, dataset: str | None, defines: tuple = (), cc: str = "gcc") -> dict[str, str]:
    """Object-like macros defined after preprocessing the file at a dataset."""
    return _macros(path, _stamp(path), dataset, defines, cc)


@lru_cache(maxsize=256)
def _preprocess(path: Path, stamp, dataset, defines, cc) -> str:
    return _run_cpp(path, _cpp_argv(path, dataset, defines, cc))


@lru_cache(maxsize=256)
def _macros(path: Path, stamp, dataset, defines, cc) -> dict[str, str]:
    argv = _cpp_argv(path, dataset, defines, cc)
    argv.insert(2, "-dM")
    out = {}
    for line in _run_cpp(path, argv).splitlines():
        m = re.match(r"#define (\w+) (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def int_value(text: str | None) -> int | None:
    """The value of a macro body such as `1000`, `(20)` or `2 * 10`; None otherwise."""
    if text is None or not re.fullmatch(r"[\d\s()+\-*]+", text):
        return None
    try:
        return int(eval(text, {"__builtins__": {}}))      # digits and + - * ( ) only
    except Exception:
        return None
