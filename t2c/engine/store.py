"""Where the batch engine keeps what it made, and what it decided.

`ArtifactCache`: content-addressed entries `<root>/<stage>/<key>/`, each with a
`result.json` and any files a stage wrote, plus `MANIFEST` holding the sha256 of
every file.  An entry is built in a temporary folder and renamed into place, so a
kill -9 at any moment leaves either no entry or a whole one; an entry whose files
no longer match their manifest is reported as corrupt and rebuilt.

`StateDB`: `.t2c/state.sqlite` in the project, one row per target with the key it
was last built at, its outcome, and why it ran (or was skipped) — what
`t2c explain` prints.  Every write is its own transaction.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from ..runtime.build import sha256_file


class ArtifactCache:
    #: A folder an entry was being built in, untouched this long, was left by a killed run.
    ABANDONED_S = 24 * 3600

    def __init__(self, root: Path):
        self.root = Path(root)
        self._swept: set[str] = set()

    def path(self, stage: str, key: str) -> Path:
        return self.root / stage / key

    def load(self, stage: str, key: str) -> tuple[dict | None, str]:
        """(result, "") for a whole entry; (None, why) when absent or corrupt."""
        entry = self.path(stage, key)
        manifest = entry / "MANIFEST"
        if not manifest.exists():
            return None, "not built at this key"
        try:
            files = json.loads(manifest.read_text())
            for name, digest in files.items():
                if sha256_file(entry / name) != digest:
                    return None, f"cache entry corrupt ({name} changed)"
            return json.loads((entry / "result.json").read_text()), ""
        except (OSError, ValueError) as e:
            return None, f"cache entry corrupt ({e.__class__.__name__})"

    def new_entry(self, stage: str) -> Path:
        """A private folder to build an entry in (pass it to `commit`)."""
        parent = self.root / stage
        parent.mkdir(parents=True, exist_ok=True)
        if stage not in self._swept:                     # once a stage per process
            self._swept.add(stage)
            old = time.time() - self.ABANDONED_S
            for left in parent.glob(".building-*"):
                try:
                    if left.stat().st_mtime < old:
                        shutil.rmtree(left, ignore_errors=True)
                except OSError:
                    pass
        return Path(tempfile.mkdtemp(prefix=".building-", dir=parent))

    def commit(self, stage: str, key: str, work: Path, result: dict) -> None:
        (work / "result.json").write_text(json.dumps(result, sort_keys=True, indent=1))
        files = {p.name: sha256_file(p) for p in sorted(work.iterdir()) if p.is_file()}
        tmp = work / "MANIFEST.tmp"
        tmp.write_text(json.dumps(files, sort_keys=True))
        for p in work.iterdir():                         # data on disk before the rename
            if p.is_file():
                with open(p, "rb") as f:
                    os.fsync(f.fileno())
        os.replace(tmp, work / "MANIFEST")
        dest = self.path(stage, key)
        if dest.exists():                                # a corrupt or concurrent entry
            shutil.rmtree(dest, ignore_errors=True)
        try:
            os.replace(work, dest)
        except OSError:                                  # another worker won the race
            shutil.rmtree(work, ignore_errors=True)

    def discard(self, work: Path) -> None:
        shutil.rmtree(work, ignore_errors=True)

    def clean(self) -> int:
        n = sum(1 for _ in self.root.glob("*/*")) if self.root.exists() else 0
        shutil.rmtree(self.root, ignore_errors=True)
        return n


class StateDB:
    SCHEMA = """create table if not exists targets (
        target text primary key, stage text, kernel text, key text, status text,
        reason text, seconds real, finished real, parts text)"""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._open()
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError):     # locked, unreadable: not damage
                raise
            # A damaged state (a disk full, a copy cut short) only loses the recorded reasons: the
            # cache is content-keyed and checked, so nothing built is lost.  Keep it aside, start anew.
            aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
            self.db.close()
            self.path.rename(aside)
            for extra in ("-wal", "-shm"):
                Path(f"{self.path}{extra}").unlink(missing_ok=True)
            print(f"t2c: the run state {self.path} was damaged ({e}); kept as {aside.name}, "
                  "starting a new one (the cache is intact)", file=sys.stderr)
            self._open()

    def _open(self):
        self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        # Workers open the database at the same moment: switching to WAL needs a lock that
        # the busy timeout does not wait for, so retry the set-up briefly.
        for attempt in range(50):
            try:
                if self.db.execute("pragma journal_mode").fetchone()[0] != "wal":
                    self.db.execute("pragma journal_mode=wal")
                self.db.execute(self.SCHEMA)
                break
            except sqlite3.OperationalError as e:
                if attempt == 49 or "locked" not in str(e) and "busy" not in str(e):
                    raise
                time.sleep(0.1)

    def get(self, target: str) -> dict | None:
        row = self.db.execute("select target, stage, kernel, key, status, reason, seconds, finished, "
                              "parts from targets where target = ?", (target,)).fetchone()
        if row is None:
            return None
        d = dict(zip(("target", "stage", "kernel", "key", "status", "reason", "seconds",
                      "finished", "parts"), row))
        d["parts"] = json.loads(d["parts"] or "{}")
        return d

    def record(self, target: str, stage: str, kernel: str, key: str, status: str, reason: str,
               seconds: float, parts: dict) -> None:
        self.db.execute("insert or replace into targets values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (target, stage, kernel, key, status, reason, seconds, time.time(),
                         json.dumps(parts, sort_keys=True)))

    def all(self) -> list[dict]:
        return [self.get(t) for (t,) in self.db.execute("select target from targets order by target")]

    def close(self):
        self.db.close()
