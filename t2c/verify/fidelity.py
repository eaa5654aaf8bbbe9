"""Fidelity: the normalized reference computes what the original program computed.

For a C source with its own `main` (PolyBench style), build the original with
`-DPOLYBENCH_DUMP_ARRAYS` at a dataset, read its dump from stderr, run the IS
reference on the original init at the same sizes, print each output the way the
original prints it (its DATA_PRINTF_MODIFIER at that dataset, e.g. PolyBench's
"%0.2lf " or a full-precision "%0.16lf "; C's and Python's formatting both round
the binary value exactly) and compare the text value by value.  Both sides are
built with the same flags, so they must agree exactly.
"""
from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import config
from ..frontends.c.preprocess import include_dirs
from ..ir import FLOAT_DTYPES, Kernel
from ..runtime.build import BUSY_COMPILER
from ..runtime.process import COMPILE_TIMEOUT, run_process
from .reference import run_reference

DUMP = re.compile(r"begin dump: (\S+)(.*?)end   dump: \1", re.S)


@dataclass(frozen=True)
class Fidelity:
    ok: bool | None           # None: nothing to compare (the program dumps no arrays)
    detail: str


def original_dump(source: Path, dataset: str, timeout: float) -> dict[str, list[str]]:
    cfg = config.load()
    dirs = include_dirs(source)
    polybench_c = [str(d / "polybench.c") for d in dirs if (d / "polybench.c").exists()]
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "orig"
        cmd = [cfg.cc, *cfg.ref_cflags, *[f"-I{d}" for d in dirs], f"-D{dataset}_DATASET",
               "-DPOLYBENCH_DUMP_ARRAYS", str(source), *polybench_c, "-o", str(exe), "-lm"]
        proc = run_process(cmd, timeout=COMPILE_TIMEOUT)
        if proc.timed_out:
            raise RuntimeError(f"the original program {source} did not build within {COMPILE_TIMEOUT:.0f} s "
                               f"(stopped); {BUSY_COMPILER}")
        if proc.returncode != 0:
            raise RuntimeError(f"the original program does not build: {proc.stderr[:400]}")
        r = run_process([exe], timeout=timeout)
        if not r.ok:
            raise RuntimeError(f"the original program failed: {r.describe()}")
    return {m.group(1): m.group(2).split() for m in DUMP.finditer(r.stderr)}


def printf_modifier(source: Path, dataset: str) -> str | None:
    """The program's DATA_PRINTF_MODIFIER at a dataset, as a Python %-format (None: not defined)."""
    from ..frontends.c.preprocess import macros
    text = macros(Path(source).resolve(), dataset).get("DATA_PRINTF_MODIFIER", "")
    m = re.fullmatch(r'"(%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|L)?[diouxXeEfgG])\s*"', text.strip())
    return m.group(1) if m else None


def _printed(value, dtype: str, fmt: str | None = None) -> str:
    if fmt:
        return fmt % (float(value) if fmt[-1] in "eEfgG" else int(value))
    return f"{float(value):0.2f}" if dtype in FLOAT_DTYPES else f"{int(value)}"


def check_fidelity(k: Kernel, source: Path, dataset: str) -> Fidelity:
    timeout = config.load().timeout
    try:
        dump = original_dump(Path(source), dataset, timeout)
    except RuntimeError as e:
        return Fidelity(False, str(e))
    if not dump:              # a program of its own, not PolyBench's: its output is its own
        return Fidelity(None, "not compared with the original program, which dumps no arrays "
                              "(POLYBENCH_DUMP_ARRAYS)")
    run = run_reference(k, k.dataset_sizes(dataset))
    fmt = printf_modifier(Path(source), dataset)
    for name, values in dump.items():
        if name not in run.outputs:
            return Fidelity(False, f"the original dumps '{name}', which the IS has no output named")
        arr = run.outputs[name].ravel()
        dtype = k.array(name).dtype
        mine = [_printed(v, dtype, fmt) for v in arr]
        if len(values) == len(mine):
            for i, (a, b) in enumerate(zip(values, mine)):
                if a != b:
                    return Fidelity(False, f"'{name}'[{i}]: original {a}, reference {b}")
        elif not _in_order_within(values, mine):
            # A dump of part of an array (a triangle) must appear, in order, within it.
            return Fidelity(False, f"'{name}': the {len(values)} dumped values are not, in order, "
                                   f"among the reference's {len(mine)}")
    return Fidelity(True, f"{len(dump)} array(s), {sum(map(len, dump.values()))} values identical")


def _in_order_within(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(v == w for w in it) for v in part)
