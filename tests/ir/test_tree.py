"""`Kernel.tree`: the reference parsed once per text and shared by its readers (ir/csyntax.py).

The frontend, the analysis, poly (its plan passes and the sequential candidate) and the verifier
(mutants, the checked reference, the reference driver) read one tree; those that edit it edit a
`clone`, so the shared tree keeps its text and its coordinates.
"""
from __future__ import annotations

import pickle

import pytest
from pycparser import c_parser

from t2ctest import POLYBENCH, ROOT, c_kernel
from t2c.analysis.model import NotAffine, build_program
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.cuda import sequential_candidate
from t2c.ir.csyntax import clone, cprint, reference_tree, walk
from t2c.verify.checked import instrument
from t2c.verify.mutants import mutants
from t2c.verify.reference import reference_driver

LOOPS = ROOT / "corpora" / "loops"
#: Kernels of the forms whose readers take nodes from the reference: a tiled nest, a recurrence
#: (durbin), a gather, a stream compaction, a sorting network, a spec, a helper function.
SOURCES = [POLYBENCH / "linear-algebra" / "blas" / "gemm" / "gemm.c",
           POLYBENCH / "linear-algebra" / "solvers" / "durbin" / "durbin.c",
           LOOPS / "gpu" / "spmv_csr.c", LOOPS / "vectorizer" / "pack_positive.c",
           LOOPS / "gpu" / "bitonic_sort.c", ROOT / "corpora" / "text2cuda" / "softmax_let.md"]
HELPER = """\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000 */
#include <math.h>
static double sq(double x) { return x * x; }
void lengths(int n, double *x, double *r) { for (int i = 0; i < n; i++) r[i] = sqrt(sq(x[i])); }
"""


def _every_reader(k) -> None:
    generate(k)
    sequential_candidate(k, "test")
    try:
        build_program(k)
    except NotAffine:                       # pack_positive: the model refuses after its edits
        pass
    mutants(k)
    instrument.__wrapped__(k)               # not its per-process cache: it must run here
    reference_driver(k)


def _snapshot(tree):
    return cprint(tree), [(type(n).__name__, n.coord and (n.coord.file, n.coord.line, n.coord.column))
                          for n in walk(tree)]


def _kernels(tmp_path):
    return [read_kernel(str(p)) for p in SOURCES] + [c_kernel(tmp_path, HELPER, "lengths")]


def test_readers_leave_the_shared_tree_as_it_was(tmp_path):
    kernels = _kernels(tmp_path)
    assert any(k.origin and k.origin.lines for k in kernels)          # relined readers ran
    before = [_snapshot(k.tree) for k in kernels]
    for k in kernels:
        _every_reader(k)
    assert [_snapshot(k.tree) for k in kernels] == before
    assert all(k.tree is reference_tree(k.reference, f"<{k.name} reference>") for k in kernels)


def test_the_reference_is_parsed_once_per_kernel(tmp_path, monkeypatch):
    """From reading the file to the last verifier reader: one parse of the reference's text."""
    texts = []
    parse = c_parser.CParser.parse
    monkeypatch.setattr(c_parser.CParser, "parse", lambda self, text, *a, **kw: texts.append(text) or parse(self, text, *a, **kw))
    for source in (SOURCES[0], SOURCES[2], SOURCES[-1]):
        reference_tree.cache_clear()
        texts.clear()
        k = read_kernel(str(source))
        _every_reader(k)
        assert sum(t.endswith(k.reference) for t in texts) == 1, k.name


def test_a_clone_is_a_private_tree_and_a_kernel_pickles_without_it(tmp_path):
    k = c_kernel(tmp_path, HELPER, "lengths")
    copy = clone(k.tree)
    assert cprint(copy) == cprint(k.tree)
    assert not {id(n) for n in walk(copy)} & {id(n) for n in walk(k.tree)}
    copy.ext[-1].decl.name = "other"
    assert "lengths(" in cprint(k.tree)
    back = pickle.loads(pickle.dumps(k))
    assert back == k and "tree" not in vars(back) and cprint(back.tree) == cprint(k.tree)


@pytest.mark.parametrize("changes", [{"reference": "void f(int n) { }\n"}, {"name": "other"}])
def test_the_tree_follows_the_text(tmp_path, changes):
    k = c_kernel(tmp_path, HELPER, "lengths")
    other = k.replace(**changes)
    assert other.tree is not k.tree
    assert k.replace(description="same text").tree is k.tree
