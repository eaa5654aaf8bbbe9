"""LLM settings: one home, a fixed precedence, and no key anywhere but its variable."""
import pytest

from t2c.config import LLMConfig, llm_api_key, load_llm
from t2c.errors import UserError


def test_precedence_cli_then_t2c_env_then_project_file_then_openai(tmp_path):
    project = tmp_path / "t2c.yaml"
    project.write_text("llm:\n  model: from-yaml\n  temperature: 0.7\n  base_url: http://yaml/v1\n")
    env = {"OPENAI_BASE_URL": "http://openai-var/v1", "OPENAI_MODEL": "from-openai",
           "T2C_LLM_TEMPERATURE": "0.5", "T2C_LLM_EXTRA_BODY": '{"top_k": 20}'}
    cfg = load_llm({"temperature": "0.1"}, env=env, project=project)
    assert (cfg.model, cfg.temperature, cfg.base_url, cfg.extra_body) == (
        "from-yaml", 0.1, "http://yaml/v1", {"top_k": 20})
    assert load_llm({}, env=env, project=project).temperature == 0.5
    assert load_llm({}, env=env, project=tmp_path / "none.yaml").model == "from-openai"
    assert load_llm({}, env={}, project=tmp_path / "none.yaml") == LLMConfig()


def test_bad_values_and_keys_in_the_project_file_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="cache mode"):
        load_llm({"cache": "sometimes"}, env={}, project=tmp_path / "none.yaml")
    with pytest.raises(UserError, match="T2C_LLM_MAX_TOKENS"):
        load_llm({}, env={"T2C_LLM_MAX_TOKENS": "many"}, project=tmp_path / "none.yaml")
    project = tmp_path / "t2c.yaml"
    project.write_text("llm:\n  api_key: sk-123\n")
    with pytest.raises(UserError):
        load_llm({}, env={}, project=project)


def test_identity_names_what_changes_answers_and_never_the_key():
    cfg = LLMConfig(model="m", base_url="http://a/v1")
    env = {"OPENAI_API_KEY": "sk-secret"}
    assert llm_api_key(cfg, env) == "sk-secret"
    assert "sk-secret" not in repr(cfg) + repr(cfg.identity()) + repr(cfg.to_dict())
    assert cfg.identity() == LLMConfig(model="m", base_url="http://b/v1", cache="replay").identity()
    assert cfg.identity() != LLMConfig(model="other").identity()
