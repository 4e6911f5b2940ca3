"""``mx.np.stride_tricks``: ``broadcast_arrays``."""
from ..ndarray.numpy._op import broadcast_arrays  # noqa: F401

__all__ = ["broadcast_arrays"]
