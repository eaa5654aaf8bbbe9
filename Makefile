# t2c — the two commands: `make run` and `make test` (each sets up first).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.t2c-setup
WHEELS := .whl
TEST_JOBS ?= 2        # pytest-xdist workers; most tests wait on compilers and emulated runs

.PHONY: setup run test test-all test-fast test-loaded gpu-check bench bench-t2c bench-noop wheels clean

# The venv with t2c (editable) and the test tools; redone only when pyproject.toml changes.
# Without nvcc on PATH, the CUDA compiler and runtime headers come from PyPI into the venv.
setup: $(STAMP)
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	command -v nvcc >/dev/null 2>&1 || $(PY) -m pip install -q nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-crt
	touch $(STAMP)

run: setup
	$(VENV)/bin/t2c batch corpora/polybench

# The suite CI runs; `test-all` adds the whole-corpus end-to-end runs and the many-seed
# checks (marked `full`), for a nightly job.
test: setup
	$(PY) -m pytest -q -m "not full" -n $(TEST_JOBS) --dist loadgroup

test-all: setup
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadgroup

# `make test` beside a busy loop per core (a loaded CI runner): it must pass in the same limit.
test-loaded: setup
	scripts/loaded_test.sh $(MAKE) test

test-fast: setup
	$(PY) -m pytest -q -m "not slow and not full"

# cp312 wheels of the dependencies the GPU machine lacks (it has numpy, click, pyyaml, jinja2, tqdm);
# import-linter and the packages it needs let pytest collect tests/test_layers.py there.
wheels:
	mkdir -p $(WHEELS)
	$(PY) -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
	  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
	  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d $(WHEELS) \
	  pycparser tree-sitter tree-sitter-c tree-sitter-cuda islpy 'pytest<9.2' pluggy iniconfig packaging junitparser pytest-xdist execnet \
	  import-linter grimp rich markdown-it-py mdurl pygments

# On a GPU machine (see docs/usage.md, Tests): install the wheels, then run the GPU checks into $OUT.
gpu-check:
	bash scripts/gpu_check.sh

# On a GPU machine (wheels installed as for gpu-check): the GPU's ceilings, then PolyBench at LARGE,
# BENCH_PARALLEL kernels at a time (1: clean timings), into reports/bench/ (table.md, report/).
bench:
	rm -rf reports/bench && OUT=reports/bench T2C_VERIFY_BENCH_REPS=20 \
	  bash scripts/gpu_polybench.sh LARGE $${BENCH_PARALLEL:-1}
	tar xzf reports/bench/report.tgz -C reports/bench && mv reports/bench/t2c-merged reports/bench/report

# On a GPU machine: poly's options search (t2c gen --evolve) for KERNELS at LARGE, one kernel at a
# time, into reports/evolve/ (table.md: default and best kernel time, the moves; each lineage).
# A candidate takes 8-30 s at LARGE: the defaults (6 kernels, 6 candidates, 70 s each) fit one
# 10-minute device call; the gemm family's search is in reports/h200-polybench-large-3/.
gpu-evolve:
	OUT=reports/evolve bash scripts/gpu_evolve.sh

# On a GPU machine: each Text2CUDA spec's kernel against PyTorch eager (docs/specs.md).
bench-t2c:
	python3 scripts/bench_t2c.py reports/t2c-vs-torch

# The no-op rerun of the whole corpus (everything cached): prints median and spread.
bench-noop: setup
	$(PY) scripts/bench_noop.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
