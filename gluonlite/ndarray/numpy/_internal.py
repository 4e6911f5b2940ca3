"""``mx.nd.np._internal``: the ``_npi_*`` and ``_np_*`` operators as functions on
``mx.np`` arrays (generated from the registry; ``_npi_X`` is also ``X``)."""
from ._register import op_functions

_FUNCS = op_functions(("_npi_", "_np_"))
globals().update(_FUNCS)
# MXNet also names each ``_npi_`` operator without its prefix here
# (``_internal.boolean_mask_assign_scalar``)
globals().update({n[len("_npi_"):]: f for n, f in _FUNCS.items() if n.startswith("_npi_")})
__all__ = sorted(_FUNCS) + sorted(n[len("_npi_"):] for n in _FUNCS if n.startswith("_npi_"))
