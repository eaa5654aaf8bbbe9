"""One chat completion from any OpenAI-compatible endpoint, cached, retried and limited.

    Client(cfg, env, run=RunBudget(cfg)).complete(messages, sample=0)
        -> Reply(text, usage, cached, key, finish_reason)

Takes an `LLMConfig` and talks through the official `openai` SDK (the `t2c[llm]` extra) to
`cfg.base_url`. A request goes through the response cache, the run's budget, a slot of the
endpoint's concurrency limit (lock files, across worker processes), one send with t2c's own
retry policy (the SDK's is off), and back into the cache. Every endpoint failure raises
`EndpointFailed` (exit 6) naming the requests it cost. The key is read from `cfg.api_key_env`
only when the SDK client is made and is kept nowhere else, masked in errors. Refuses with
UserError: no model configured, openai not installed. docs/llm.md, "Robustness and keys".
"""
from __future__ import annotations

import email.utils
import fcntl
import hashlib
import os
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ... import config
from ...config import LLMConfig
from ...errors import EndpointFailed, UserError
from .budget import RunBudget
from .cache import ResponseCache, request_key

#: HTTP statuses worth another try: timeouts, conflicts, rate limits, the server's own faults.
RETRIED_STATUS = (408, 409, 429)


class LLMUnavailable(EndpointFailed):
    """The endpoint could not give an answer: refused connection, or every retry spent."""


@dataclass(frozen=True)
class Reply:
    text: str
    usage: dict
    cached: bool
    key: str
    finish_reason: str = ""


class Client:
    def __init__(self, cfg: LLMConfig, env=os.environ, run: RunBudget | None = None):
        if not cfg.model:
            raise UserError("the llm generator needs a model, and none is configured",
                            hint="set --llm-model, T2C_LLM_MODEL or `llm: {model: ...}` in t2c.yaml, and "
                                 "the endpoint with --llm-base-url / T2C_LLM_BASE_URL (docs/llm.md)")
        self.cfg, self.env = cfg, env
        self.run = run or RunBudget(cfg)
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
                                      max_retries=0, timeout=c.timeout)
        return self._sdk

    def _ask(self, messages: list[dict]) -> dict:
        import openai
        client, c = self._client(), self.cfg
        problems, where = [], c.base_url or "(OpenAI)"
        for attempt in range(max(0, c.retries) + 1):
            self.run.take_request()                 # RunBudgetSpent: the run may send no more
            wait = None
            try:
                with self._slot():
                    answer = self._stream(client, messages) if c.stream else self._plain(client, messages)
                self.run.add_tokens(sum(answer["usage"].values()))
                return answer
            except openai.APIStatusError as e:
                if e.status_code not in RETRIED_STATUS and e.status_code < 500:
                    raise LLMUnavailable(f"the model endpoint {where} refused the request: HTTP "
                                         f"{e.status_code}: {self._mask(_message(e))}", hint="check the "
                                         "model name, the base URL and the key variable (docs/llm.md)") from None
                problems.append(f"HTTP {e.status_code}")
                wait = retry_after(e.response.headers)
            except openai.APITimeoutError:
                problems.append(f"no answer within {c.timeout:g} s")
            except openai.APIConnectionError as e:
                if _refused(e):                     # nobody listens there: no use waiting
                    raise LLMUnavailable(f"cannot connect to the model endpoint {where}: "
                                         f"{self._mask(str(e.__cause__) or 'connection refused')}",
                                         hint="is the server running, and is --llm-base-url right? "
                                              "(docs/llm.md)") from None
                problems.append(self._mask(f"connection dropped: {e.__cause__ or e}")[:200])
            except (ValueError, _Truncated, openai.APIError) as e:   # not JSON, a cut stream, no choices
                problems.append(self._mask(f"unusable answer: {e}"[:200]))
            if attempt < c.retries:
                time.sleep(min(c.backoff_max, wait if wait is not None else c.backoff * 2 ** attempt))
        raise LLMUnavailable(f"no usable answer from the model endpoint {where} after {len(problems)} "
                             f"request(s) (1 + {c.retries} retries): {'; '.join(problems[-3:])}",
                             hint="is the server up and the model loaded? raise --llm-timeout for a "
                                  "slow one (docs/llm.md)")

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


def _refused(e: BaseException) -> bool:
    """A connection that was never made (refused, no such host), as opposed to one dropped
    mid-answer.  By the causes' types: the SDK's HTTP library (httpx or httpx2) varies."""
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, (ConnectionRefusedError, socket.gaierror)) or type(e).__name__ == "ConnectError":
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def retry_after(headers) -> float | None:
    """Seconds a 429/503 asks to wait: `retry-after-ms`, or `Retry-After` in seconds or as a date."""
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, AttributeError):
        return None


def _message(e) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)[:300]
    return str(e)[:300]
