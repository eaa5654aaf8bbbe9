"""Session set-up for every test: a private t2c cache, and GPU tests skipped without a GPU."""
import os

import pytest

from t2ctest import POLYBENCH, ROOT, corpus_sources, has_gpu  # noqa: F401  (re-exported)


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Tests build into their own cache, never the user's."""
    os.environ["T2C_CACHE_DIR"] = str(tmp_path_factory.mktemp("t2c-cache"))
    yield


def pytest_collection_modifyitems(config, items):
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
