"""The graph engine: :class:`CachedOp` compiles a symbol graph per input signature.

See ``DESIGN.md`` ("The CachedOp").  Modules: ``graph_info`` (slot numbering),
``plan`` (forward plan and hot loop), ``memory`` (buffer reuse), ``backward_plan``.
"""
from .cached_op import CachedOp, CachedOpCall  # noqa: F401

__all__ = ["CachedOp", "CachedOpCall"]
