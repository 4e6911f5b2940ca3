"""Samples for ``numpy_products.py``: ``_npi_tensordot`` (and ``_npi_tensordot_int_axes``), ``_npi_matmul`` and
``_npi_einsum`` against NumPy, with gradients of both operands (every pair of
contracted axes, vectors on either side of ``matmul``, broadcast batch axes, implicit
and explicit ``einsum`` outputs, an index summed in one operand only)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(7)


def _x(*shape, dtype=np.float64):
    return _rng.uniform(-1, 1, shape).astype(dtype)


def _td_ref(a, b, a_axes_summed, b_axes_summed):
    return np.tensordot(a, b, axes=(a_axes_summed, b_axes_summed))


def _tdi_ref(a, b, axes):
    return np.tensordot(a, b, axes)


def _einsum_ref(*ops, subscripts, num_args, optimize=0):
    return np.einsum(subscripts, *ops)


_F32 = dict(rtol=1e-5, atol=1e-6, grad=False)

SAMPLES = {
    "_npi_tensordot": [
        Sample([_x(2, 3), _x(3, 4)], dict(a_axes_summed=(1,), b_axes_summed=(0,)), ref=_td_ref),
        Sample([_x(2, 3, 4), _x(4, 3, 5)], dict(a_axes_summed=(1, 2), b_axes_summed=(1, 0)),
               ref=_td_ref),
        Sample([_x(3, 2, 4), _x(5, 4, 3)], dict(a_axes_summed=(0, -1), b_axes_summed=(2, 1)),
               ref=_td_ref),
        Sample([_x(2, 3), _x(2, 3)], dict(a_axes_summed=(0, 1), b_axes_summed=(0, 1)),
               ref=_td_ref),
        Sample([_x(3), _x(4)], dict(a_axes_summed=(), b_axes_summed=()), ref=_td_ref),
        Sample([_x(2, 3, 4, dtype=np.float32), _x(4, 5, dtype=np.float32)],
               dict(a_axes_summed=(2,), b_axes_summed=(0,)), ref=_td_ref, **_F32),
    ],
    "_npi_matmul": [
        Sample([_x(2, 3), _x(3, 4)], ref=np.matmul),
        Sample([_x(2, 3, 4), _x(4, 2)], ref=np.matmul),
        Sample([_x(2, 1, 3, 4), _x(3, 4, 5)], ref=np.matmul),
        Sample([_x(4), _x(2, 4, 3)], ref=np.matmul),
        Sample([_x(2, 3, 4), _x(4)], ref=np.matmul),
        Sample([_x(4), _x(4)], ref=np.matmul),
        # a zero-size batch axis broadcast against 1 stays zero-size
        Sample([_x(2, 0, 1, 2), _x(1, 2, 2)], ref=np.matmul),
        Sample([_x(2, 3, 4, dtype=np.float32), _x(2, 4, 5, dtype=np.float32)], ref=np.matmul,
               **_F32),
    ],
    "_npi_einsum": [
        Sample([_x(2, 3), _x(3, 4)], dict(subscripts="ij,jk->ik", num_args=2), ref=_einsum_ref),
        Sample([_x(3, 3)], dict(subscripts="ii", num_args=1), ref=_einsum_ref),  # trace
        Sample([_x(3, 3, 2), _x(2)], dict(subscripts="iij,j->i", num_args=2), ref=_einsum_ref),
        Sample([_x(2, 3)], dict(subscripts="ij->j", num_args=1), ref=_einsum_ref),
        Sample([_x(2, 3, 4), _x(2, 4, 5)], dict(subscripts="bij,bjk->bik", num_args=2),
               ref=_einsum_ref),
        Sample([_x(2, 3), _x(3, 4)], dict(subscripts="ij,jk", num_args=2), ref=_einsum_ref),
        Sample([_x(2, 3, 4), _x(3, 4)], dict(subscripts="ij...,j...->ij...", num_args=2),
               ref=_einsum_ref),
        Sample([_x(5, 1, 3, 4), _x(2, 4, 3)], dict(subscripts="...ij,...jk", num_args=2),
               ref=_einsum_ref),
        Sample([_x(2, 3)], dict(subscripts="...i->...", num_args=1), ref=_einsum_ref),
        Sample([_x(3, 4), _x(4)], dict(subscripts="ij,j->", num_args=2), ref=_einsum_ref),
        Sample([_x(2, 3), _x(4, 5)], dict(subscripts="ij,kl->ikjl", num_args=2),
               ref=_einsum_ref),
        Sample([_x(2, 3), _x(3), _x(3, 2)], dict(subscripts="ij,j,jk->ik", num_args=3),
               ref=_einsum_ref),
        Sample([_x(3, 4, dtype=np.float32), _x(4, 2, dtype=np.float32)],
               dict(subscripts="ij,jk->ki", num_args=2), ref=_einsum_ref, **_F32),
    ],
    "_npi_tensordot_int_axes": [
        Sample([_x(2, 3, 4), _x(3, 4, 5)], dict(axes=2), ref=_tdi_ref),
        Sample([_x(2, 3), _x(4)], dict(axes=0), ref=_tdi_ref),
        Sample([_x(2, 3), _x(3, 2)], dict(axes=1), ref=_tdi_ref),
    ],
}
