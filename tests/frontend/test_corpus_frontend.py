"""The C frontend on every corpus kernel: IS, round trip, and fidelity to the original program."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from t2ctest import corpus_sources
from t2c.cli import main
from t2c.frontends.c import read_c, reference_file
from t2c.ir import from_yaml
from t2c.verify.fidelity import check_fidelity

SOURCES = corpus_sources()
IDS = [s.stem for s in SOURCES]


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_is_round_trip_and_fidelity(src, tmp_path):
    k = read_c(src)
    assert k.name == "kernel_" + src.stem.replace("-", "_")
    assert all(len(s.presets) == 5 for s in k.sizes), "all five datasets"
    assert k.init is not None, "the original init from main"
    # C -> IS -> reference C -> IS: the same key.
    ref = tmp_path / "ref.c"
    ref.write_text(reference_file(k))
    again = read_c(ref, k.name)
    assert again.key() == k.key()
    # The normalized reference reproduces the original program's dump exactly.
    for dataset in ("MINI", "SMALL"):
        fid = check_fidelity(k, src, dataset)
        assert fid.ok, f"{dataset}: {fid.detail}"


def test_t2c_is_prints_yaml_for_every_kernel():
    runner = CliRunner()
    for src in SOURCES:
        r = runner.invoke(main, ["is", str(src)])
        assert r.exit_code == 0, r.output
        k = from_yaml(r.output)
        assert k.key() == read_c(src).key()


def test_gemm_is_details():
    k = read_c(Path(SOURCES[0]).parent.parent.parent / "linear-algebra/blas/gemm/gemm.c")
    assert k.params == ("ni", "nj", "nk", "alpha", "beta", "C", "A", "B")
    assert [(s.name, s.macro, s.preset("LARGE")) for s in k.sizes] == \
        [("ni", "NI", 1000), ("nj", "NJ", 1100), ("nk", "NK", 1200)]
    assert [(a.name, a.shape, a.intent) for a in k.arrays] == \
        [("C", ("ni", "nj"), "inout"), ("A", ("ni", "nk"), "in"), ("B", ("nk", "nj"), "in")]
    assert "void kernel_gemm(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj]" \
        in k.reference
    assert "pragma" not in k.reference and "static" not in k.reference


def test_element_types_follow_the_corpus_defaults():
    by = {s.stem: read_c(s) for s in SOURCES if s.stem in ("deriche", "floyd-warshall", "nussinov")}
    assert {a.dtype for a in by["deriche"].arrays} == {"float"}
    assert {a.dtype for a in by["floyd-warshall"].arrays} == {"int"}
    assert {a.name: a.dtype for a in by["nussinov"].arrays} == {"seq": "char", "table": "int"}


def test_out_intent_for_arrays_written_before_read():
    k = read_c([s for s in SOURCES if s.stem == "gesummv"][0])
    assert {a.name: a.intent for a in k.arrays} == \
        {"A": "in", "B": "in", "tmp": "out", "x": "in", "y": "out"}
