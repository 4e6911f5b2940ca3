"""``mx.np.arrayprint``: ``set_printoptions`` (``mx.np`` arrays print through NumPy)."""
import numpy as onp

__all__ = ["set_printoptions"]


def set_printoptions(precision=None, threshold=None, **kwargs) -> None:
    """Set how ``mx.np`` arrays print (NumPy's options: ``precision``, ``threshold``)."""
    if kwargs:
        raise NotImplementedError(f"set_printoptions: only precision and threshold are "
                                  f"supported, got {sorted(kwargs)}")
    onp.set_printoptions(precision=precision, threshold=threshold)
