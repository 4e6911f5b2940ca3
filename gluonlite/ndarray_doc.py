"""``mx.ndarray_doc``: extra documentation of the imperative operator functions (MXNet
1.9's ``mxnet.ndarray_doc``).

A class ``<op>Doc`` deriving from :class:`NDArrayDoc` adds its docstring (examples,
run as doctests with ``mx`` and ``np`` in scope) to the docstring :func:`_build_doc`
writes for ``mx.nd.<op>``.
"""
from __future__ import annotations

from ._op_doc import build_doc

__all__ = ["NDArrayDoc"]


class NDArrayDoc:
    """The base of the per-operator documentation classes of ``mx.nd``."""


class ReshapeDoc(NDArrayDoc):
    """
    Examples
    --------
    Give the elements of an array a new shape:

    >>> x = mx.nd.array([1, 2, 3, 4, 5, 6])
    >>> mx.nd.reshape(x, shape=(2, 3)).shape
    (2, 3)

    ``0`` keeps the input's size on that axis, ``-1`` takes what the other axes leave:

    >>> mx.nd.reshape(mx.nd.ones((2, 3, 4)), shape=(0, -1)).shape
    (2, 12)
    """


class elemwise_addDoc(NDArrayDoc):  # noqa: N801 - MXNet's name: '<op>Doc'
    """
    Examples
    --------
    >>> x = mx.nd.array([1, 2, 3])
    >>> y = mx.nd.array([10, 20, 30])
    >>> mx.nd.elemwise_add(x, y).asnumpy().tolist()
    [11.0, 22.0, 33.0]
    """


class BroadcastToDoc(NDArrayDoc):
    """
    Examples
    --------
    Repeat an array along its axes of size 1:

    >>> a = mx.nd.array([[1], [2], [3]])
    >>> a.broadcast_to((3, 2)).asnumpy().tolist()
    [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    >>> mx.nd.ones((2, 1, 1, 3)).broadcast_to((2, 4, 5, 3)).shape
    (2, 4, 5, 3)
    """


class StackDoc(NDArrayDoc):
    """
    Examples
    --------
    Join arrays of one shape along a new axis:

    >>> x = mx.nd.array([1, 2])
    >>> y = mx.nd.array([3, 4])
    >>> mx.nd.stack(x, y).asnumpy().tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> mx.nd.stack(x, y, axis=1).asnumpy().tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """


class CustomDoc(NDArrayDoc):
    """
    Examples
    --------
    Run the Python operator registered as ``my_custom_operator`` on ``data``
    (see ``mx.operator.register``)::

        output = mx.nd.Custom(data, op_type='my_custom_operator')
    """


def _build_doc(func_name: str, desc: str, arg_names, arg_types, arg_desc,
               key_var_num_args: str | None = None, ret_type: str | None = None) -> str:
    """The docstring of ``mx.nd.<func_name>``.

    Parameters
    ----------
    func_name : str
        The operator's name (``<func_name>Doc`` adds its examples).
    desc : str
        The operator's description.
    arg_names, arg_types, arg_desc : list of str
        Name, type and description of each argument.
    key_var_num_args, ret_type : str, optional
        Accepted as MXNet's are, and unused (as in MXNet).

    Returns
    -------
    str
        Description, ``Parameters`` (with ``out``), ``Returns`` and the examples;
        ``NDArray-or-Symbol`` reads ``NDArray``.
    """
    return build_doc(NDArrayDoc, func_name, desc, arg_names, arg_types, arg_desc,
                     "out : NDArray, optional\n    The output NDArray to hold the result.",
                     "out : NDArray or list of NDArrays\n    The output of this function.",
                     "NDArray")
