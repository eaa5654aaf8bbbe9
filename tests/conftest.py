"""Session set-up for every test: a private t2c cache, and GPU tests skipped without a GPU."""
import os

import pytest

import t2ctest
from t2ctest import POLYBENCH, ROOT, corpus_sources, has_gpu  # noqa: F401  (re-exported)


def pytest_configure(config):
    # `make test` deselects the full tier (-m "not full"); option sweeps then run their first case
    t2ctest.FULL_TIER[0] = "not full" not in (config.getoption("markexpr") or "")


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Tests build into their own cache, never the user's.  The emu build cache (content-keyed,
    written atomically) is one for the whole session, also for tests that give themselves a
    fresh t2c cache: the emu runtime and each distinct program are compiled once.  So is the
    build cache of references and candidates (T2C_BUILD_CACHE)."""
    os.environ["T2C_CACHE_DIR"] = str(tmp_path_factory.mktemp("t2c-cache"))
    shared = tmp_path_factory.getbasetemp().parent             # one for every xdist worker
    os.environ.setdefault("T2C_EMU_CACHE", str(shared / "t2c-emu-shared"))
    os.environ.setdefault("T2C_BUILD_CACHE", str(shared / "t2c-build-shared"))
    yield


def pytest_collection_modifyitems(config, items):
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
