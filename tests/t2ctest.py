"""Shared test helpers (importable from any test folder, unlike a conftest module)."""
import os
import shutil
from pathlib import Path

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
