"""Three everyday C idioms that are affine after normalization (issue #35), each of which ran the
whole reference in one GPU thread: a for header stepping several counters with the comma operator
(analysis/commas.py), a counted do-while loop (analysis/whiles.py, with the size guard around it
that every valid call takes: guards.decide_branches), and a switch whose cases end in break
(analysis/switches.py).  Their plans have grids (or reductions) instead; the reference stays the
user's C; what is not the idiom keeps one thread with a reason naming the construct.
"""
import re

import pytest

from t2c.analysis import NotAffine, analyze
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2ctest import accepted_on_emu, c_kernel

HEAD = """\
/* t2c: size n MINI={n} SMALL=1000
 * t2c: size m MINI={m} SMALL=300
 * t2c: constraint m >= 1
 * t2c: constraint m <= n
 * t2c: array a[n] inout
 * t2c: array b[2 * n] inout
 * t2c: array g[n][n] inout
 * t2c: array op[n] in
 * t2c: domain op integers(0, 4)
 */
"""
SIGNATURE = "(int n, int m, int mode, double *a, double *b, double g[n][n], const int *op)"

KERNELS = {
    # comma loops: a reversal in place, a pack into every other element, a descending copy over
    # a second counter, a condition over the second counter (every other element)
    "reverse": "int i, j;\n  for (i = 0, j = n - 1; i < j; i++, j--) {\n    double t = a[i];\n"
               "    a[i] = a[j];\n    a[j] = t;\n  }",
    "reverse_twice": "int i, j;\n  for (i = 0, j = n - 1; i < j; i++, j--)\n    a[i] = a[j];\n"
                     "  for (i = 0, j = 2 * n - 1; i < j; i++, j--)\n    b[i] = b[j];",
    "pack": "for (int i = 0, k = 0; i < n; i++, k += 2) {\n    b[k] = a[i];\n    b[k + 1] = -a[i];\n  }",
    "reversed_copy": "int i, k;\n  for (i = n - 1, k = 0; i >= 0; i--, k++)\n    b[k] = a[i];",
    "evens": "int i, k;\n  for (i = 0, k = 0; k < n; i++, k += 2)\n    b[i] = a[k];",
    # do-while loops: guarded by the size test, per row (a reduction), descending, and one whose
    # first test may fail (rows r >= m run the body once, at c = r)
    "do_guarded": "int i = 0;\n  if (n > 0) {\n    do {\n      b[i] = 2.0 * a[i];\n      i++;\n"
                  "    } while (i < n);\n  }",
    "do_rows": "for (int r = 0; r < n; r++) {\n    double s = 0.0;\n    int c = 0;\n    do {\n"
               "      s += g[r][c];\n      c++;\n    } while (c < m);\n    a[r] = s;\n  }",
    "do_down": "int i = n - 1;\n  do {\n    b[i] = a[n - 1 - i];\n    i--;\n  } while (i >= 0);",
    "do_once": "for (int r = 0; r < n; r++) {\n    int c = r;\n    do {\n      g[r][c] = 2.0 * g[r][c] + r;\n"
               "      c++;\n    } while (c < m);\n  }",
    # a size test every valid call passes, around a loop (a loop under an if was refused)
    "guarded_for": "if (n >= 1) {\n    for (int i = 0; i < n; i++)\n      a[i] += 1.0;\n  } else {\n    a[0] = 0.0;\n  }",
    # switches: on an op-code array with a default, labels sharing a group in braces and an empty
    # group, on a scalar parameter in a 2-D nest
    "ops": "for (int i = 0; i < n; i++) {\n    switch (op[i]) {\n    case 0: b[i] = a[i]; break;\n"
           "    case 1: b[i] = -a[i]; break;\n    case 2: b[i] = a[i] * a[i]; break;\n    default: b[i] = 0.0;\n"
           "    }\n  }",
    "groups": "for (int i = 0; i < n; i++) {\n    switch (op[i]) {\n    case 0:\n    case 1: {\n"
              "      a[i] = a[i] + 1.0;\n      break;\n    }\n    case 2:\n      break;\n    default:\n"
              "      a[i] = 0.5 * a[i];\n      break;\n    case 3:\n      a[i] = 2.0 * a[i];\n    }\n  }",
    "mode": "for (int r = 0; r < n; r++)\n    for (int c = 0; c < n; c++)\n      switch (mode) {\n"
            "      case 1: g[r][c] = g[r][c] * g[r][c]; break;\n      case 2: g[r][c] = -g[r][c]; break;\n"
            "      }",
}
WRITTEN = {"reverse": "for (i = 0, j = n - 1; i < j; i++, j--)", "pack": "for (int i = 0, k = 0;",
           "do_guarded": "do", "do_once": "do", "ops": "switch (op[i])", "mode": "switch (mode)"}


def kernel(tmp_path, body: str, n: int = 12, m: int = 7):
    return c_kernel(tmp_path, HEAD.format(n=n, m=m) + f"void f{SIGNATURE}\n{{\n  {body}\n}}\n")


@pytest.mark.parametrize("name", KERNELS)
def test_the_idiom_has_a_parallel_plan(tmp_path, name):
    k = kernel(tmp_path, KERNELS[name])
    if name in WRITTEN:
        assert WRITTEN[name] in k.reference                # the reference is the user's C
    an = analyze(k)
    assert not [s for s in an.program.statements if type(s.node).__name__ in ("While", "DoWhile", "Switch")]
    _, plan = final_plan(an, DEFAULT)
    assert plan.launches and all(launch.grid or launch.reduction for launch in plan.launches
                                 if any(type(n).__name__ == "Loop" for n in launch.body)), name


@pytest.mark.parametrize("name,n,m", [("reverse", 1, 1), ("reverse", 2, 1), ("reverse", 13, 7), ("reverse_twice", 5, 1), ("pack", 5, 3),
                                      ("reversed_copy", 6, 2), ("evens", 1, 1), ("evens", 9, 4),
                                      ("do_guarded", 1, 1), ("do_guarded", 9, 3), ("do_rows", 8, 1),
                                      ("do_down", 5, 5), ("guarded_for", 3, 1), ("do_once", 9, 4), ("do_once", 6, 6),
                                      ("ops", 11, 2), ("groups", 15, 3), ("mode", 6, 2)])
def test_the_idiom_computes_what_the_reference_does(tmp_path, name, n, m):
    k = kernel(tmp_path, KERNELS[name], n, m)
    text = generate(k)
    assert "<<<1, 1>>>" not in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("body,reason", [
    # a counter read after the loop, written in the body, or the loop's counter starting from
    # another: the header stays
    ("int i, j;\n  for (i = 0, j = n - 1; i < j; i++, j--)\n    a[i] = a[j];\n  a[0] = j;",
     "loop header is not 'v = start'"),
    ("int i, j;\n  for (i = 0, j = n - 1; i < j; i++, j--) {\n    a[i] = a[j];\n    j = j - 1;\n  }",
     "loop header is not 'v = start'"),
    ("int i, k;\n  for (k = 0, i = k; i < n; k += 2, i++)\n    b[k] = a[i];", "loop header is not 'v = start'"),
    # a do-while whose body continues past the step, or whose counter is read after it
    ("int i = 0;\n  do {\n    if (a[i] > 0.0) continue;\n    a[i] = 0.0;\n    i++;\n  } while (i < n);",
     "while loops have no affine iteration domain"),
    ("int i = 0;\n  do {\n    a[i] = 0.0;\n    i++;\n  } while (i < n);\n  b[0] = i;",
     "while loops have no affine iteration domain"),
    # switches that are no if chain
    ("for (int i = 0; i < n; i++)\n    switch (op[i]) {\n    case 0: a[i] = 1.0;\n    case 1: a[i] += 2.0; break;\n"
     "    }", "a switch whose `case 0` falls through into `case 1`"),
    ("for (int i = 0; i < n; i++)\n    switch (op[i]) {\n    case 0: continue;\n    default: a[i] = 0.0;\n    }",
     "a switch whose `case 0` holds a continue"),
    ("for (int i = 0; i < n; i++)\n    switch (op[i]) {\n    case 0:\n      if (a[i] > 0.0) break;\n"
     "      a[i] = 0.0;\n      break;\n    }", "a switch whose `case 0` breaks before its end"),
])
def test_what_is_not_the_idiom_stays_outside_the_model_and_says_why(tmp_path, body, reason):
    with pytest.raises(NotAffine, match=re.escape(reason)):
        analyze(kernel(tmp_path, body))


def test_a_switch_label_twice_is_named():
    from pycparser import c_ast
    from t2c.analysis.switches import refusal
    from t2c.ir.csyntax import parse_c
    fn = parse_c("void f(int e, double *a) { switch (e) { case 1: a[0] = 1; break; case 1: a[0] = 2; } }",
                 "x").ext[0]
    sw = next(s for s in fn.body.block_items if isinstance(s, c_ast.Switch))
    assert refusal(sw) == "switch with the label `case 1` twice"
