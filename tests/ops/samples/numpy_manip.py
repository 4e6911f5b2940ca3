"""Samples for ``numpy_manip.py``: ``_np_roll`` (flattened, one and several axes,
negative shifts), ``_np_moveaxis``, ``_npi_rot90`` (each k, other planes),
``_np_diagonal``/``_np_trace`` (offsets inside and beyond, other axis pairs, batched),
``_np_diagflat``, ``_np_atleast_1d/2d/3d`` (several inputs of each rank),
``_npi_hstack``/``_npi_vstack``/``_npi_dstack``/``_npi_column_stack`` (1-d and n-d
inputs, mixed dtypes), ``_npi_diff`` (orders, axes) and ``_npi_ediff1d`` (scalar and array
``to_begin``/``to_end``).  Gradients of the copying operators scatter the head gradient
back onto the copied elements."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(23)


def _x(*shape, dtype=np.float64):
    return _rng.uniform(-2, 2, shape).astype(dtype)


def _roll_ref(x, shift=None, axis=None):
    if axis is None:
        return np.roll(x, shift[0])
    shift = shift * len(axis) if len(shift) == 1 else shift
    return np.roll(x, shift, axis)


def _moveaxis_ref(a, source, destination):
    return np.moveaxis(a, source, destination)


def _rot90_ref(x, k=1, axes=None):
    return np.rot90(x, k, (0, 1) if axes is None else axes)


def _diagonal_ref(x, offset=0, axis1=0, axis2=1):
    return np.diagonal(x, offset, axis1, axis2)


def _trace_ref(x, offset=0, axis1=0, axis2=1):
    return np.asarray(np.trace(x, offset, axis1, axis2))


def _diagflat_ref(x, k=0):
    return np.diagflat(x, k)


def _atleast_ref(n):
    fn = {1: np.atleast_1d, 2: np.atleast_2d, 3: np.atleast_3d}[n]

    def ref(*xs, num_args):
        return [fn(x) for x in xs]
    return ref


def _stack_ref(fn):
    def ref(*xs, num_args, dim=1):
        return fn(xs)
    return ref


def _diff_ref(a, n=1, axis=-1):
    return np.diff(a, n, axis)


def _ediff_ref(*xs, to_begin_arr_given=False, to_end_arr_given=False, to_begin_scalar=None,
               to_end_scalar=None):
    rest = list(xs[1:])
    begin = rest.pop(0) if to_begin_arr_given else to_begin_scalar
    end = rest.pop(0) if to_end_arr_given else to_end_scalar
    return np.ediff1d(xs[0], to_end=end, to_begin=begin).astype(xs[0].dtype)


SAMPLES = {
    "_np_roll": [
        Sample([_x(3, 4)], dict(shift=(5,)), ref=_roll_ref),
        Sample([_x(3, 4)], dict(shift=(-1,), axis=(1,)), ref=_roll_ref),
        Sample([_x(2, 3, 4)], dict(shift=(1, -2), axis=(0, 2)), ref=_roll_ref),
        Sample([_x(2, 3, 4)], dict(shift=(7,), axis=(-1, 1)), ref=_roll_ref),
        Sample([_rng.integers(0, 9, (4,)).astype(np.int32)], dict(shift=(1,)),
               ref=_roll_ref, grad=False),
    ],
    "_np_moveaxis": [
        Sample([_x(2, 3, 4)], dict(source=(0,), destination=(-1,)), ref=_moveaxis_ref),
        Sample([_x(2, 3, 4, 5)], dict(source=(0, 3), destination=(2, 0)),
               ref=_moveaxis_ref),
    ],
    "_npi_rot90": [
        Sample([_x(3, 4)], dict(k=1), ref=_rot90_ref),
        Sample([_x(3, 4)], dict(k=2), ref=_rot90_ref),
        Sample([_x(3, 4)], dict(k=-1), ref=_rot90_ref),
        Sample([_x(2, 3, 4)], dict(k=3, axes=(2, 0)), ref=_rot90_ref),
        Sample([_x(2, 3, 4)], dict(k=4, axes=(1, 2)), ref=_rot90_ref),
    ],
    "_np_diagonal": [
        Sample([_x(3, 4)], {}, ref=_diagonal_ref),
        Sample([_x(3, 4)], dict(offset=2), ref=_diagonal_ref),
        Sample([_x(3, 4)], dict(offset=-2), ref=_diagonal_ref),
        Sample([_x(3, 4)], dict(offset=5), ref=_diagonal_ref, grad=False),  # empty
        Sample([_x(2, 3, 4)], dict(offset=1, axis1=2, axis2=0), ref=_diagonal_ref),
    ],
    "_np_trace": [
        Sample([_x(3, 3)], {}, ref=_trace_ref),
        Sample([_x(3, 4)], dict(offset=1), ref=_trace_ref),
        Sample([_x(2, 3, 4)], dict(offset=-1, axis1=1, axis2=-1), ref=_trace_ref),
        Sample([_x(3, 4)], dict(offset=-4), ref=_trace_ref),  # beyond: zero
        Sample([_rng.integers(-5, 5, (3, 3)).astype(np.int32)], {}, ref=_trace_ref,
               grad=False),
    ],
    "_np_diagflat": [
        Sample([_x(3)], {}, ref=_diagflat_ref),
        Sample([_x(2, 2)], dict(k=1), ref=_diagflat_ref),
        Sample([_x(3)], dict(k=-2), ref=_diagflat_ref),
    ],
    "_np_atleast_1d": [
        Sample([_x(), _x(3), _x(2, 3)], dict(num_args=3), ref=_atleast_ref(1)),
    ],
    "_np_atleast_2d": [
        Sample([_x(), _x(3), _x(2, 3, 4)], dict(num_args=3), ref=_atleast_ref(2)),
    ],
    "_np_atleast_3d": [
        Sample([_x(), _x(3), _x(2, 3), _x(2, 3, 4, 1)], dict(num_args=4),
               ref=_atleast_ref(3)),
    ],
    "_npi_hstack": [
        Sample([_x(3), _x(2)], dict(num_args=2), ref=_stack_ref(np.hstack)),
        Sample([_x(2, 3), _x(2, 1), _x(2, 2)], dict(num_args=3), ref=_stack_ref(np.hstack)),
        Sample([_x(2, 3), _x(2, 1).astype(np.float32)], dict(num_args=2),
               ref=_stack_ref(np.hstack), grad=[0]),  # float32 promotes to float64
    ],
    "_npi_vstack": [
        Sample([_x(3), _x(3)], dict(num_args=2), ref=_stack_ref(np.vstack)),
        Sample([_x(2, 3), _x(3), _x(1, 3)], dict(num_args=3), ref=_stack_ref(np.vstack)),
    ],
    "_npi_dstack": [
        Sample([_x(3), _x(3)], dict(num_args=2), ref=_stack_ref(np.dstack)),
        Sample([_x(2, 3), _x(2, 3, 2)], dict(num_args=2), ref=_stack_ref(np.dstack)),
    ],
    "_npi_column_stack": [
        Sample([_x(3), _x(3, 2)], dict(num_args=2), ref=_stack_ref(np.column_stack)),
        Sample([_x(4), _x(4)], dict(num_args=2), ref=_stack_ref(np.column_stack)),
    ],
    "_npi_diff": [
        Sample([_x(5)], {}, ref=_diff_ref),
        Sample([_x(3, 6)], dict(n=3), ref=_diff_ref),
        Sample([_x(4, 3, 2)], dict(n=2, axis=0), ref=_diff_ref),
        Sample([_x(3, 2)], dict(n=4, axis=1), ref=_diff_ref),  # beyond the axis: empty
        Sample([_x(3, 4)], dict(n=0), ref=_diff_ref),
    ],
    "_npi_ediff1d": [
        Sample([_x(2, 3)], {}, ref=_ediff_ref),
        Sample([_x(5)], dict(to_begin_scalar=2.0, to_end_scalar=-1.0), ref=_ediff_ref),
        Sample([_x(5), _x(2), _x(2, 2)], dict(to_begin_arr_given=True,
                                              to_end_arr_given=True), ref=_ediff_ref),
        Sample([_x(4), _x(3)], dict(to_end_arr_given=True, to_begin_scalar=1.5),
               ref=_ediff_ref),
    ],
    "_np_transpose": [
        Sample([_x(2, 3, 4)], {}, ref=lambda a, axes=None: np.transpose(a)),
        Sample([_x(2, 3, 4)], dict(axes=(1, -1, 0)), ref=lambda a, axes: np.transpose(a, axes)),
        Sample([_x()], {}, ref=lambda a: np.transpose(a)),
    ],
    "_np_squeeze": [
        Sample([_x(1, 3, 1)], {}, ref=lambda a: np.squeeze(a)),
        Sample([_x(1, 3, 1)], dict(axis=(-1,)), ref=lambda a, axis: np.squeeze(a, axis)),
        Sample([_x(1, 1)], {}, ref=lambda a: np.squeeze(a)),  # to 0-d
    ],
    "_npi_tile": [
        Sample([_x(2, 3)], dict(reps=(2,)), ref=lambda a, reps: np.tile(a, reps)),
        Sample([_x(3)], dict(reps=(2, 1, 2)), ref=lambda a, reps: np.tile(a, reps)),
        Sample([_x()], dict(reps=(3,)), ref=lambda a, reps: np.tile(a, reps)),
        Sample([_x(2, 2)], dict(reps=(0, 2)), ref=lambda a, reps: np.tile(a, reps),
               grad=False),
    ],
}
