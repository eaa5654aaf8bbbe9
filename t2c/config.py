"""Every knob of t2c has its home here, with its default and the variable that sets it.

    load() -> Config;  load_llm(cli) -> LLMConfig (the `llm` and `hybrid` generators' settings)

Takes the environment (`T2C_*`), and for `LLMConfig` also command-line flags, the `llm:`
section of `t2c.yaml` in the current directory and `OPENAI_BASE_URL` / `OPENAI_MODEL`, in that
order of precedence; gives frozen settings. The API key is read only from the variable
`api_key_env` names, only when a request is sent, and is never stored in a setting, a cache
entry, a report or a log. Nothing else in t2c reads the environment for settings. The tables of
every setting, variable and default: docs/usage.md ("Settings") and docs/llm.md ("Settings").
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from .errors import UserError


@dataclass(frozen=True)
class Config:
    cache_dir: Path
    cc: str
    ref_cflags: tuple[str, ...]
    timeout: float
    dataset: str | None
    nvcc: str | None
    cxx: str = "g++"
    emu_cache: Path | None = None
    build_cache: Path | None = None     # compiled programs and seeds' suites (content-keyed); cache_dir
    verify_points: int = 4
    verify_point_work: int = 500_000     # loop iterations of the checked reference (synth's budgets)
    verify_emu_work: int = 5_000_000
    verify_race_seeds: int = 3
    verify_run_timeout: float = 30.0
    verify_mem_mb: int = 8192
    verify_bench_reps: int = 20
    verify_bench_restore: str = "device"
    verify_bench_start: str = "queued"
    compute_sanitizer: str | None = None
    isl_budget: int = 50_000_000


#: T2C_TIMEOUT's default at EXTRALARGE, where one reference run takes minutes (2.5 at most on an
#: H100 host for PolyBench, reports/h100-polybench-extralarge-23), against 120 s below it.
EXTRALARGE_TIMEOUT = 1800


def dataset_defaults(dataset: str | None, env=os.environ) -> None:
    """Set the defaults a dataset changes in this process's environment, which its workers
    inherit, unless the user set them: T2C_TIMEOUT at EXTRALARGE (`dataset`, else T2C_DATASET)."""
    if (dataset or env.get("T2C_DATASET") or "").upper() == "EXTRALARGE":
        env.setdefault("T2C_TIMEOUT", str(EXTRALARGE_TIMEOUT))


def load(env=os.environ) -> Config:
    xdg = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    if env.get("T2C_VERIFY_BENCH_RESTORE", "device") not in ("device", "host"):
        raise ValueError(f"T2C_VERIFY_BENCH_RESTORE={env['T2C_VERIFY_BENCH_RESTORE']!r}: set it to device or host")
    if env.get("T2C_VERIFY_BENCH_START", "queued") not in ("queued", "idle"):
        raise ValueError(f"T2C_VERIFY_BENCH_START={env['T2C_VERIFY_BENCH_START']!r}: set it to queued or idle")
    nvcc = env.get("T2C_NVCC") or find_nvcc()
    return Config(
        cache_dir=Path(env.get("T2C_CACHE_DIR") or Path(xdg) / "t2c"),
        cc=env.get("T2C_CC", "gcc"),
        ref_cflags=tuple(shlex.split(env.get("T2C_REF_CFLAGS", "-O2 -std=c99 -ffp-contract=off"))),
        timeout=float(env.get("T2C_TIMEOUT", "120")),
        dataset=env.get("T2C_DATASET"),
        nvcc=nvcc,
        cxx=env.get("T2C_CXX", "g++"),
        emu_cache=Path(env["T2C_EMU_CACHE"]) if env.get("T2C_EMU_CACHE") else None,
        build_cache=Path(env["T2C_BUILD_CACHE"]) if env.get("T2C_BUILD_CACHE") else None,
        verify_points=int(env.get("T2C_VERIFY_POINTS", "4")),
        verify_point_work=int(float(env.get("T2C_VERIFY_POINT_WORK", "500000"))),
        verify_emu_work=int(float(env.get("T2C_VERIFY_EMU_WORK", "5000000"))),
        verify_race_seeds=int(env.get("T2C_VERIFY_RACE_SEEDS", "3")),
        verify_run_timeout=float(env.get("T2C_VERIFY_RUN_TIMEOUT", "30")),
        verify_mem_mb=int(env.get("T2C_VERIFY_MEM_MB", "8192")),
        verify_bench_reps=int(env.get("T2C_VERIFY_BENCH_REPS", "20")),
        verify_bench_restore=env.get("T2C_VERIFY_BENCH_RESTORE", "device"),
        verify_bench_start=env.get("T2C_VERIFY_BENCH_START", "queued"),
        compute_sanitizer=_compute_sanitizer(env, nvcc),
        isl_budget=int(env.get("T2C_ISL_BUDGET", "50000000")),
    )


def _compute_sanitizer(env, nvcc: str | None) -> str | None:
    """T2C_COMPUTE_SANITIZER: a path, or `off` (the gpu races rung then runs its emu fallback)."""
    given = env.get("T2C_COMPUTE_SANITIZER", "")
    if given.lower() in ("off", "none", "0"):
        return None
    if given and not Path(given).is_file():
        raise ValueError(f"T2C_COMPUTE_SANITIZER={given!r}: no such file; give compute-sanitizer's path, or off")
    return given or find_compute_sanitizer(nvcc, env.get("PATH"))


def find_nvcc() -> str | None:
    """nvcc on PATH, else the one the nvidia-cuda-nvcc wheel put next to this Python."""
    found = shutil.which("nvcc")
    if found:
        return found
    import sysconfig
    for sub in ("cu13", "cuda_nvcc", "cu12"):
        cand = Path(sysconfig.get_paths()["purelib"]) / "nvidia" / sub / "bin" / "nvcc"
        if cand.exists():
            return str(cand)
    return None


def find_compute_sanitizer(nvcc: str | None, path: str | None = None) -> str | None:
    """compute-sanitizer on `path` (default: PATH), else in the toolkit of `nvcc`: in its bin/, or
    in <toolkit>/compute-sanitizer/, where the CUDA toolkit installs it without linking it into
    bin/ (so it is often not on PATH where nvcc is).  An nvcc that is a symlink, or a small
    wrapper script ending in `exec /…/nvcc "$@"` (/usr/local/bin/nvcc on some hosts), leads to
    the toolkit it names too."""
    found = shutil.which("compute-sanitizer", path=path)
    if found or not nvcc:
        return found
    for nvcc_path in _nvcc_targets(Path(nvcc)):
        bindir = nvcc_path.parent
        for cand in (bindir / "compute-sanitizer", bindir.parent / "compute-sanitizer" / "compute-sanitizer"):
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand)
    return None


def _nvcc_targets(nvcc: Path) -> list[Path]:
    """nvcc as given, its resolved path, and what a wrapper script execs, without repeats."""
    out = [nvcc, nvcc.resolve()]
    try:
        with open(out[1], "rb") as f:
            head = f.read(4096)
    except OSError:
        head = b""
    if head.startswith(b"#!"):
        for word in head.decode(errors="replace").split():
            if word.strip("\"'").endswith("/nvcc"):
                out.append(Path(word.strip("\"'")))
    return list(dict.fromkeys(out))


# -- the llm and hybrid generators ---------------------------------------------------------

LLM_CACHE_MODES = ("rw", "replay", "refresh", "off")
PROJECT_FILE = "t2c.yaml"


@dataclass(frozen=True)
class LLMConfig:
    """Where the model is and how t2c may use it.  Holds the *name* of the key variable only."""
    base_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.2
    max_tokens: int = 4096
    extra_body: dict = field(default_factory=dict)
    stream: bool = False
    timeout: float = 300.0
    retries: int = 4                 # t2c's retries of one request; the SDK's own are off
    backoff: float = 1.0             # seconds before the first retry, doubling after each
    backoff_max: float = 30.0        # the longest wait, a server's Retry-After included
    concurrency: int = 4
    cache: str = "rw"
    cache_dir: str | None = None
    population: int = 2
    rounds: int = 4
    max_calls: int = 16
    max_kernel_tokens: int = 400_000
    max_cost: float = 0.0
    max_seconds: float = 1800.0
    price_in: float = 0.0
    price_out: float = 0.0
    max_run_requests: int = 200      # a whole `gen` or `batch`: requests sent, retries included
    max_run_tokens: int = 2_000_000  # a whole run: prompt + answer tokens of fresh answers

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "LLMConfig":
        return cls(**{k: v for k, v in d.items() if k in {f.name for f in fields(cls)}})

    def identity(self) -> dict:
        """What a generated candidate depends on (a stage key part): not the endpoint's address,
        the key, the cache mode, timeouts or concurrency, which do not change what the model says."""
        return {k: getattr(self, k) for k in ("model", "temperature", "max_tokens", "extra_body",
                                              "population", "rounds", "max_calls",
                                              "max_kernel_tokens", "max_cost")}

    def response_cache_dir(self) -> Path:
        return Path(self.cache_dir) if self.cache_dir else load().cache_dir / "llm"


def _coerce(name: str, value, origin: str):
    """A setting's value from text (environment) or YAML, checked against the field's type."""
    kind = {f.name: f.type for f in fields(LLMConfig)}[name]
    try:
        if value is None or kind in ("str | None", "str"):
            out = None if value is None else str(value)
        elif kind == "bool":
            out = value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes", "on")
        elif kind == "int":
            out = int(value)
        elif kind == "float":
            out = float(value)
        else:                                                   # extra_body: a mapping
            out = json.loads(value) if isinstance(value, str) else value
            if not isinstance(out, dict):
                raise ValueError
    except (TypeError, ValueError):
        raise UserError(f"{origin}: '{value}' is not a valid value for the LLM setting '{name}'",
                        hint="see docs/llm.md for each setting's type") from None
    if name == "cache" and out not in LLM_CACHE_MODES:
        raise UserError(f"{origin}: LLM cache mode '{out}' is not one of {', '.join(LLM_CACHE_MODES)}",
                        hint="rw (default), replay (CI: cached answers only), refresh or off")
    return out


def _project_llm(path: Path) -> dict:
    if not path.exists():
        return {}
    import yaml
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise UserError(f"cannot read {path}: {e}", file=str(path)) from None
    section = data.get("llm") if isinstance(data, dict) else None
    if section is None:
        return {}
    known = {f.name for f in fields(LLMConfig)}
    if not isinstance(section, dict) or set(section) - known:
        bad = sorted(set(section) - known) if isinstance(section, dict) else ["llm"]
        raise UserError(f"unknown LLM setting(s) {', '.join(bad)} in {path}", file=str(path),
                        hint=f"known: {', '.join(sorted(known))}")
    if "api_key" in section:
        raise UserError("t2c.yaml may not hold a key", file=str(path), hint="set api_key_env to the "
                        "name of the environment variable that holds it")
    return section


def load_llm(cli: dict | None = None, env=os.environ, project: Path | str = PROJECT_FILE) -> LLMConfig:
    """Precedence: command line > T2C_LLM_* > t2c.yaml's `llm:` > OPENAI_BASE_URL / OPENAI_MODEL."""
    values: dict = {}
    fallback = {"base_url": env.get("OPENAI_BASE_URL"), "model": env.get("OPENAI_MODEL")}
    values.update({k: v for k, v in fallback.items() if v})
    for k, v in _project_llm(Path(project)).items():
        values[k] = _coerce(k, v, str(project))
    for f in fields(LLMConfig):
        var = f"T2C_LLM_{f.name.upper()}"
        if env.get(var) not in (None, ""):
            values[f.name] = _coerce(f.name, env[var], var)
    for k, v in (cli or {}).items():
        if v is not None:
            values[k] = _coerce(k, v, f"--llm-{k.replace('_', '-')}")
    return replace(LLMConfig(), **values)


def llm_api_key(cfg: LLMConfig, env=os.environ) -> str | None:
    """The key, read from the variable the settings name; only the client calls this."""
    return env.get(cfg.api_key_env) or None
