"""The host-executed reference: an IS's reference C, built with gcc and run on files.

    reference_driver(kernel) -> str;  run_reference(kernel, sizes, inputs) -> (inputs, outputs)

Takes the IS; gives the C text of a driver (ir/cgen nodes) around the reference (`init` runs the source's
`t2c_init`, `run` calls the kernel once on DIR/NAME.bin and writes DIR/out_NAME.bin), builds it
with gcc (cached by content) and runs it in a scratch directory with a timeout, giving numpy
arrays. With `inputs=None` the original initialisation draws the inputs; a kernel without one
needs them given. A file of the wrong size is refused (exit 3), never read short.
docs/verification.md, "Drivers and their files".
"""
from __future__ import annotations

import ast
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import config
from ..errors import UserError
from ..ir import Kernel, abi, cgen
from ..ir.kernel import eval_extent  # noqa: F401  (shapes below; re-exported)
from ..runtime.build import build
from ..runtime.process import clean_env, run_process
from . import checked
from .halfs import np_dtype  # noqa: F401  (arrays below; re-exported)

PRELUDE = r"""
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* PolyBench's allocator, for original init functions that use it. */
void *polybench_alloc_data(unsigned long long n, int elt_size)
{
  void *p = calloc(n ? n : 1, (size_t)elt_size);
  if (!p) { fprintf(stderr, "t2c: out of memory\n"); exit(4); }
  return p;
}

static void *t2c_load(const char *dir, const char *name, size_t bytes, int required)
{
  char path[4096];
  void *p = calloc(bytes ? bytes : 1, 1);
  FILE *f;
  if (!p) { fprintf(stderr, "t2c: out of memory for %s\n", name); exit(4); }
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  f = fopen(path, "rb");
  if (!f) {
    if (required) { fprintf(stderr, "t2c: missing input %s\n", path); exit(3); }
    return p;
  }
  if (fread(p, 1, bytes, f) != bytes || fgetc(f) != EOF) {
    fprintf(stderr, "t2c: %s does not hold exactly %zu bytes\n", path, bytes);
    exit(3);
  }
  fclose(f);
  return p;
}

static void t2c_store(const char *dir, const char *prefix, const char *name, const void *p,
                      size_t bytes)
{
  char path[4096];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s%s.bin", dir, prefix, name);
  f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "t2c: cannot write %s\n", path); exit(3); }
  fclose(f);
}

/* The process's CPU time: the reference is one thread, and its cost must not depend on what
   else the machine runs (a suite's sizes follow it, so a seed draws the same suite under load). */
static double t2c_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
"""

#: The 16-bit storage types under CUDA's names, with CUDA's conversions, for a reference that uses
#: them (docs/specs.md, "float16 and bfloat16").  float16 is gcc's _Float16, whose conversions
#: round to nearest even; bfloat16 is its bit pattern (gcc 12 has no bfloat16 type), the upper
#: half of a float's: rounded to nearest even, a NaN stays a NaN (0x7fff, as the GPU gives).
HALF_PRELUDE = {
    "__half": r"""
typedef _Float16 __half;
static float __half2float(__half h) { return (float)h; }
static __half __float2half_rn(float f) { return (__half)f; }
""",
    "__nv_bfloat16": r"""
typedef unsigned short __nv_bfloat16;
static float __bfloat162float(__nv_bfloat16 b)
{
  unsigned int u = (unsigned int)b << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static __nv_bfloat16 __float2bfloat16_rn(float f)
{
  unsigned int u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return 0x7fff;
  return (__nv_bfloat16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
""",
}


def _helpers_once(k: Kernel, variants: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The reference's helper functions, and the variants without them: defined once, shared."""
    from ..ir.csyntax import cprint, kernel_definition, parse_c, reference_helpers
    helpers = reference_helpers(k.tree)
    if not helpers:
        return "", variants
    return ("".join(cprint(h) + "\n" for h in helpers),
            tuple(cprint(kernel_definition(parse_c(v, "<variant>"))) for v in variants))


def reference_driver(k: Kernel, reference: str | None = None, checker: str = "",
                     variants: tuple[str, ...] = ()) -> str:
    """C source of the reference driver for kernel k (see the module docstring); `reference`
    and `checker` replace its reference for a checked build (checked.py).  `variants`: versions
    of the reference with its signature (the gate's mutants), each renamed `t2c_variant_I` and
    called when the environment has T2C_VARIANT=I, so that one compile serves them all."""
    if variants:
        helpers, variants = _helpers_once(k, variants)
        reference = helpers + "".join(f"#define {k.name} t2c_variant_{i}\n{text}\n#undef {k.name}\n"
                                      for i, text in enumerate(variants))
    ret = k.returns
    ins = [s for s in k.scalars if s.intent == "in"]
    nbytes = lambda a: abi.nbytes(a.dtype, a.name + "_n")
    store = lambda prefix, name, data, size: cgen.call("t2c_store", "t2c_dir", cgen.string(prefix), cgen.string(name),
                                                       data, size)
    keep = lambda entry: cgen.decl(f"{ret.dtype} t2c_ret", entry) if ret else cgen.expr(entry)
    usage = cgen.string(f"usage: %s init|run DIR{''.join(' ' + s.name for s in k.sizes)}\n")
    body = [cgen.if_(f"argc != {3 + len(k.sizes)}", [cgen.call("fprintf", "stderr", usage, "argv[0]"), "return 2;"]),
            r"""const char *t2c_dir = argv[2];
                int t2c_init_mode = strcmp(argv[1], "init") == 0;""",
            *(cgen.decl(f"int {s.name}", f"atoi(argv[{3 + i}])") for i, s in enumerate(k.sizes))]
    for s in ins:
        loaded = cgen.call("t2c_load", "t2c_dir", cgen.string(s.name), f"sizeof({s.dtype})", "!t2c_init_mode")
        body.append(cgen.decl(f"{s.dtype} {s.name}", cgen.deref(cgen.cast(f"{s.dtype} *", loaded))))
    for a in k.arrays:
        loaded = cgen.call("t2c_load", "t2c_dir", cgen.string(a.name), nbytes(a),
                           0 if a.intent == "out" else "!t2c_init_mode")
        body += [cgen.decl(f"size_t {a.name}_n", abi.count(a.shape)),
                 cgen.decl(f"{a.dtype} *{a.name}", cgen.cast(f"{a.dtype} *", loaded))]
    call_args = abi.call_args(k, _pointer)
    if k.init:
        init_args = abi.call_args(k, _pointer, lambda p: f"&{p}" if any(s.name == p for s in ins) else p)
        body.append(cgen.if_("t2c_init_mode", [
            f"t2c_init({init_args});",
            *(store("", s.name, f"&{s.name}", f"sizeof({s.dtype})") for s in ins),
            *(store("", a.name, a.name, nbytes(a)) for a in k.arrays),
            "return 0;"]))
    else:
        body.append(cgen.if_("t2c_init_mode", [
            cgen.call("fprintf", "stderr", cgen.string("t2c: this kernel has no original init\n")), "return 2;"]))
    body.append("double t2c_t0 = t2c_now();")
    if variants:
        cases = [(i, [f"{'t2c_ret = ' if ret else ''}t2c_variant_{i}({call_args});", "break;"])
                 for i in range(len(variants))]
        fail = [cgen.call("fprintf", "stderr", cgen.string("t2c: T2C_VARIANT names no version\n")), "return 2;"]
        body += [cgen.decl(f"{ret.dtype} t2c_ret", 0) if ret else None,
                 'const char *t2c_which = getenv("T2C_VARIANT");',
                 cgen.switch("t2c_which ? atoi(t2c_which) : -1", cases, fail)]
    else:
        body.append(keep(abi.call(k, "", _pointer)))
    body.append("double t2c_t1 = t2c_now();")
    if ret:
        body.append(store("out_", "return", "&t2c_ret", f"sizeof({ret.dtype})"))
    body += [store("out_", a.name, a.name, nbytes(a)) for a in k.arrays if a.intent != "in"]
    body.append(r'printf("%.9f\n", t2c_t1 - t2c_t0);')
    if checker:
        body.append(r'printf("%llu\n", t2c_work);')
    body.append("return 0;")
    return cgen.render(cgen.program(PRELUDE, *(HALF_PRELUDE[t] for t in k.half_dtypes),
                                    abi.rows_helper(k), checker, k.init or "",
                                    reference or k.reference, cgen.function("int main(int argc, char **argv)", body)))


def _pointer(a) -> str:
    """An array passed to the reference, whose parameter is a VLA type (a 0-d array's is `T *`),
    or a row table's `T **` (abi.host_pointer)."""
    return abi.host_pointer(a, a.name) if a.rows else f"(void *){a.name}" if a.shape else a.name


# -- sizes and shapes ----------------------------------------------------------------------

def array_shape(a, sizes) -> tuple[int, ...]:
    return tuple(eval_extent(e, sizes) for e in a.shape)


def check_constraints(k: Kernel, sizes: dict[str, int]) -> None:
    missing = [s.name for s in k.sizes if s.name not in sizes]
    if missing:
        raise UserError(f"{k.name}: no value for size(s) {', '.join(missing)}",
                        hint="give every size, or choose a dataset")
    for c in k.constraints:             # C's integer division on the (non-negative) sizes: //
        expr = re.sub(r"(?<!/)/(?!/)", "//", c.replace("&&", " and ").replace("||", " or "))
        if not eval(compile(ast.parse(expr, mode="eval"), "<c>", "eval"), {"__builtins__": {}},
                    dict(sizes)):
            raise UserError(f"{k.name}: sizes {sizes} break the constraint '{c}'")


# -- running -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReferenceRun:
    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    seconds: float
    work: int | None = None          # loop iterations, counted by a checked run (checked.py)


class ReferenceFailed(Exception):
    """The reference itself failed on these inputs (crash, timeout): inputs to discard."""


ReferenceFault = checked.ReferenceFault


#: The nice value of reference runs that are not timed (test suites, mutants, replays): they yield
#: the CPU to the processes that hold a GPU slot.
BACKGROUND = 10


def build_reference(k: Kernel, flags: tuple[str, ...] | None = None) -> Path:
    cfg = config.load()
    return build({f"{k.name}_driver.c": reference_driver(k)}, list(flags or cfg.ref_cflags))


def build_variants(k: Kernel, references: tuple[str, ...]) -> Path:
    """One reference driver holding every version in `references` (run one with
    `run_reference(..., variant=(exe, i))`); BuildError when any of them does not compile."""
    return build({f"{k.name}_variants.c": reference_driver(k, variants=references)}, list(config.load().ref_cflags))


def write_array(path: Path, value) -> None:
    """The array's bytes in C order, written from the array itself (no bytes copy)."""
    np.ascontiguousarray(value).tofile(path)


def run_reference(k: Kernel, sizes: dict[str, int], inputs: dict | None = None, *,
                  timeout: float | None = None, flags=None, workdir: Path | None = None,
                  nice: int = BACKGROUND, checked_run: bool = False,
                  variant: tuple[Path, int] | None = None) -> ReferenceRun:
    """Build and run the reference on `inputs` (None: the original init).  Background CPU work by
    default (`nice`): a run whose time is measured passes nice=0.  `checked_run`: with bounds and
    overflow checks (checked.py), which raise `ReferenceFault` (a UserError) for what they find.
    `variant`: (a `build_variants` program, the index of the version to run) instead."""
    check_constraints(k, sizes)
    sites, driver, env = (), "", clean_env()
    if variant:
        exe, env = variant[0], clean_env({"T2C_VARIANT": str(variant[1])})
    elif checked_run:
        text, sites = checked.instrument(k)
        driver = reference_driver(k, text, checked.CHECKER)
        exe = build({f"{k.name}_driver.c": driver},
                    [*(flags or config.load().ref_cflags), *checked.CHECK_FLAGS])
    else:
        exe = build_reference(k, flags)
    configured, timeout = not timeout, timeout or config.load().timeout
    size_args = [str(sizes[s.name]) for s in k.sizes]
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        d = Path(tmp)
        if inputs is None:
            inputs = _init(k, exe, d, sizes, timeout, nice, configured)
        for name, value in {**(checked.out_poison(k, sizes) if checked_run else {}), **inputs}.items():
            write_array(d / f"{name}.bin", value)
        r = run_process(_big_stack([exe, "run", d, *size_args]), timeout=timeout, nice=nice, env=env)
        if not r.ok:
            if checked_run and (found := checked.fault(k, r.stderr, driver, sites, sizes)):
                raise found
            raise ReferenceFailed(f"reference failed: {_ended(r, configured)}")
        outputs = read_arrays(k, sizes, d, "out_", inputs_only=False)
        if checked_run and (found := checked.unwritten(k, outputs, sizes)):
            raise found
        seconds, work = r.stdout.split()[-2:] if checked_run else (r.stdout.split()[-1], None)
        return ReferenceRun(dict(inputs), outputs, float(seconds), None if work is None else int(work))


def original_inputs(k: Kernel, sizes: dict[str, int], *, timeout: float | None = None,
                    nice: int = BACKGROUND) -> dict:
    """The original init's inputs alone (`prog init`, no kernel call): what a replayed case needs
    before its candidate runs; the expected outputs can come later."""
    check_constraints(k, sizes)
    with tempfile.TemporaryDirectory() as tmp:
        return _init(k, build_reference(k), Path(tmp), sizes, timeout or config.load().timeout, nice, not timeout)


def _big_stack(argv: list) -> list:
    """argv with an unlimited stack: a reference's local arrays (a C function's variable-length
    arrays, a spec's temporaries) live on its stack, which 8 MiB would not hold at LARGE."""
    prlimit = shutil.which("prlimit")
    return [prlimit, "--stack=unlimited", "--", *argv] if prlimit else argv


def _init(k: Kernel, exe: Path, d: Path, sizes: dict, timeout: float, nice: int, configured: bool) -> dict:
    r = run_process(_big_stack([exe, "init", d, *(str(sizes[s.name]) for s in k.sizes)]), timeout=timeout, nice=nice,
                    env=clean_env())
    if not r.ok:
        raise ReferenceFailed(f"original init failed: {_ended(r, configured)}")
    return read_arrays(k, sizes, d, "", inputs_only=True)


def _ended(r, configured: bool) -> str:
    """How a failed reference run ended and its error output; past `config.timeout` (`configured`:
    the caller set no limit of its own), what to do about it."""
    err = r.stderr.strip()[:300]
    limit = " (the limit is T2C_TIMEOUT: give smaller sizes, or raise it)" if r.timed_out and configured else ""
    return f"{r.describe()}{limit}" + (f": {err}" if err else "")


def read_arrays(k: Kernel, sizes, d: Path, prefix: str, inputs_only: bool) -> dict[str, np.ndarray]:
    out = {}
    for s in k.scalars:
        if (s.intent == "in") == inputs_only:
            # the return value travels as out_return.bin (both drivers write it so)
            stem = s.name if inputs_only else "return"
            out[s.name] = np.fromfile(d / f"{prefix}{stem}.bin", dtype=np_dtype(s.dtype))[0]
    for a in k.arrays:
        wanted = a.intent != "out" if inputs_only else a.intent != "in"
        if wanted:
            out[a.name] = np.fromfile(d / f"{prefix}{a.name}.bin",
                                      dtype=np_dtype(a.dtype)).reshape(array_shape(a, sizes))
    return out
