"""Fixtures of the LLM tests: a fake OpenAI-compatible server and a config pointing at it."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakellm import FakeLLM  # noqa: E402
from scripted import responder  # noqa: E402

from llmtest import KEY  # noqa: E402
from t2c.config import LLMConfig  # noqa: E402


@pytest.fixture
def fake():
    with FakeLLM(responder=responder) as server:
        yield server


@pytest.fixture
def cfg(fake, tmp_path):
    return LLMConfig(base_url=fake.base_url, model="fake-coder", cache_dir=str(tmp_path / "llm-cache"),
                     api_key_env="T2C_TEST_KEY", retries=2, timeout=10,
                     backoff=0.01, backoff_max=2.0)


@pytest.fixture
def env():
    return {"T2C_TEST_KEY": KEY}
