"""The batch engine behaves like a build tool: incremental, explainable, resumable, shardable."""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from junitparser import JUnitXml

from t2ctest import POLYBENCH, ROOT, has_gpu

KERNELS = ["linear-algebra/blas/gemm", "linear-algebra/kernels/atax", "stencils/jacobi-1d"]


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    """A three-kernel corpus in a temporary project, with its own cache and state."""
    root = tmp_path / "corpus"
    shutil.copytree(POLYBENCH / "utilities", root / "utilities")
    for k in KERNELS:
        shutil.copytree(POLYBENCH / k, root / k)
    (root / "utilities" / "benchmark_list").unlink()     # the corpus's own list names all 30
    (root / "benchmark_list").write_text("".join(f"{k}/{Path(k).name}.c\n" for k in KERNELS))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("T2C_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CI_NODE_INDEX", raising=False)
    # one secret for every test's project: the suites drawn for it are replayed from the build
    # cache the session shares (each test still starts with empty run state and cache)
    (tmp_path / ".t2c").mkdir()
    (tmp_path / ".t2c" / "secret-seed").write_text("20261204")
    return root


def t2c(*args, check=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "t2c.cli", *args], capture_output=True, text=True, env=env)
    if check is not None:
        assert r.returncode == check, r.stdout + r.stderr
    return r


def plan(*args) -> dict[str, tuple[str, str]]:
    r = t2c("batch", "corpus", "-n", *args, check=0)
    out = {}
    for line in r.stdout.splitlines():
        target, status, *reason = line.split(None, 2)
        out[target] = (status, " ".join(reason))
    return out


def ran(stderr: str) -> set[str]:
    return {line.split()[1] for line in stderr.splitlines()
            if line.split() and line.split()[0] in ("ok", "failed", "error", "skipped")
            and ":" in line.split()[1]}


def test_no_op_rerun_redoes_nothing(corpus):
    first = t2c("batch", "corpus", "-j", "2", check=0)
    assert "3 accepted of 3 kernels" in first.stdout
    assert {"gemm:parse", "atax:reference"} <= ran(first.stderr)
    second = t2c("batch", "corpus", check=0)
    assert ran(second.stderr) == set()
    assert all(s != "would-run" for s, _ in plan().values())
    # a no-op adds no report folder (nor a history line): the last report still holds
    folders = [d for d in Path(".t2c/runs").iterdir() if d.is_dir() and d.name != "history"]
    assert len(folders) == 1 and f"nothing changed: the report is still .t2c/runs/{folders[0].name}" in second.stdout
    third = t2c("batch", "corpus", "--only", "gemm", check=0)       # another selection: its own report
    assert "report in .t2c/runs/" in third.stdout


def test_changing_one_kernel_reruns_only_its_targets(corpus):
    t2c("batch", "corpus", check=0)
    src = corpus / "linear-algebra/kernels/atax/atax.c"
    src.write_text(src.read_text().replace("tmp[i] = tmp[i] + A[i][j] * x[j];",
                                           "tmp[i] = tmp[i] + A[i][j] * x[j] * SCALAR_VAL(1.0);"))
    p = plan()
    assert p["atax:parse"] == ("would-run", "changed: source, preprocessed")
    assert {t for t, (s, _) in p.items() if s == "would-run"} == {"atax:parse"}
    r = t2c("batch", "corpus", check=0)
    assert {t.split(":")[0] for t in ran(r.stderr)} == {"atax"}


def test_a_setting_reruns_the_affected_stage_only(corpus):
    t2c("batch", "corpus", check=0)
    p = plan("--dataset", "SMALL")
    for stage in ("parse", "reference", "generate"):      # none of them depends on the dataset
        assert p[f"gemm:{stage}"] == ("ok", "up to date"), stage
    assert p["gemm:suite"] == ("would-run", "changed: dataset")
    r = t2c("batch", "corpus", "--dataset", "SMALL", check=0)
    assert {t.split(":")[1] for t in ran(r.stderr)} == {"suite", "verify", "bench"}
    assert t2c("explain", "gemm:verify", check=0).stdout.startswith("gemm:verify: ok — changed: dataset")


def test_a_suite_drawn_again_is_judged_again(corpus, monkeypatch):
    """Other emu budgets draw the suite again (a full rung at SMALL where it had stepped down):
    the verdict on the old suite is no answer for the new one."""
    t2c("batch", "corpus", "--only", "gemm", check=0)
    monkeypatch.setenv("T2C_VERIFY_EMU_WORK", "6000000")
    r = t2c("batch", "corpus", "--only", "gemm", check=0)
    assert {t.split(":")[1] for t in ran(r.stderr)} >= {"suite", "verify"}
    assert t2c("explain", "gemm:verify", check=0).stdout.startswith("gemm:verify: ok — changed: suite")


def test_a_new_candidate_is_judged_on_the_kept_suite(corpus, tmp_path):
    """The suite stage draws and gates the test suite once per kernel, dataset and seed and keeps
    it as sizes and seeds only; verifying again (here forced; also a new generator's candidate)
    replays those cases instead of drawing them, and judges the same way."""
    t2c("batch", "corpus", "--only", "atax", "--report-dir", str(tmp_path / "a"), check=0)
    r = t2c("batch", "corpus", "--only", "atax", "--rerun", "verify", "--report-dir", str(tmp_path / "b"), check=0)
    assert ran(r.stderr) == {"atax:verify"}
    plan = json.loads(next((tmp_path / "cache").rglob("suite.json")).read_text())
    assert not any(k in c for c in plan["suite"]["cases"] for k in ("inputs", "expected"))
    card = json.loads(next((tmp_path / "cache").rglob("evidence.json")).read_text())
    assert card["suite"]["origin"] == "planned, replayed" and card["suite"]["case_list"] == plan["suite"]["cases"]
    rows = [json.loads((tmp_path / d / "results.json").read_text())["rows"][0] for d in "ab"]
    assert [r["status"] for r in rows] == ["accepted"] * 2 and rows[0]["max_error"] == rows[1]["max_error"]


def test_evolve_searches_the_options_in_the_generate_stage(corpus, tmp_path):
    """`--evolve`: the generate stage runs the poly options search against the ladder (on emu
    the first accepted candidate ends it), keeps its lineage in the report, and is a setting of
    its own: dropping it rebuilds generate, repeating it rebuilds nothing."""
    r = t2c("batch", "corpus", "--only", "jacobi-1d", "--evolve", "--evolve-candidates", "3",
            "--report-dir", str(tmp_path / "rep"), check=0)
    assert "jacobi-1d:generate" in ran(r.stderr)
    row, = json.loads((tmp_path / "rep/results.json").read_text())["rows"]
    assert row["status"] == "accepted"
    assert "step 0 (default) of 1 checked; accepted; no speed numbers" in row["stages"]["generate"]["summary"]
    assert [(e["step"], e["move"], e["status"]) for e in row["evolution"]] == [(0, "default", "accepted")]
    assert plan("--only", "jacobi-1d", "--evolve", "--evolve-candidates", "3")["jacobi-1d:generate"] == \
        ("ok", "up to date")
    assert plan("--only", "jacobi-1d")["jacobi-1d:generate"][0] == "would-run"
    r = t2c("batch", "corpus", "--evolve", "--generator", "hybrid", check=2)
    assert "--evolve searches the poly generator's options" in r.stderr


def test_explain_and_clean(corpus):
    t2c("batch", "corpus", check=0)
    r = t2c("explain", "gemm:reference", check=0)
    assert r.stdout.startswith("gemm:reference: ok — never built")
    t2c("batch", "corpus", "--rerun", "reference", "--only", "gemm", check=0)
    assert "forced" in t2c("explain", "gemm:reference", check=0).stdout
    assert t2c("explain", "nosuch").returncode == 2
    assert "removed" in t2c("clean", check=0).stdout
    assert ran(t2c("batch", "corpus", check=0).stderr) >= {"gemm:parse"}


def test_shards_union_is_the_full_run(corpus, tmp_path):
    kernels = []
    for k in (1, 2):
        t2c("batch", "corpus", "--shard", f"{k}/2", "--report-dir", str(tmp_path / f"s{k}"), check=0)
        kernels += [r["kernel"] for r in json.loads((tmp_path / f"s{k}" / "results.json").read_text())["rows"]]
    assert sorted(kernels) == ["atax", "gemm", "jacobi-1d"]
    assert t2c("batch", "corpus", "--shard", "3/2").returncode == 2


def test_junit_has_one_case_per_kernel_and_generator(corpus, tmp_path):
    t2c("batch", "corpus", "--junit-xml", str(tmp_path / "j.xml"), check=0)
    suites = JUnitXml.fromfile(str(tmp_path / "j.xml"))
    cases = [(c.classname, c.name) for s in suites for c in s]
    assert sorted(cases) == [("poly", "atax"), ("poly", "gemm"), ("poly", "jacobi-1d")]


def test_exit_codes(corpus):
    assert t2c("batch", "corpus", "--only", "nothing*").returncode == 5
    assert t2c("batch", "corpus", "--seed", "x").returncode == 2
    bad = corpus / "bad.c"
    bad.write_text("void k(int n, double x[n])\n{\n  goto out;\n out:\n  x[0] = 1;\n}\n")
    r = t2c("batch", "corpus", str(bad))
    assert r.returncode == 1 and "bad.c:3:3: goto is not supported" in r.stdout


@pytest.mark.skipif(has_gpu(), reason="needs a machine where no GPU answers")
def test_gpu_backend_without_a_gpu_is_the_users_error(corpus):
    """The CPU stages run; verify says what to do (an error, not a bug in t2c), nothing is internal."""
    r = t2c("batch", "corpus", "--only", "gemm", "--backend", "gpu", "--dataset", "MINI")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "internal" not in r.stdout + r.stderr
    assert re.search(r"error\s+gemm:verify .*no GPU answers.*use --backend emu", r.stderr), r.stderr


def test_kill_at_random_points_loses_nothing(corpus):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rng = random.Random(7)
    for _ in range(4):
        p = subprocess.Popen([sys.executable, "-m", "t2c.cli", "batch", "corpus", "-j", "2", "-B"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                             start_new_session=True)
        time.sleep(rng.uniform(0.3, 2.5))
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    cache = Path(os.environ["T2C_CACHE_DIR"]) / "targets"
    whole = {e for e in cache.glob("*/*") if (e / "MANIFEST").exists()}
    final = t2c("batch", "corpus", check=0)
    assert "3 accepted of 3 kernels" in final.stdout
    # Every entry that was whole before is reused as is; every entry now is whole.
    for e in whole:
        assert (e / "MANIFEST").exists()
    assert all((e / "MANIFEST").exists() for e in cache.glob("*/*") if not e.name.startswith("."))
    assert ran(t2c("batch", "corpus", check=0).stderr) == set()


def test_corrupt_entry_is_rebuilt(corpus):
    t2c("batch", "corpus", "--only", "gemm", check=0)
    cache = Path(os.environ["T2C_CACHE_DIR"]) / "targets" / "parse"
    (next(cache.glob("*")) / "is.yaml").write_text("garbage")
    p = plan("--only", "gemm")
    assert p["gemm:parse"] == ("would-run", "cache entry corrupt (is.yaml changed)")
    t2c("batch", "corpus", "--only", "gemm", check=0)


def test_baseline_gate_passes_without_a_regression(corpus, tmp_path):
    t2c("batch", "corpus", "--only", "gemm", "--report-dir", str(tmp_path / "base"), check=0)
    r = t2c("batch", "corpus", "--only", "gemm", "--baseline", str(tmp_path / "base"),
            "--fail-on-regression", "5%", "--report-dir", str(tmp_path / "new"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_batches_started_together_share_one_secret_seed(tmp_path):
    # Per-kernel batches started at once in one checkout (scripts/gpu_polybench.sh) all create .t2c/:
    # none may fail, and all must draw their hidden inputs from the same seed.
    import concurrent.futures
    from t2c.engine.run import project_secret
    state = tmp_path / ".t2c"
    with concurrent.futures.ProcessPoolExecutor(8) as pool:
        seeds = list(pool.map(project_secret, [state] * 32))
    assert len(set(seeds)) == 1
    assert sorted(p.name for p in state.iterdir()) == ["secret-seed"]


def test_folders_a_killed_run_left_are_cleaned(tmp_path):
    from t2c.engine.store import ArtifactCache
    cache = ArtifactCache(tmp_path)
    left = (tmp_path / "parse" / ".building-old")
    left.mkdir(parents=True)
    (left / "half.txt").write_text("x")
    day_ago = time.time() - ArtifactCache.ABANDONED_S - 60
    os.utime(left, (day_ago, day_ago))
    fresh = cache.new_entry("parse")                     # a live build's folder stays
    assert not left.exists() and fresh.exists()
    again = ArtifactCache(tmp_path).new_entry("parse")
    assert fresh.exists() and again.exists()


def test_ctrl_c_keeps_a_report_of_what_finished(corpus, tmp_path):
    """SIGINT mid-batch (as Ctrl-C sends it to the foreground group): exit 130, and the report
    holds the kernels that finished; the others are marked not finished."""
    import signal
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "t2c.cli", "batch", "corpus", "-j", "1", "--report-dir",
                          str(tmp_path / "rep")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env, start_new_session=True,
                         # a foreground program's Ctrl-C: a test run started in the background
                         # (`make test &`) hands its children SIGINT ignored, which Python keeps
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen, kernels = [], []
    for line in p.stdout:          # -j 1: a second kernel starts once the first one's chain is in
        seen.append(line)
        if m := re.match(r"\w+\s+([\w-]+):\w+ ", line):
            kernels += [m.group(1)] if m.group(1) not in kernels else []
        if len(kernels) == 2:
            os.killpg(p.pid, signal.SIGINT)
            break
    rest = p.communicate(timeout=600)[0]
    assert p.returncode == 130, "".join(seen) + rest
    rows = {r["kernel"]: r for r in json.loads((tmp_path / "rep" / "results.json").read_text())["rows"]}
    done = [k for k, r in rows.items() if r["status"] == "accepted"]
    assert len(done) >= 1 and len(rows) == 3
    assert all(r["message"] == "not finished (interrupted)" for k, r in rows.items() if k not in done)
