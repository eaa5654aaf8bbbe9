"""The command line: commands work, user mistakes give one line and exit 2."""
import numpy as np
from click.testing import CliRunner

from t2ctest import POLYBENCH
from t2c.cli import main

GEMM = str(POLYBENCH / "linear-algebra/blas/gemm/gemm.c")


def test_is_as_c():
    r = CliRunner().invoke(main, ["is", GEMM, "--as-c"])
    assert r.exit_code == 0 and "t2c: size ni macro=NI MINI=20" in r.output


def test_ref_writes_npy(tmp_path):
    r = CliRunner().invoke(main, ["ref", GEMM, "--dataset", "MINI", "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    c = np.load(tmp_path / "outputs" / "C.npy")
    assert c.shape == (20, 25) and np.isfinite(c).all()
    assert (tmp_path / "inputs" / "A.npy").exists()


def test_ref_random_inputs_with_sizes(tmp_path):
    r = CliRunner().invoke(main, ["ref", GEMM, "--size", "ni=3", "--size", "nj=4", "--size", "nk=5",
                                  "--inputs", "random", "--seed", "7", "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert np.load(tmp_path / "outputs" / "C.npy").shape == (3, 4)


def test_extralarge_gives_references_minutes_unless_the_user_says(monkeypatch, tmp_path):
    """At EXTRALARGE one reference run takes minutes (report 23): T2C_TIMEOUT defaults to 1800 s
    there, through the environment the workers inherit; a value the user set stays, and other
    datasets keep 120 s."""
    from t2c import config
    env = {}
    config.dataset_defaults("LARGE", env)
    assert config.load(env).timeout == 120
    config.dataset_defaults("extralarge", env)
    assert config.load(env).timeout == config.EXTRALARGE_TIMEOUT == 1800
    env = {"T2C_TIMEOUT": "600", "T2C_DATASET": "EXTRALARGE"}
    config.dataset_defaults(None, env)
    assert config.load(env).timeout == 600
    seen = []                           # the commands that take a dataset set them
    monkeypatch.setattr(config, "dataset_defaults", lambda d, env=None: seen.append(d))
    r = CliRunner().invoke(main, ["ref", GEMM, "--dataset", "EXTRALARGE", "--size", "ni=2", "--size", "nj=2",
                                  "--size", "nk=2", "-o", str(tmp_path)])
    assert r.exit_code == 0 and seen == ["EXTRALARGE"], r.output


def test_usage_errors_exit_2_without_traceback(tmp_path):
    runner = CliRunner()
    r = runner.invoke(main, ["is", str(tmp_path / "missing.c")])
    assert r.exit_code == 2 and r.output.startswith("t2c: ") and "Traceback" not in r.output
    r = runner.invoke(main, ["ref", GEMM, "--size", "ni=x", "-o", str(tmp_path)])
    assert r.exit_code == 2 and "NAME=INTEGER" in r.output
    r = runner.invoke(main, ["batch", str(tmp_path / "nothing-here")])
    assert r.exit_code == 2


def test_batch_continues_past_a_bad_kernel(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.c"
    bad.write_text("void k(int n, double x[n])\n{\n  goto out;\n out:\n  x[0] = 1;\n}\n")
    jac = str(POLYBENCH / "stencils/jacobi-1d/jacobi-1d.c")
    r = CliRunner().invoke(main, ["batch", jac, str(bad), "--dataset", "MINI", "-j", "2"])
    assert r.exit_code == 1
    assert "jacobi-1d" in r.output and "accepted on emu" in r.output
    assert "bad.c:3:3: goto is not supported" in r.output
    assert "1 accepted, 1 error of 2 kernels" in r.output
    assert (tmp_path / ".t2c" / "state.sqlite").exists() and list((tmp_path / ".t2c" / "runs").glob("*/results.csv"))
