"""A kernel that calls the file's own functions: its reference carries them (frontends/c/helpers.py).

The helpers are the kernel's helpers, not candidate kernels; they come into the IS reference
as `static` C before the kernel (so the key, the YAML form, the reference driver, the gate's
mutants and the llm prompt all see them); poly calls them as `static __device__` functions and
keeps the loops around a call parallel.  A helper that takes arrays, reads a static table or
calls itself with a bounded depth is carried too (issue #35, 3): the reference stays a function
of the kernel's inputs, and a call passing arrays takes poly outside its model (one thread, the
construct and the generators that can take it named).  What would make the reference
ill-defined (unbounded or mutual recursion, a global or static local written, I/O) is refused
at its line.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from t2c.errors import UnsupportedC, UserError
from t2c.frontends.c import read_c, reference_file
from t2c.generators.llm.prompts import kernel_messages
from t2c.generators.poly import generate
from t2c.generators.poly.cuda import sequential_candidate
from t2c.ir.yaml_form import from_yaml, to_yaml
from t2c.verify.mutants import mutants


COLLATZ = """\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000
 * t2c: array steps[n] out
 */
static int collatz_len(long v) { int s = 0; while (v != 1) { v = (v % 2) ? 3 * v + 1 : v / 2; s++; } return s; }
void collatz(int n, int *steps) { for (int i = 0; i < n; i++) steps[i] = collatz_len(i + 1); }
"""

PURE = """\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000 */
#include <math.h>
static double sq(double x) { return x * x; }
static double norm2(double x, double y) { return sqrt(sq(x) + sq(y)); }
void lengths(int n, double *x, double *y, double *r)
{
  for (int i = 0; i < n; i++)
    r[i] = norm2(x[i], y[i]) + sq(x[i]);
}
"""

# A helper reading an input array through a pointer, one writing rows of a 2-d array, and a
# static table: the reference is well defined; poly runs it in one thread.
SMOOTH = (Path(__file__).parent / "kernels" / "smooth_helper.c").read_text()   # (tests/llm/test_outside_poly.py too)

ROWS = """\
/* t2c: size n MINI=8 SMALL=40 MEDIUM=400 LARGE=4000 EXTRALARGE=40000
 * t2c: size m MINI=6 SMALL=30 MEDIUM=300 LARGE=3000 EXTRALARGE=30000
 */
#include <math.h>
static double weight(int k) { static const double w[3] = {0.25, 0.5, 0.25}; return w[k]; }
static void scale_rows(int n, int m, double a[n][m], const double *s)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i][j] *= s[i] * weight(j % 3);
}
static void row_max(int n, int m, double a[n][m], double s[])
{
  for (int i = 0; i < n; i++) {
    double big = 1.0;
    for (int j = 0; j < m; j++) big = fmax(big, fabs(a[i][j]));
    s[i] = 1.0 / big;
  }
}
void rows(int n, int m, double a[n][m], double s[n])
{
  row_max(n, m, a, s);
  scale_rows(n, m, a, s);
}
"""

# Recursion whose depth an int parameter bounds: carried, and pure, so poly keeps the loop parallel.
BOUNDED = """\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000
 * t2c: array out[n] out
 */
static long fib(int k) { if (k < 2) return k; return fib(k - 1) + fib(k - 2); }
static double ipow(double x, int e) { return e <= 0 ? 1.0 : x * ipow(x, e - 1); }
static int digits(int v, int d) { if (d >= 1 && v > 9) return digits(v / 10, d - 1) + 1; return 1; }
void bounded(int n, double *out)
{
  for (int i = 0; i < n; i++)
    out[i] = fib(i % 15) + ipow(0.5, i % 7) + digits(i, 12);
}
"""

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None,
                               reason="needs gcc and g++")


def _read(tmp_path, text, name="k.c", function=None):
    path = tmp_path / name
    path.write_text(text)
    return read_c(path, function)


def test_a_called_function_is_a_helper_not_a_kernel(tmp_path):
    k = _read(tmp_path, COLLATZ)
    assert k.name == "collatz"
    assert _read(tmp_path, PURE).name == "lengths"


def test_the_reference_carries_the_helpers_callee_first(tmp_path):
    k = _read(tmp_path, PURE)
    ref = k.reference
    assert ref.index("static double sq(double x)") < ref.index("static double norm2(") \
        < ref.index("void lengths(")
    other = _read(tmp_path, PURE.replace("return x * x;", "return x * x * 1.0;"), "other.c")
    assert other.key() != k.key()                      # the helpers are part of the semantics


def test_is_round_trips_through_yaml_and_the_reference_file(tmp_path):
    for text in (COLLATZ, PURE):
        k = _read(tmp_path, text)
        again = from_yaml(to_yaml(k))
        assert again == k and again.key() == k.key()
        path = tmp_path / "ref.c"
        path.write_text(reference_file(k))
        back = read_c(path)                            # the kernel is still the one chosen
        assert back.key() == k.key() and back.init is None


def test_mutants_and_the_prompt_carry_the_helpers(tmp_path):
    k = _read(tmp_path, COLLATZ)
    assert all("static int collatz_len(long v)" in m.reference for m in mutants(k))
    prompt = kernel_messages(k)[-1]["content"]
    assert "static int collatz_len(long v)" in prompt


def test_poly_calls_pure_helpers_in_parallel_threads(tmp_path):
    for text in (COLLATZ, PURE):
        k = _read(tmp_path, text)
        cu = generate(k)
        assert "one thread per (i)" in cu and "<<<1, 1>>>" not in cu
        assert "static __device__" in cu and "the source's own function" in cu
    seq = sequential_candidate(k, "test")
    assert "static __device__ double sq(double x)" in seq and "helpers sq, norm2" in seq


@needs_gcc
@pytest.mark.parametrize("text", [COLLATZ, PURE], ids=["collatz", "pure"])
def test_the_ladder_accepts_poly_on_emu(tmp_path, text):
    from t2c.verify.ladder import ladder
    k = _read(tmp_path, text)
    card = ladder(k, generate(k), backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()
    assert card.mutant_gate["passed"] and card.mutant_gate["killed"] > 0   # the mutants ran, helpers and all


@needs_gcc
def test_the_ladder_accepts_the_sequential_candidate(tmp_path):
    from t2c.verify.ladder import ladder
    k = _read(tmp_path, COLLATZ)
    card = ladder(k, sequential_candidate(k, "test"), backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


HEAD = "/* t2c: size n MINI=4 */\n"
KERNEL = "void k(int n, double *y) { for (int i = 0; i < n; i++) y[i] = f(y[i]); }\n"
ANNOTATED = "/* t2c: array y[n] inout */\n"       # its extent: the helper's subscripts are its own


@pytest.mark.parametrize("helpers, line, words", [
    ("static double f(double v) { return v < 1 ? v : f(v / 2); }\n", 2,
     ["recursive call to 'f' without a bound", "depth parameter"]),
    ("static double g(int k) { if (k == 0) return 1; return k * g(k - 1); }\n"   # from k < 0 it never ends
     "static double f(double v) { return g(3) * v; }\n", 2, ["recursive call to 'g' without a bound"]),
    ("static double g(double v);\nstatic double f(double v) { return g(v); }\n"
     "static double g(double v) { return v > 1 ? f(v - 1) : v; }\n", 4, ["recursive call to 'f'", "f -> g -> f"]),
    ("double total;\nstatic double f(double v) { total += v; return v; }\n", 3,
     ["writes the global variable 'total'"]),
    ("#include <stdio.h>\nstatic double f(double v) { printf(\"%g\", v); return v; }\n", 3,
     ["call to 'printf'", "I/O"]),
    ("double g(double v);\nstatic double f(double v) { return g(v); }\n", 3,
     ["call to 'g' is not supported", "neither defined in this file nor a math function"]),
    ("static double f(double v) { static int calls; calls++; return v; }\n", 2,
     ["writes its static local 'calls'", "from one call to the next"]),
], ids=["recursion", "recursion_to_equality", "mutual_recursion", "global_write", "printf", "undefined",
        "static_local_written"])
def test_helpers_that_make_the_reference_ill_defined_are_refused(tmp_path, helpers, line, words):
    path = tmp_path / "bad.c"
    path.write_text(HEAD + helpers + KERNEL)
    with pytest.raises(UnsupportedC) as e:
        read_c(path, "k")
    text = str(e.value)
    assert text.startswith(f"{path}:{line}:"), text
    assert all(w in text for w in words), text


@pytest.mark.parametrize("helper, kernel, words", [
    ("static void f(double *v, int i) { if (i < 0) return; v[i] *= 2; }", "f(&y[i], 0);",
     ["passes `&y[i]` to the pointer parameter 'v' of 'f'", "whole arrays, by name", "(y, i)"]),
    ("static double f(const double *v, int i) { return *(v + i); }", "y[i] = f(y, i);",
     ["helper 'f' uses its pointer parameter 'v' in `v + i`"]),
    ("static double f(double *v, int i) { return v[i]; }", "y[i] = f(x, i);",
     ["passes the const array 'x' to 'v' of 'f', which is not const", "const double *v"]),
    ("static double f(const float *v, int i) { return v[i]; }", "y[i] = f(y, i);",
     ["passes 'y' (a flat array of double) to 'v' of 'f' (a flat array of float)"]),
    ("static double f(const double *v, int i) { return v[i]; }", "y[i] = f(y[i], i);",
     ["passes `y[i]` to the pointer parameter 'v'"]),
    ("static double f(double v) { return v; }", "y[i] = f(x);",
     ["passes the array 'x' to 'f', whose parameter 'v' is a scalar"]),
    ("static void f(double *v, int i) { v[i] = 1; }", "{ static double t[4]; f(t, 0); y[i] = t[0]; }",
     ["passes its static local 't' to 'f', which writes it"]),
    ("static double f(double v) { return v; }", "{ static double t; t += f(y[i]); y[i] = t; }",
     ["'k' writes its static local 't'"]),
    ("static double f(const double *v, int i) { double *w = v; return w[i]; }", "y[i] = f(y, i);",
     ["helper 'f' declares the local pointer 'w'"]),
], ids=["address", "pointer_arithmetic", "const_dropped", "element_type", "element_for_pointer", "array_for_scalar",
        "static_array_written_by_a_helper", "kernel_static_written", "local_pointer"])
def test_calls_that_pass_arrays_badly_are_refused_at_the_call(tmp_path, helper, kernel, words):
    """A call passes a helper whole arrays of the caller, by name, of the parameter's element type,
    rank and constness; a static local stays unwritten, through helpers too."""
    path = tmp_path / "bad.c"
    path.write_text(HEAD + ANNOTATED + helper + "\n"
                    f"void k(int n, const double *x, double *y) {{ for (int i = 0; i < n; i++) {kernel} }}\n")
    with pytest.raises(UnsupportedC) as e:
        read_c(path, "k")
    text = str(e.value)
    assert text.startswith(f"{path}:"), text
    assert all(w in text for w in words), text


def test_a_pointer_passed_to_a_helper_needs_its_extent(tmp_path):
    """t2c does not follow a helper's subscripts, so the kernel's pointer needs `t2c: array`."""
    path = tmp_path / "k.c"
    path.write_text(HEAD + "static void f(double *v, int i) { if (i < 0) return; v[i] *= 2; }\n"
                    "void k(int n, double *y) { for (int i = 0; i < n; i++) f(y, i); }\n")
    with pytest.raises(UserError) as e:
        read_c(path)
    assert str(e.value).startswith(f"{path}:3:") and "passed to the helper 'f'" in str(e.value)
    assert "t2c: array y[n]" in str(e.value)


# -- helpers that take arrays, read tables, or recurse with a bound ------------------------------

def _helpers(tmp_path, text):
    """The frontend's Helper records of a file's kernel (the last function)."""
    from pycparser import c_ast
    from t2c.frontends.c.helpers import carried
    from t2c.frontends.c.preprocess import preprocess
    from t2c.ir.csyntax import parse_c
    path = tmp_path / "h.c"
    path.write_text(text)
    ast = parse_c(preprocess(path.resolve()), str(path))
    fn = [e for e in ast.ext if isinstance(e, c_ast.FuncDef)][-1]
    return {h.name: h for h in carried(ast, fn, {}, set())}


def test_a_helper_records_what_it_does_through_each_array(tmp_path):
    got = _helpers(tmp_path, ROWS)
    a, s = got["scale_rows"].params[2:]
    assert (a.rank, a.reads, a.writes, a.const) == (2, True, True, False)
    assert (s.rank, s.reads, s.writes, s.const) == (1, True, False, True)
    a, s = got["row_max"].params[2:]
    assert (a.reads, a.writes, s.reads, s.writes) == (True, False, False, True)
    assert got["weight"].params[0].rank == 0 and list(got) == ["row_max", "weight", "scale_rows"]
    k = _read(tmp_path, ROWS)
    assert {x.name: x.intent for x in k.arrays} == {"a": "inout", "s": "inout"}
    assert "static void scale_rows(int n, int m, double a[n][m], const double *s)" in k.reference
    assert "static const double w[3] = {0.25, 0.5, 0.25};" in k.reference


def test_the_intents_count_what_helpers_do_through_the_arrays(tmp_path):
    k = _read(tmp_path, SMOOTH)
    assert {x.name: (x.intent, x.shape) for x in k.arrays} == {"x": ("in", ("n",)), "y": ("inout", ("n",))}
    writes = SMOOTH.replace("y[i] = around(x, i, n) / 3.0;", "put(y, i, around(x, i, n));").replace(
        "void smooth", "static void put(double *v, int i, double s) { if (i < 0) return; v[i] = s / 3.0; }\nvoid smooth")
    k = _read(tmp_path, writes, "put.c")
    assert k.array("y").intent in ("out", "inout") and k.array("x").intent == "in"
    assert "static void put(double *v, int i, double s)" in k.reference


def test_bounded_recursion_is_carried_and_stays_parallel(tmp_path):
    k = _read(tmp_path, BOUNDED)
    assert "return fib(k - 1) + fib(k - 2);" in k.reference and "digits(v / 10, d - 1)" in k.reference
    cu = generate(k)
    assert "one thread per (i)" in cu and "<<<1, 1>>>" not in cu
    assert "static __device__ long fib(int k)" in cu


def test_poly_runs_a_call_that_passes_arrays_in_one_thread_and_names_it(tmp_path):
    """The call's accesses are the helper's, outside the model: poly's one-thread candidate names
    the call's line and the generators that can parallelize it, and neither form that reads a
    body as written (exchange networks, compaction) takes the kernel."""
    from t2c.generators.poly import unmodelled
    k = _read(tmp_path, SMOOTH)
    why = unmodelled(k)
    assert why and why.startswith("line 17:") and "'around'" in why
    cu = generate(k)
    assert "smooth_sequential<<<1, 1>>>" in cu and "exchange" not in cu
    assert "line 17: calls its own function 'around'" in cu and "`t2c gen --generator llm` or `hybrid`" in cu
    assert "static __device__ double around(const double *v, int i, int n)" in cu
    assert "around takes arrays" in cu
    assert unmodelled(_read(tmp_path, PURE)) is None


def test_a_helper_s_array_parameters_print_flat_for_cuda(tmp_path):
    """C++ takes no C99 array parameter (`double a[n][m]`): the device helper takes a flat
    pointer, indexed as the kernel's arrays are."""
    cu = generate(_read(tmp_path, ROWS))
    assert "static __device__ void scale_rows(int n, int m, double *a, const double *s)" in cu
    assert "a[(i * m) + j] *= s[i] * weight(j % 3);" in cu
    assert "static __device__ void row_max(int n, int m, double *a, double *s)" in cu


def test_gen_names_the_construct_its_file_and_line_and_the_generators(tmp_path):
    from click.testing import CliRunner
    from t2c.cli import main
    src = tmp_path / "smooth.c"
    src.write_text(SMOOTH)
    r = CliRunner().invoke(main, ["gen", str(src), "-o", str(tmp_path / "smooth.cu")])
    assert r.exit_code == 0, r.output + r.stderr
    assert f"{src}: smooth runs in one GPU thread" in r.stderr and "line 17: calls its own function 'around'" in r.stderr
    assert "--generator llm" in r.stderr and "--generator hybrid" in r.stderr


def test_ref_runs_a_kernel_whose_helper_takes_arrays(tmp_path):
    import numpy as np
    from click.testing import CliRunner
    from t2c.cli import main
    src = tmp_path / "smooth.c"
    src.write_text(SMOOTH)
    r = CliRunner().invoke(main, ["ref", str(src), "--size", "n=5", "--seed", "2", "-o", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    x, y = np.load(tmp_path / "out" / "inputs" / "x.npy"), np.load(tmp_path / "out" / "outputs" / "y.npy")
    padded = np.concatenate([[0.0], x, [0.0]])
    np.testing.assert_allclose(y, (padded[:-2] + padded[1:-1] + padded[2:]) / 3.0, rtol=1e-12)


@needs_gcc
@pytest.mark.parametrize("text, dataset", [(SMOOTH, "MINI"), (ROWS, "MINI"), (ROWS, "SMALL"), (BOUNDED, "MINI")],
                         ids=["smooth", "rows", "rows_small", "bounded"])
def test_the_ladder_accepts_poly_on_carried_helpers(tmp_path, text, dataset):
    from t2c.verify.ladder import ladder
    k = _read(tmp_path, text)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=5)
    assert card.accepted, card.summary()
    assert card.mutant_gate["passed"] and card.mutant_gate["killed"] > 0
