"""``mx.symbol_doc``: extra documentation of the symbolic operator functions (MXNet
1.9's ``mxnet.symbol_doc``).

To document operator ``XXX`` further, derive a class ``XXXDoc`` from
:class:`SymbolDoc` and write the examples as its docstring; :func:`_build_doc` adds
them to the docstring of ``mx.sym.XXX``.  The examples are doctests run with every
symbolic operator (``FullyConnected``, ``Variable``, ...), ``SymbolDoc``, ``mx``,
``np`` and ``test_utils`` (``mx.test_utils``) in scope.
"""
from __future__ import annotations

from ._op_doc import build_doc

__all__ = ["SymbolDoc"]


class SymbolDoc:
    """The base of the per-operator documentation classes of ``mx.sym``."""

    @staticmethod
    def get_output_shape(sym, **input_shapes) -> dict:
        """The shape of each output of ``sym`` by output name, inferred from
        ``input_shapes`` (``None`` values where they cannot be inferred)."""
        _, out_shapes, _ = sym.infer_shape(**input_shapes)
        if out_shapes is None:
            out_shapes = [None] * len(sym.list_outputs())
        return dict(zip(sym.list_outputs(), out_shapes))


class ActivationDoc(SymbolDoc):
    """
    Examples
    --------
    A hidden layer with ReLU:

    >>> net = Activation(FullyConnected(Variable('data'), num_hidden=8, name='fc'),
    ...                  act_type='relu', name='relu')
    >>> SymbolDoc.get_output_shape(net, data=(2, 5))
    {'relu_output': (2, 8)}

    Each ``act_type`` against NumPy:

    >>> x = test_utils.random_arrays((2, 3))
    >>> for act_type, ref in [('relu', lambda v: np.maximum(v, 0)),
    ...                       ('tanh', np.tanh),
    ...                       ('softrelu', lambda v: np.log1p(np.exp(v)))]:
    ...     y = test_utils.simple_forward(Activation(act_type=act_type, name='a'), a_data=x)
    ...     print(act_type, test_utils.almost_equal(y, ref(x), rtol=1e-5, atol=1e-6))
    relu True
    tanh True
    softrelu True
    """


class DropoutDoc(SymbolDoc):
    """
    Examples
    --------
    Dropout is the identity at inference; in training it zeroes elements with
    probability ``p`` and scales the others by ``1 / (1 - p)``:

    >>> op = Dropout(p=0.5, name='dp')
    >>> x = np.ones((50, 50), dtype=np.float32)
    >>> test_utils.almost_equal(test_utils.simple_forward(op, dp_data=x), x)
    True
    >>> y = test_utils.simple_forward(op, dp_data=x, is_train=True)
    >>> sorted(set(np.unique(y).tolist()))
    [0.0, 2.0]
    """


class EmbeddingDoc(SymbolDoc):
    """
    Examples
    --------
    Map each of 26 letters to a vector of 16:

    >>> op = Embedding(Variable('letters'), input_dim=26, output_dim=16, name='embed')
    >>> SymbolDoc.get_output_shape(op, letters=(10, 4))
    {'embed_output': (10, 4, 16)}

    The output rows are rows of the weight:

    >>> w = test_utils.random_arrays((26, 16))
    >>> idx = np.array([3, 0, 25], dtype=np.float32)
    >>> y = test_utils.simple_forward(Embedding(input_dim=26, output_dim=16, name='e'),
    ...                               e_data=idx, e_weight=w)
    >>> test_utils.almost_equal(y, w[[3, 0, 25]])
    True
    """


class FlattenDoc(SymbolDoc):
    """
    Examples
    --------
    Flatten keeps the first axis and joins the others, as before a ``FullyConnected``
    on convolution features:

    >>> SymbolDoc.get_output_shape(Flatten(Variable('data'), name='flat'),
    ...                            data=(2, 3, 4, 5))
    {'flat_output': (2, 60)}
    >>> x = test_utils.random_arrays((2, 3, 4))
    >>> y = test_utils.simple_forward(Flatten(name='f'), f_data=x)
    >>> test_utils.almost_equal(y, x.reshape(2, 12))
    True
    """


class FullyConnectedDoc(SymbolDoc):
    """
    Examples
    --------
    A layer of 512 units:

    >>> op = FullyConnected(Variable('data'), num_hidden=512, name='FC1')
    >>> op
    <Symbol FC1>
    >>> SymbolDoc.get_output_shape(op, data=(128, 100))
    {'FC1_output': (128, 512)}

    It computes ``x . w^T + b``:

    >>> x, w, b = test_utils.random_arrays((10, 3), (4, 3), (4,))
    >>> out = test_utils.simple_forward(FullyConnected(num_hidden=4, name='fc'),
    ...                                 fc_data=x, fc_weight=w, fc_bias=b)
    >>> test_utils.almost_equal(out, x.dot(w.T) + b, rtol=1e-5, atol=1e-6)
    True
    """


class ConcatDoc(SymbolDoc):
    """
    Examples
    --------
    Join inputs along one axis (the other axes must agree):

    >>> c = Concat(Variable('a'), Variable('b'), dim=1, name='cat')
    >>> SymbolDoc.get_output_shape(c, a=(8, 10, 3, 3), b=(8, 15, 3, 3))
    {'cat_output': (8, 25, 3, 3)}
    """


class BroadcastPlusDoc(SymbolDoc):
    """
    Examples
    --------
    Sum with axes of size 1 broadcast:

    >>> c = broadcast_plus(Variable('a'), Variable('b'))
    >>> exe = c.bind(mx.cpu(), args={'a': mx.nd.ones((2, 1)), 'b': mx.nd.ones((1, 3))})
    >>> exe.forward()[0].asnumpy().tolist()
    [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
    """


def _build_doc(func_name: str, desc: str, arg_names, arg_types, arg_desc,
               key_var_num_args: str | None = None, ret_type: str | None = None) -> str:
    """The docstring of ``mx.sym.<func_name>``.

    Parameters
    ----------
    func_name : str
        The operator's name (``<func_name>Doc`` adds its examples).
    desc : str
        The operator's description.
    arg_names, arg_types, arg_desc : list of str
        Name, type and description of each argument.
    key_var_num_args : str, optional
        The argument counting variable positional inputs (``num_args``): when given,
        the description says the function takes any number of inputs.
    ret_type : str, optional
        Unused, as in MXNet.

    Returns
    -------
    str
        Description, ``Parameters`` (with ``name``), ``Returns`` and the examples;
        ``NDArray-or-Symbol`` reads ``Symbol``.
    """
    if key_var_num_args:
        desc += "\nThis function support variable length of positional input."
    return build_doc(SymbolDoc, func_name, desc, arg_names, arg_types, arg_desc,
                     "name : string, optional.\n    Name of the resulting symbol.",
                     "Symbol\n    The result symbol.", "Symbol")
