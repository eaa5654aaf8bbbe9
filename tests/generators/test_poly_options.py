"""The poly options as records (poly/options.py) and the target they lower for (runtime/target.py)."""
import dataclasses
import json

import pytest

from t2ctest import POLYBENCH
from t2c.frontends.c import read_c
from t2c.generators.evolve.moves import space
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.options import OneBlock, OptionsError, PolyOptions, changes, leaves
from t2c.runtime.emu.features import MODELED_ASM
from t2c.runtime.target import M8N8K4, M16N8K8, SM90, Target


def test_every_move_stores_and_loads_back():
    """A candidate's options as its lineage stores them (dotted paths, JSON) read back the same."""
    for _, name, options in space(DEFAULT):
        stored = json.loads(json.dumps(changes(options)))
        assert PolyOptions.load(stored, name) == options, name


def test_no_field_uses_a_sentinel():
    """Off is None on a record or value field; no default is a 0 or a 1 x 1 / 0 x 0 stand-in."""
    for path, _, value, _ in leaves(DEFAULT):
        assert value != 0 or isinstance(value, bool), path
        assert not (isinstance(value, tuple) and set(value) <= {0, 1}), path


def test_a_path_through_an_off_record_turns_it_on_at_its_defaults():
    off = DEFAULT.replace(one_block=None)
    assert off.replace({"one_block.threads": 512}).one_block == OneBlock(threads=512)
    assert DEFAULT.replace({"tiles.staging.tile": (4, 4)}).tiles.staging.tile == (4, 4)
    with pytest.raises(OptionsError, match="a record given for a plain value"):
        DEFAULT.replace({"grid.block_1d": {"x": 1}})


def test_the_target_decides_the_tensor_core_shape():
    """gemm's products run as m16n8k8 where the target has it, as m8n8k4 on an sm_80 target,
    whatever the options say; the emu models exactly the target's shapes."""
    gemm = read_c(POLYBENCH / "linear-algebra/blas/gemm/gemm.c")
    sm80 = dataclasses.replace(SM90, arch=80)
    assert SM90.has(M16N8K8) and not sm80.has(M16N8K8) and sm80.has(M8N8K4)
    assert "poly_dmma16(acc" in generate(gemm)
    older = generate(gemm, DEFAULT, sm80)
    assert "poly_dmma16(acc" not in older and "poly_dmma(acc" in older and "mma.sync m8n8k4" in older
    assert {t.split("{")[0] for t in MODELED_ASM} == {m.ptx for m in SM90.mma}


def test_the_target_bounds_one_block_loops():
    """A one-block loop's block takes the target's most threads per block (durbin: 512 with its
    block sum either way, jacobi-1d: the target's 1024, or 768 on a target with fewer)."""
    jacobi = read_c(POLYBENCH / "stencils/jacobi-1d/jacobi-1d.c")
    untiled = DEFAULT.replace({"launches.time_tiles": None})       # its time loop in one block
    assert "<<<1, 1024>>>" in generate(jacobi, untiled)
    small = generate(jacobi, untiled, Target(max_threads=768))
    assert "<<<1, 768>>>" in small and "<<<1, 1024>>>" not in small
