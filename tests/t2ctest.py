"""Shared test helpers (importable from any test folder, unlike a conftest module)."""
import os
import shutil
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
POLYBENCH = ROOT / "corpora" / "polybench"


def corpus_sources() -> list[Path]:
    from t2c.engine.batch import listed
    return listed(POLYBENCH)


def has_gpu() -> bool:
    return shutil.which("nvidia-smi") is not None and os.system("nvidia-smi -L >/dev/null 2>&1") == 0


#: True when the run selects the `full` tier (`make test-all`); set by conftest.pytest_configure.
FULL_TIER = [True]


def sweep(cases, key=None) -> list:
    """An option sweep's cases: all of them under `make test-all`; under `make test`, the first
    (the first of each `key(case)`, e.g. each kernel): the other variants verify the same plan
    form again at other shapes, which the nightly tier keeps checking."""
    cases = list(cases)
    if FULL_TIER[0]:
        return cases
    seen, out = set(), []
    for c in cases:
        k = key(c) if key else None
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def c_kernel(tmp_path, text: str, name: str = "k"):
    """The kernel of C source `text`, written to tmp_path/NAME.c and read as a user's file."""
    from t2c.frontends.c import read_c
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    return read_c(path)


def accepted_on_emu(k, text: str, seed: int = 3) -> None:
    """The whole ladder on the emu at MINI accepts the candidate `text` (else its evidence)."""
    from t2c.verify.ladder import ladder
    card = ladder(k, text, backend="emu", dataset="MINI", seed=seed)
    assert card.accepted, card.summary()


def mutant_rejected_on_emu(k, text: str, change: tuple[str, str], dataset: str, why: str) -> None:
    """The ladder on the emu rejects `text` with its first `change[0]` made `change[1]` (a
    mutant of a candidate), for a reason matching the regex `why`."""
    import re
    from t2c.verify.ladder import ladder
    old, new = change
    assert old in text
    card = ladder(k, text.replace(old, new, 1), backend="emu", dataset=dataset, seed=5)
    assert not card.accepted and re.search(why, card.summary()), card.summary()


def plan_records(k, record_of) -> list:
    """`record_of(analysis, storage, launch)` for each launch of k's poly plan (the reference's
    loops, transformed and mapped): what a form's recognizer finds there, None where it finds nothing."""
    from t2c.analysis import analyze
    from t2c.generators.poly.lower import planned
    from t2c.generators.poly.options import DEFAULT
    an = analyze(k)
    plan = planned(an, DEFAULT)
    return [record_of(an, plan.storage, launch) for launch in plan.launches]


def _magnitude(bits: np.ndarray) -> np.ndarray:
    """|value| of bfloat16 bits from exponent and significand; exponent 255 reads as 2^128 (the
    step past the largest finite value, where infinity starts)."""
    e, m = (bits >> 7) & 0xFF, (bits & 0x7F).astype(np.float64)
    return np.where(e == 0, np.ldexp(m / 128, -126), np.ldexp(1 + m / 128, e.astype(np.int64) - 127))


def bfloat16_nearest(f: np.ndarray) -> np.ndarray:
    """bfloat16 bits of each finite float32 value: of its two bfloat16 neighbours (its bits
    truncated, and one step further from zero), the nearer, or at a tie the one with an even
    last bit; from half a step beyond the largest finite bfloat16 on: infinity (0x7f80)."""
    bits = f.view(np.uint32)
    low = (bits >> 16).astype(np.uint32)
    up = low + 1
    x = np.abs(f.astype(np.float64))
    dl, du = x - _magnitude(low), _magnitude(up) - x
    pick_up = (du < dl) | ((du == dl) & (low % 2 == 1))
    return np.where(pick_up, up, low).astype(np.uint16)


# A spec whose one reduction runs over a 2-d nest (the flat-range form): a Frobenius norm.
FROB_NORM_SPEC = """\
---
name: frob_norm
sizes:
  n: {MINI: 20, SMALL: 300, MEDIUM: 2000, LARGE: 4096, EXTRALARGE: 8192}
  m: {MINI: 30, SMALL: 250, MEDIUM: 2000, LARGE: 4096, EXTRALARGE: 8192}
arrays:
  a: float[n, m] in
  norm: float[] out
tolerance: {rtol: 1e-3, atol: 1e-5}
---
# Frobenius norm

```t2c
norm = sqrt(sum(i, j: a[i, j] * a[i, j]))
```
"""


def t2c_cli(args, cwd, cache_dir):
    """`python -m t2c.cli ARGS` in `cwd` as a user runs it, with no model endpoint or CI setting from
    this environment and the build cache `cache_dir`: the finished process."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "T2C_LLM_", "CI"))}
    env |= {"PYTHONPATH": str(ROOT), "T2C_CACHE_DIR": str(cache_dir)}
    return subprocess.run([sys.executable, "-m", "t2c.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=600)
