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
