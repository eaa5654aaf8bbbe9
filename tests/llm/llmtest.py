"""Constants shared by the LLM tests (a module of its own: every test folder has a conftest)."""
from t2ctest import ROOT

SPECS = ROOT / "corpora" / "text2cuda"
KEY = "sk-t2c-test-DO-NOT-LEAK-4242"          # must reach the server, and nothing else
