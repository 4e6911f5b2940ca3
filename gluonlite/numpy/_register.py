"""``mx.np._register``: MXNet generates ``mx.np`` operator functions from its registry;
gluonlite's generator is :mod:`gluonlite.ndarray.numpy._register`."""
from ..ndarray.numpy._register import make_op_function, op_functions  # noqa: F401

__all__ = ["make_op_function", "op_functions"]
