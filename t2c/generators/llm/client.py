"""One chat completion from any OpenAI-compatible endpoint, cached, retried and limited.

    Client(cfg).complete(messages, sample=0) -> Reply(text, usage, cached, key, finish_reason)

Takes an `LLMConfig` (t2c/config.py); talks through the official `openai` SDK (the
`t2c[llm]` extra) to `cfg.base_url` (vLLM, Ollama, llama.cpp's server, LM Studio, OpenAI).
In order, for one request:

1. the response cache (cache.py) answers if its mode allows; replay refuses a miss;
2. a slot of the endpoint's concurrency limit is taken (a lock file, so the limit holds
   across the batch's worker processes);
3. the SDK sends it, retrying 429, 408/409, 5xx, timeouts and dropped connections itself
   with exponential backoff that honours Retry-After (`cfg.retries` times);
4. what the SDK does not retry is retried here with backoff: a body that is not JSON, a
   stream cut before its end, an answer without any choice;
5. the answer and its token usage go into the cache.

The key is read from the variable `cfg.api_key_env` names, when the SDK client is made,
and is not kept anywhere else: not in the request that the cache stores, not in errors
(any text that would carry it is masked), and candidates run with a scrubbed
environment (verify/harness.py).  Refuses with UserError: no model configured, openai
not installed, an endpoint that rejects the request (4xx), one that stays unreachable.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ... import config
from ...config import LLMConfig
from ...errors import UserError
from .cache import ResponseCache, request_key

#: Backoff of the retries done here (the SDK has its own for HTTP-level failures).
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)


class LLMUnavailable(UserError):
    """The endpoint could not give an answer after every retry."""


@dataclass(frozen=True)
class Reply:
    text: str
    usage: dict
    cached: bool
    key: str
    finish_reason: str = ""


class Client:
    def __init__(self, cfg: LLMConfig, env=os.environ):
        if not cfg.model:
            raise UserError("the llm generator needs a model, and none is configured",
                            hint="set --llm-model, T2C_LLM_MODEL or `llm: {model: ...}` in t2c.yaml, and "
                                 "the endpoint with --llm-base-url / T2C_LLM_BASE_URL (docs/llm.md)")
        self.cfg, self.env = cfg, env
        self.cache = ResponseCache(cfg.response_cache_dir(), cfg.cache)
        self._sdk = None

    # -- the request ----------------------------------------------------------------------
    def request(self, messages: list[dict], sample: int) -> dict:
        """What identifies an answer (the cache key's content); no address, no key."""
        c = self.cfg
        return {"model": c.model, "messages": messages, "temperature": c.temperature,
                "max_tokens": c.max_tokens, "extra_body": c.extra_body, "sample": sample}

    def complete(self, messages: list[dict], sample: int = 0) -> Reply:
        request = self.request(messages, sample)
        key = request_key(request)
        hit = self.cache.get(key)
        if hit is not None:
            return Reply(hit["text"], hit.get("usage") or {}, True, key, hit.get("finish_reason", ""))
        with self._slot():
            answer = self._ask(messages)
        self.cache.put(key, request, answer)
        return Reply(answer["text"], answer["usage"], False, key, answer["finish_reason"])

    # -- the SDK --------------------------------------------------------------------------
    def _client(self):
        if self._sdk is None:
            try:
                import openai
            except ImportError:
                raise UserError("the llm generator needs the openai package, which is not installed",
                                hint="pip install 't2c[llm]' (or pip install openai)") from None
            c = self.cfg
            self._key = config.llm_api_key(c, self.env)
            # Local servers take any key; the SDK insists on a non-empty one.
            self._sdk = openai.OpenAI(base_url=c.base_url, api_key=self._key or "not-needed",
                                      max_retries=c.retries, timeout=c.timeout)
        return self._sdk

    def _ask(self, messages: list[dict]) -> dict:
        import openai
        client, c = self._client(), self.cfg
        problems = []
        for attempt in range(c.retries + 1):
            if attempt:
                time.sleep(BACKOFF_S[min(attempt - 1, len(BACKOFF_S) - 1)])
            try:
                return self._stream(client, messages) if c.stream else self._plain(client, messages)
            except openai.APIStatusError as e:
                if e.status_code in (408, 409, 429) or e.status_code >= 500:   # the SDK's retries ran out
                    problems.append(f"HTTP {e.status_code}")
                    continue
                raise UserError(f"the model endpoint refused the request: HTTP {e.status_code}: "
                                f"{self._mask(_message(e))}", hint="check the model name, the base URL "
                                "and the key variable (docs/llm.md)") from None
            except (openai.APIConnectionError, openai.APITimeoutError) as e:
                problems.append(self._mask(f"{type(e).__name__}: {e}"))
            except (ValueError, _Truncated, openai.APIError) as e:   # not JSON, a cut stream, no choices
                problems.append(self._mask(f"unusable answer: {e}"[:200]))
        raise LLMUnavailable(f"no answer from the model endpoint {c.base_url or '(OpenAI)'} after "
                             f"{len(problems)} attempt(s): {'; '.join(problems[-3:])}",
                             hint="is the server running? (docs/llm.md)")

    def _common(self) -> dict:
        c = self.cfg
        return {"model": c.model, "temperature": c.temperature, "max_tokens": c.max_tokens,
                **({"extra_body": c.extra_body} if c.extra_body else {})}

    def _plain(self, client, messages) -> dict:
        r = client.chat.completions.create(messages=messages, **self._common())
        if not getattr(r, "choices", None):
            raise _Truncated("the answer has no choices")
        u = r.usage
        usage = {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens} if u else {}
        return {"text": r.choices[0].message.content or "", "usage": usage,
                "finish_reason": r.choices[0].finish_reason or ""}

    def _stream(self, client, messages) -> dict:
        parts, finish, usage = [], None, {}
        stream = client.chat.completions.create(messages=messages, stream=True,
                                                stream_options={"include_usage": True}, **self._common())
        for chunk in stream:
            if chunk.usage:
                usage = {"prompt_tokens": chunk.usage.prompt_tokens,
                         "completion_tokens": chunk.usage.completion_tokens}
            for choice in chunk.choices or ():
                if choice.delta and choice.delta.content:
                    parts.append(choice.delta.content)
                finish = choice.finish_reason or finish
        if finish is None:
            raise _Truncated(f"the stream ended without a finish reason after {len(parts)} chunk(s)")
        return {"text": "".join(parts), "usage": usage, "finish_reason": finish}

    def _mask(self, text: str) -> str:
        key = getattr(self, "_key", None)
        return text.replace(key, "***") if key else text

    # -- the concurrency limit ---------------------------------------------------------------
    @contextmanager
    def _slot(self):
        """One of `cfg.concurrency` lock files of this endpoint, shared by every process."""
        folder = config.load().cache_dir / "llm-slots"
        folder.mkdir(parents=True, exist_ok=True)
        endpoint = hashlib.sha256((self.cfg.base_url or "openai").encode()).hexdigest()[:12]
        n = max(1, self.cfg.concurrency)
        while True:
            for i in range(n):
                f = open(Path(folder, f"{endpoint}-{i}.lock"), "w")
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    f.close()
                    continue
                try:
                    yield i
                finally:
                    fcntl.flock(f, fcntl.LOCK_UN)
                    f.close()
                return
            time.sleep(0.05)


class _Truncated(Exception):
    pass


def _message(e) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)[:300]
    return str(e)[:300]
