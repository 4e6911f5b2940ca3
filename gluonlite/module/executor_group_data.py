"""``DataParallelExecutorGroup.shared_data_arrays``: MXNet's per-device input arrays.

In MXNet 1.9.1 each device's executor has one array per argument that is not a
parameter (the data, the labels, the states and any other input), kept in a dict
per device, ``shared_data_arrays[k]``.  A group bound with ``shared_group`` uses the
very same dicts: an input of the shared group with the same shape, dtype and device
is the same array, and the inputs it lacks are added to the shared dicts (so the
shared group sees them too).  An entry whose shape, dtype or device differs is
replaced by a new array (MXNet replaces a smaller one the same way).

The group's runs read each batch directly (no copy into these arrays), so they hold
zeros until written; the states are the group's state arrays themselves.
"""
from __future__ import annotations

import numpy as np

from .. import ndarray as nd

__all__ = ["bind_shared_data"]


def _fits(arr, shape: tuple, dtype, ctx) -> bool:
    return (arr is not None and tuple(arr.shape) == tuple(shape)
            and np.dtype(arr.dtype) == np.dtype(dtype) and arr.context == ctx)


def bind_shared_data(group, shared_group=None) -> list:
    """The ``shared_data_arrays`` of ``group`` (bound, with its shapes set): one dict
    per device from input name to array, those of ``shared_group`` when given.

    Parameters
    ----------
    group : DataParallelExecutorGroup
        The group being bound (``data_names``, ``_label_inputs``, ``state_names``,
        ``_arg_shapes``, ``slices`` and ``_states`` set).
    shared_group : DataParallelExecutorGroup, optional
        The group whose dicts are shared.

    Returns
    -------
    list of dict
        Per device, ``{name: NDArray}`` for every argument that is not a parameter.
    """
    n_dev = len(group.contexts)
    tables = getattr(shared_group, "shared_data_arrays", None) if shared_group else None
    if tables is None or len(tables) != n_dev:
        tables = [{} for _ in range(n_dev)]
    dtypes = {d.name: d.dtype for d in group.data_shapes + (group.label_shapes or [])}
    axes = dict(zip(group.data_names, group.data_layouts))
    for k in range(n_dev):
        table = tables[k]
        for name in group.data_names + group._label_inputs:
            ctx = group._input_ctx(name, k)
            shape = group._arg_shapes[name]
            if shape is None:
                continue
            shape = group._device_shape(shape, k, axes.get(name, 0))
            dtype = dtypes.get(name, np.float32)
            if not _fits(table.get(name), shape, dtype, ctx):
                table[name] = nd.zeros(shape, ctx=ctx, dtype=dtype)
        for name in group.state_names:
            table[name] = group._states[name][k]
    return tables
