"""``mx.nd.npx._register``: operator functions generated from the registry (see
:mod:`gluonlite.ndarray.numpy._register`)."""
from ..numpy._register import make_op_function, op_functions  # noqa: F401

__all__ = ["make_op_function", "op_functions"]
