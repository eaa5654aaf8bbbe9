"""`python -m t2c.frontends.prose SPEC.md` prints the C a spec compiles to."""
import sys

from . import main

sys.exit(main())
