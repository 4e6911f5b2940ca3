"""``mx.sym.np._internal``: the ``_npi_*`` and ``_np_*`` operators as functions on
symbols (generated from the registry)."""
from ._register import op_functions

globals().update(op_functions(("_npi_", "_np_")))
__all__ = sorted(n for n in globals() if n.startswith(("_npi_", "_np_")))
