"""A kernel that calls the file's own functions: its reference carries them (frontends/c/helpers.py).

The helpers are the kernel's helpers, not candidate kernels; they come into the IS reference
as `static` C before the kernel (so the key, the YAML form, the reference driver, the gate's
mutants and the llm prompt all see them); poly calls them as `static __device__` functions and
keeps the loops around a call parallel.  What would make the reference ill-defined (recursion,
a global written, I/O) is refused at its line.
"""
from __future__ import annotations

import shutil

import pytest

from t2c.errors import UnsupportedC
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


@pytest.mark.parametrize("helpers, line, words", [
    ("static double f(double v) { return v < 1 ? v : f(v / 2); }\n", 2, ["recursive call to 'f'"]),
    ("static double g(double v);\nstatic double f(double v) { return g(v); }\n"
     "static double g(double v) { return v > 1 ? f(v - 1) : v; }\n", 4, ["recursive call to 'f'", "f -> g -> f"]),
    ("double total;\nstatic double f(double v) { total += v; return v; }\n", 3,
     ["writes the global variable 'total'"]),
    ("#include <stdio.h>\nstatic double f(double v) { printf(\"%g\", v); return v; }\n", 3,
     ["call to 'printf'", "I/O"]),
    ("double g(double v);\nstatic double f(double v) { return g(v); }\n", 3,
     ["call to 'g' is not supported", "neither defined in this file nor a math function"]),
    ("static double f(double *v) { return v[0]; }\n", 2, ["takes the pointer or array 'v'"]),
    ("static double f(double v) { static int calls; calls++; return v; }\n", 2, ["static local 'calls'"]),
], ids=["recursion", "mutual_recursion", "global_write", "printf", "undefined", "pointer_param", "static_local"])
def test_helpers_that_make_the_reference_ill_defined_are_refused(tmp_path, helpers, line, words):
    path = tmp_path / "bad.c"
    path.write_text(HEAD + helpers + KERNEL)
    with pytest.raises(UnsupportedC) as e:
        read_c(path, "k")
    text = str(e.value)
    assert text.startswith(f"{path}:{line}:"), text
    assert all(w in text for w in words), text
