"""``mx.np.function_base``: ``meshgrid``."""
from ..ndarray.numpy._op import meshgrid  # noqa: F401

__all__ = ["meshgrid"]
