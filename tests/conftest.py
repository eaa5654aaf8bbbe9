"""Shared fixtures: the repository root, the corpus, and a private t2c cache per session."""
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
POLYBENCH = ROOT / "corpora" / "polybench"


def corpus_sources() -> list[Path]:
    return [POLYBENCH / line.strip() for line in (POLYBENCH / "benchmark_list").read_text().split()]


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Tests build into their own cache, never the user's."""
    os.environ["T2C_CACHE_DIR"] = str(tmp_path_factory.mktemp("t2c-cache"))
    yield


def has_gpu() -> bool:
    return shutil.which("nvidia-smi") is not None and os.system("nvidia-smi -L >/dev/null 2>&1") == 0


def pytest_collection_modifyitems(config, items):
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
