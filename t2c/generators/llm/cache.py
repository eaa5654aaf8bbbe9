"""The response cache: a model's answers kept by the content of the request that got them.

A request is the model's name, the messages, the sampling settings and a sample index (so
the members of a population are different entries); its SHA-256 over canonical JSON is
the key, and the entry (`<dir>/<key[:2]>/<key>.json`) holds the request and the answer
with its token usage.  Never stored: the endpoint's address or the key, so a cache made
against one server replays anywhere.  Entries are written atomically.

Modes (`T2C_LLM_CACHE`): `rw` reads a hit and writes a miss; `replay` reads only and
refuses a miss (CI: a run reproduced without a model); `refresh` asks the model again and
overwrites; `off` neither reads nor writes.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from ...errors import UserError


class ReplayMiss(UserError):
    """Replay mode, and the cache has no answer for this request."""


def request_key(request: dict) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class ResponseCache:
    def __init__(self, folder: Path, mode: str = "rw"):
        self.folder, self.mode = Path(folder), mode

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The cached answer, None to ask the model; ReplayMiss in replay mode without one."""
        if self.mode in ("off", "refresh"):
            return None
        try:
            entry = json.loads(self.path(key).read_text())
            return entry["answer"]
        except (OSError, ValueError, KeyError):
            if self.mode == "replay":
                raise ReplayMiss(f"replay mode: no cached model answer for request {key[:16]} "
                                 f"in {self.folder}", hint="run once with T2C_LLM_CACHE=rw (or "
                                 "--llm-cache rw) against a model to record it") from None
            return None

    def put(self, key: str, request: dict, answer: dict) -> None:
        if self.mode in ("off", "replay"):
            return
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w") as f:
            json.dump({"key": key, "request": request, "answer": answer}, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
