# Sourced by the GPU scripts from the repository root: t2c's dependencies that the GPU machine
# lacks (it has numpy, click, pyyaml, jinja2, tqdm) from the cp312 wheels in .whl/ (`make wheels`
# fetches them), and PYTHONPATH to this checkout.
if ! python3 -c "import islpy, pycparser, tree_sitter_c, tree_sitter_cuda" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else                                  # installed, or sourced before (keep its /tmp/site)
  case ":${PYTHONPATH:-}:" in *":$PWD:"*) ;; *) export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} ;; esac
fi
