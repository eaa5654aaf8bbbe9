"""The IS: frozen dataclasses every stage imports (see kernel.py), and their YAML form."""
from .dtypes import DTYPES, FLOAT_DTYPES, HALF_DTYPES, HALF_HEADERS
from .kernel import (DATASETS, DOMAIN_KINDS, INTENTS, Array, Count, Domain, Facts, ISError, Kernel, Origin,
                     Scalar, Size, preset_gap, validate)
from .yaml_form import from_yaml, to_dict, to_yaml

__all__ = ["DATASETS", "DOMAIN_KINDS", "DTYPES", "FLOAT_DTYPES", "HALF_DTYPES", "HALF_HEADERS", "INTENTS",
           "Array", "Count", "Domain", "Facts", "ISError", "Kernel", "Origin", "Scalar", "Size", "preset_gap",
           "validate", "from_yaml", "to_dict", "to_yaml"]
