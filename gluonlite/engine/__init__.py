"""The graph engine: :class:`CachedOp` compiles a symbol graph per input signature.

See ``DESIGN.md`` ("The CachedOp").  Modules: ``graph_info`` (slot numbering),
``plan`` (forward plan and hot loop), ``memory`` (buffer reuse), ``backward_plan``.
It is also MXNet's ``mx.engine`` module: ``set_bulk_size`` and ``bulk`` (``_bulk``),
a scheduling hint that changes nothing here (operators run eagerly, in order).
"""
from ._bulk import bulk, set_bulk_size  # noqa: F401
from .cached_op import CachedOp, CachedOpCall  # noqa: F401

__all__ = ["CachedOp", "CachedOpCall", "bulk", "set_bulk_size"]
