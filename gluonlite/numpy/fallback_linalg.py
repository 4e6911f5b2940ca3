"""The ``mx.np.linalg`` functions MXNet runs with official NumPy (MXNet's
``mx.np.fallback_linalg``): host copies in, ``mx.np`` arrays out, no gradient."""
import numpy as onp

from .fallback import _host

__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr"]
for _name in __all__:
    globals()[_name] = _host(_name, getattr(onp.linalg, _name))
