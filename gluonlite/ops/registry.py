"""The operator registry: every operator is defined once here and served to
``nd.X``, ``sym.X``, ``F.X``, the JSON loader and the CachedOp alike.

An operator is an :class:`OpDef`.  Its functions take an :class:`OpContext`
(which array module, train or predict, which device, which random stream), the
parsed attributes, and raw ``numpy``/``cupy`` arrays; they never see NDArrays.
"""
from __future__ import annotations

import numbers
from typing import Callable, Iterable, Sequence

from ..base import MXNetError
from .attrs import REQUIRED, Attr, format_attr  # noqa: F401 - format_attr re-exported
from .expr import recorded_backward
from .no_fgradient import NO_FGRADIENT
from .op_context import OpAttrs, OpContext

__all__ = ["OpDef", "OpContext", "OpAttrs", "Attr", "register", "get_op", "find_op",
           "all_ops", "op_names"]

_REGISTRY: dict[str, "OpDef"] = {}
_CANONICAL: dict[str, "OpDef"] = {}


def _const(value):
    return lambda attrs: value


def _cuda_of(math: Callable) -> Callable:
    """``cuda_fn`` rendered from attribute-dependent math (numbers are inlined)."""
    def cuda_fn(attrs, dtype):
        m = math(attrs)
        if m is None:
            return None
        forward = m.cuda()
        return None if forward is None else (forward, m.cuda_grads(), {})
    return cuda_fn


class OpDef:
    """Definition of one operator.

    Parameters
    ----------
    name : str
        MXNet's canonical name (``FullyConnected``, ``broadcast_add``).
    forward : callable
        ``forward(oc, attrs, inputs, out) -> list of arrays``.  ``out`` is ``None``
        or a list of preallocated arrays to write the outputs into.
    backward : callable, optional
        ``backward(oc, attrs, inputs, outputs, out_grads) -> list`` with one
        gradient (or ``None``) per input.  ``out_grads`` has one array per output
        (zeros where nothing flowed back).
    attrs : dict of str to Attr
        Declared attributes with MXNet defaults.
    inputs : sequence of str or callable
        Input names, or ``f(attrs) -> names`` for variadic operators.
    aux : sequence of str
        Inputs that are auxiliary states, mutated by forward (BatchNorm's moving stats).
    num_outputs : int or callable
        Number of outputs, or ``f(attrs) -> int``.
    num_visible_outputs : int or callable, optional
        Outputs visible to the user (defaults to all).
    output_names : sequence of str or callable, optional
        Names of the outputs as ``list_outputs`` shows them (``['output']`` by default).
    infer_shape : callable
        ``f(attrs, in_shapes) -> (in_shapes, out_shapes)``; unknown shapes are
        ``None`` and unknown dimensions ``0``.  Must fill what it can in both directions.
        With ``infer_shape_outputs`` it is ``f(attrs, in_shapes, out_shapes)`` and also
        gets what is known of the outputs (from their consumers), to fill inputs from.
    infer_type : callable, optional
        ``f(op, attrs, in_dtypes) -> (in_dtypes, out_dtypes)``; defaults to "all the same".
    aliases : sequence of str
        Other names (legacy graph names, snake case names).
    differentiable : bool
        False for operators without gradient (argmax, creation ops, samplers).
    key_var_num_args : str, optional
        Attribute that counts the variadic inputs (``num_args``).
    random : bool
        True when forward draws random numbers.
    math : ElemMath or callable, optional
        For elementwise operators, the math written once in the expression form of
        :mod:`gluonlite.ops.expr` (forward and partial derivatives), or
        ``f(attrs) -> ElemMath | None`` where it depends on attributes (``None``: that
        call has no expression).  ``cuda``/``cuda_grad`` (or ``cuda_fn``) are rendered
        from it, as is ``backward_graph`` where none is given (fixed math only), and the
        op harness checks the NumPy kernels against it.
    cuda : str, optional
        For elementwise operators without ``math``, the CUDA C expression of the forward, used by fusion:
        ``"y = lhs + rhs"`` over the input names (a unary operator may call its input
        ``x``; an attribute named ``scalar`` is baked in as a literal).
    cuda_grad : str, optional
        CUDA C expression of the gradient with respect to each input.
    cuda_fn : callable, optional
        Instead of ``cuda``/``cuda_grad``, for an operator whose expressions depend on its
        attributes: ``f(attrs, dtype) -> (forward, grads, consts)``, or ``None`` where a
        call is not fusable; ``forward`` as ``cuda``, ``grads`` as ``cuda_grad``,
        ``consts`` a dict from names used in them to Python numbers, baked in as
        literals of the compute ``dtype``.
    fuse_int : bool or callable
        The ``cuda`` expression means in C on integer dtypes what the operator computes
        (add, comparisons, ``relu``...): it fuses on integers too.  A callable
        ``f(attrs) -> bool`` decides per call (``Activation`` only for ``relu``).
    fuse_shape : str
        How the inputs' shapes relate to the output's where fusion may take the node:
        ``'same'`` (one shape), ``'broadcast'`` (NumPy broadcasting) or ``'where'`` (input 0
        is a condition of any dtype that must have the output's shape).
    elementwise : bool or callable, optional
        Every input and every output have one shape, whatever the values (unary math,
        same-shape binary and scalar operators, activations, ``Dropout``, ``*_like``);
        shape inference then also passes a known output shape back to the inputs.
        ``f(attrs) -> bool`` where it depends on attributes (``LeakyReLU``'s ``prelu``
        has a ``gamma`` of another shape).  By default, what ``infer_shape`` declares
        (:func:`gluonlite.ops.common.same_shape_infer` marks its rules), else False.
    input_init : dict of str to str, optional
        The ``__init__`` string MXNet attaches to a variable created or bound for this
        input (``{"moving_var": '["one", {}]'}``).
    float32_inputs : tuple of str
        Inputs that stay ``float32`` when a network is cast to ``float16`` (BatchNorm's
        ``gamma``, ``beta`` and moving statistics).
    second_order : bool, optional
        Whether a second-order gradient exists (``autograd.grad(..., create_graph=True)``);
        by default, whether ``backward_graph`` is given.
    json_num_outputs : int or callable, optional
        The output count MXNet writes for the node into ``-symbol.json``
        (``node_row_ptr``) when it differs from ``num_outputs``: hidden outputs of
        MXNet's kernels (max Pooling's oneDNN workspace, ``_linalg_det``'s LU factors);
        a callable takes the attributes and returns the count or ``None``.
    backward_uses : tuple of str
        What backward reads: any of ``'inputs'``, ``'outputs'``; lets the engine drop the rest.
    backward_graph : callable, optional
        ``f(F, attrs, inputs, outputs, out_grads) -> list`` computing the input
        gradients from arrays with the functions of ``F``, the namespace of recorded
        array functions the tape hands in (``mx.nd``, as ``hybrid_forward(F, ...)``
        receives one), so that autograd can record it (``autograd.grad(...,
        create_graph=True)``); reads the same as ``backward``.  ``ops/`` never
        imports the arrays layer: everything comes through ``F`` (``F.NDArray(raw,
        ctx)`` wraps a constant).
    backward_mask : bool
        ``backward`` accepts a keyword ``need`` (one bool per input) and may skip the
        gradients of inputs not needed (returning ``None`` for them): a network's first
        layer then computes no gradient for its data.
    infer_shape_outputs : bool
        ``infer_shape`` takes the known output shapes as a third argument (shape
        inference from outputs back to inputs: Reshape, ``_rnn_param_concat``).
    inplace_out : bool
        ``forward`` may be handed ``out`` buffers that alias its inputs (it reads an
        element before writing it): ``nd.X(..., out=weight)`` then writes the weight
        in place instead of through a temporary.  The update operators declare it.
    sparse_forward : callable, optional
        MXNet's storage-type dispatch (``FComputeEx``):
        ``f(oc, attrs, inputs, out) -> list or None``, called instead of ``forward``
        when an input is sparse.  Sparse inputs (and sparse ``out`` buffers) arrive as
        :mod:`~gluonlite.ops.sparse_storage` records, dense ones as arrays; outputs may
        be either.  ``None`` means "no sparse kernel for these storage types": the
        dense ``forward`` then runs on densified inputs (MXNet's storage fallback).
    sparse_from_dense : bool
        ``sparse_forward`` also runs when every input is dense (``cast_storage``, which
        makes sparse arrays from dense ones).
    saved_state : bool
        Forward can hand per-call state to the backward of the same call (a
        convolution's columns, the ``RNN`` operator's BPTT caches, cuDNN's reserve space,
        a ``Custom`` operator instance), instead of backward recomputing it.  Where a
        backward may follow, the callers that carry state (imperative invoke with the
        tape, the CachedOp's forward and backward plans) call ``forward(oc, attrs,
        inputs, out, keep_state=True)``, which then returns ``(outputs, state)``;
        ``state`` is any object (``None``: nothing kept), handed to ``backward`` as the
        keyword ``state``.  Without ``keep_state`` forward returns its outputs as usual
        and backward gets ``state=None``: it must then recompute what it needs (so
        direct calls of forward and backward keep working).  Backward only reads the
        state: a retained graph hands the same object to a second backward.  The state
        may refer to the call's inputs or outputs only where ``backward_uses`` keeps
        them (the CachedOp reuses the memory of entries that backward does not read).
    grad_stypes : callable, optional
        MXNet's backward storage-type inference: ``f(attrs, in_stypes)`` gives the
        storage type of each input's gradient (``'default'``, ``'row_sparse'``) from the
        attributes and the inputs' storage types, or ``None`` for all dense.
        ``simple_bind`` allocates gradient buffers accordingly (``Embedding`` with
        ``sparse_grad=True``: a row_sparse weight gradient).
    summary_params : callable, optional
        ``f(attrs, in_channels, out_shape) -> int``: the parameters ``print_summary``
        counts for a node, as MXNet's (from the channels of its inputs and its output
        shape, which may be ``None``); 0 when not given.
    plot_style : callable, optional
        ``f(name, attrs) -> (label, family)``: the box label ``plot_network`` draws for
        a node of this operator (``name`` is the node's operator name as written) and
        its colour family (``'layer'``, ``'activation'``, ``'norm'``, ``'pooling'``,
        ``'shape'``, ``'output'``); by default the name, in the neutral colour.
    zero_gradient : bool
        Every input gradient is zero whatever the head gradient (``BlockGrad``): a
        backward plan prunes the operator and everything feeding only it, so a graph
        under ``stop_gradient`` keeps nothing for backward (MXNet's zero propagation).
    capturable : bool
        A CUDA graph captured from one call of ``forward`` replays it faithfully: its
        device work depends only on its inputs' contents and its attributes, and its
        Python code has no effect of its own.  False for operators that run user Python
        (``Custom``); random operators are never captured either (``random``).  The
        engine also finds operators that synchronize or call cuBLAS by trying.
    num_subgraphs : int
        How many subgraphs a node of this operator carries (the control-flow operators
        ``_foreach``, ``_while_loop``, ``_cond``): the attribute ``subgraphs`` holds them,
        ``-symbol.json`` writes them as the node's ``subgraphs``, and the engine hands
        the operator subgraphs it can run (see :mod:`gluonlite.ops.control_flow`).
    open_attrs : bool
        Accept undeclared attributes and keep them as strings (``str(value)``), the
        way MXNet passes ``Custom``'s keyword arguments to the user's operator.
    listed_inputs : bool
        Whether MXNet's operator lists its input names (``FListInputNames``): monitors
        and ``register_op_hook`` name a node's inputs ``<node>_<input name>``; without
        (``False``: most unary, scalar, reduction and shape operators) they name them
        ``<node>_input0``, ``<node>_input1``, ... (see :meth:`monitor_input_names`).
    variadic_input : str
        The name MXNet documents a variadic operator's list of inputs under
        (``data`` for ``Concat``, ``args`` for ``add_n``): ``get_operator_arguments``.
    out_grads_read : sequence of bool or callable, optional
        Which output gradients ``backward`` reads (MXNet's ``FGradient`` passes only
        these on: ``topk``'s indices, ``BatchNorm``'s mean and variance are not read);
        ``f(attrs) -> sequence of bool`` where it depends on attributes.  By default all:
        a head gradient for an unread output is neither needed nor checked.
    zero_dim_outputs : bool
        The outputs are 0-d arrays even outside NumPy shape semantics
        (``_contrib_allclose``), where other operators' 0-d results become shape ``(1,)``.
    prepare : callable, optional
        ``f(oc, attrs, inputs) -> object``: work that depends only on the inputs at the
        positions ``prepared_inputs(attrs)`` gives (weights, as MXNet's oneDNN INT8
        nodes quantize theirs once), which ``forward`` then takes as the keyword
        ``prepared``.  A CachedOp whose graph feeds those positions from its own inputs
        (parameters) keeps the object while those arrays are the same and unchanged
        (their in-place write versions, as MXNet's kernels compare); elsewhere
        ``forward`` is called without it and prepares on every call.
    prepared_inputs : callable, optional
        ``f(attrs) -> tuple of int``: the input positions ``prepare`` reads; ``()``
        where a call prepares nothing (a float fused node).
    mutates_aux : callable, optional
        ``f(attrs, is_train) -> bool``: whether a call writes its auxiliary inputs (by
        default always, for operators with any).  A CachedOp counts a write (a version
        bump) only for the auxiliary states of steps that may write them, so that, say,
        a quantized fused node's BatchNorm statistics stay unchanged in inference.
    """

    def __init__(self, name: str, forward: Callable, *, backward: Callable | None = None,
                 attrs: dict | None = None, inputs: Sequence[str] | Callable = ("data",),
                 aux: Sequence[str] = (), num_outputs: int | Callable = 1,
                 num_visible_outputs: int | Callable | None = None,
                 output_names: Sequence[str] | Callable | None = None,
                 infer_shape: Callable | None = None, infer_type: Callable | None = None,
                 aliases: Iterable[str] = (), differentiable: bool = True,
                 key_var_num_args: str | None = None, random: bool = False,
                 cuda: str | None = None, cuda_grad: Sequence[str] | None = None,
                 backward_uses: tuple = ("inputs", "outputs"),
                 backward_graph: Callable | None = None, doc: str = "",
                 open_attrs: bool = False, backward_mask: bool = False,
                 inplace_out: bool = False, infer_shape_outputs: bool = False,
                 elementwise: bool | Callable | None = None,
                 fuse_int: bool | Callable = False, fuse_shape: str = "same",
                 input_init: dict | None = None, float32_inputs: Sequence[str] = (),
                 second_order: bool | None = None, cuda_fn: Callable | None = None,
                 json_num_outputs: int | Callable | None = None,
                 sparse_forward: Callable | None = None, sparse_from_dense: bool = False,
                 saved_state: bool = False, capturable: bool = True,
                 grad_stypes: Callable | None = None,
                 summary_params: Callable | None = None,
                 plot_style: Callable | None = None, zero_gradient: bool = False,
                 num_subgraphs: int = 0, listed_inputs: bool = True,
                 variadic_input: str = "data",
                 out_grads_read: Sequence[bool] | Callable | None = None,
                 zero_dim_outputs: bool = False, prepare: Callable | None = None,
                 prepared_inputs: Callable | None = None,
                 mutates_aux: Callable | None = None, math=None):
        self.name = name
        self.math = math
        if callable(math) and cuda_fn is None:
            cuda_fn = _cuda_of(math)
        elif math is not None:
            if cuda is None:
                cuda, cuda_grad = math.cuda(), math.cuda_grads()
            if backward_graph is None and backward is not None:
                backward_graph = recorded_backward(math)
        self.mutates_aux = mutates_aux
        self.prepare = prepare
        self.prepared_inputs = prepared_inputs
        self.variadic_input = variadic_input
        self.out_grads_read = out_grads_read
        self.zero_dim_outputs = zero_dim_outputs
        self.listed_inputs = listed_inputs
        self.num_subgraphs = num_subgraphs
        self.saved_state = saved_state
        self.capturable = capturable
        self.grad_stypes = grad_stypes
        self.summary_params = summary_params
        self.zero_gradient = zero_gradient
        self.plot_style = plot_style
        self.sparse_forward = sparse_forward
        self.sparse_from_dense = sparse_from_dense
        self.json_num_outputs = json_num_outputs
        if elementwise is None:
            elementwise = bool(getattr(infer_shape, "elementwise", False))
        self.elementwise = elementwise
        self.fuse_int = fuse_int
        self.cuda_fn = cuda_fn
        if fuse_shape not in ("same", "broadcast", "where"):
            raise ValueError(f"operator {name}: fuse_shape must be 'same', 'broadcast' "
                             f"or 'where', not {fuse_shape!r}")
        self.fuse_shape = fuse_shape
        self.input_init = dict(input_init or {})
        self.float32_inputs = tuple(float32_inputs)
        self.second_order = backward_graph is not None if second_order is None \
            else bool(second_order)
        self.infer_shape_outputs = infer_shape_outputs
        self.inplace_out = inplace_out
        self.backward_mask = backward_mask
        self.open_attrs = open_attrs
        self.forward = forward
        self.backward = backward
        self.attrs: dict[str, Attr] = dict(attrs or {})
        self.aliases = tuple(aliases)
        self.differentiable = differentiable and backward is not None
        self.key_var_num_args = key_var_num_args
        self.random = random
        self.cuda = cuda
        self.cuda_grad = tuple(cuda_grad) if cuda_grad is not None else None
        self.backward_uses = tuple(backward_uses)
        self.backward_graph = backward_graph
        self.doc = doc
        self.aux_names = tuple(aux)
        self._inputs = inputs if callable(inputs) else _const(tuple(inputs))
        self._static_inputs = None if callable(inputs) else tuple(inputs)
        self._num_outputs = num_outputs if callable(num_outputs) else _const(int(num_outputs))
        # a constant visible-output count lets the imperative hot path skip a call
        self._n_visible_static = None
        if num_visible_outputs is None and not callable(num_outputs):
            self._n_visible_static = int(num_outputs)
        elif num_visible_outputs is not None and not callable(num_visible_outputs):
            self._n_visible_static = int(num_visible_outputs)
        if num_visible_outputs is None:
            self._num_visible = self._num_outputs
        elif callable(num_visible_outputs):
            self._num_visible = num_visible_outputs
        else:
            self._num_visible = _const(int(num_visible_outputs))
        if output_names is None:
            self._output_names = _default_output_names(self)
        elif callable(output_names):
            self._output_names = output_names
        else:
            self._output_names = _const(tuple(output_names))
        self._infer_shape = infer_shape
        self._infer_type = infer_type or same_dtype
        self._attr_cache: dict = {}
        self._default_attrs = None

    # -- attributes -------------------------------------------------------------
    def parse_attrs(self, kwargs: dict | None) -> OpAttrs:
        """Parse a dict of attributes (strings or Python values) into an ``OpAttrs``.

        Unknown attribute names raise ``MXNetError``; parsed results are cached.
        """
        if not kwargs:
            if self._default_attrs is None:
                self._default_attrs = self._parse({})
            return self._default_attrs
        try:
            key = tuple(kwargs.items())
            cached = self._attr_cache.get(key)
        except TypeError:  # unhashable value (a list)
            return self._parse(kwargs)
        if cached is None:
            cached = self._parse(kwargs)
            if len(self._attr_cache) < 512:
                self._attr_cache[key] = cached
        return cached

    def _parse(self, kwargs: dict) -> OpAttrs:
        values = {}
        given = {}
        for key, value in kwargs.items():
            spec = self.attrs.get(key)
            if spec is None:
                if key.startswith("__") and key.endswith("__"):
                    continue  # user attributes such as __lr_mult__ are not op attributes
                if self.open_attrs:
                    values[key] = given[key] = value if isinstance(value, str) else str(value)
                    continue
                if not self.attrs:
                    continue  # as in MXNet, an operator without parameters ignores them
                raise MXNetError(f"Operator {self.name}: unknown attribute '{key}'; "
                                 f"expected one of {sorted(self.attrs)}")
            values[key] = spec.parse(self.name, key, value)
            if spec.kind != "object":
                given[key] = values[key]
        for key, spec in self.attrs.items():
            if key not in values:
                if spec.default is REQUIRED:
                    raise MXNetError(f"Operator {self.name}: required attribute '{key}' "
                                     "is missing")
                values[key] = spec.default
        return OpAttrs(values, given)

    # -- structure ----------------------------------------------------------------
    def input_names(self, attrs: OpAttrs) -> tuple:
        """Names of all inputs (arguments and auxiliary states) in order."""
        return self._static_inputs if self._static_inputs is not None else tuple(self._inputs(attrs))

    def num_inputs(self, attrs: OpAttrs) -> int:
        """Number of inputs for these attributes."""
        return len(self.input_names(attrs))

    def num_outputs(self, attrs: OpAttrs) -> int:
        """Number of outputs, hidden ones included."""
        return self._num_outputs(attrs)

    def num_visible_outputs(self, attrs: OpAttrs) -> int:
        """Number of outputs the user sees."""
        return self._num_visible(attrs)

    def monitor_input_names(self, attrs: OpAttrs) -> tuple:
        """Names a monitor gives the inputs (MXNet: the listed input names, else
        ``input0``, ``input1``, ...)."""
        names = self.input_names(attrs)
        if self.listed_inputs:
            return names
        return tuple(f"input{i}" for i in range(len(names)))

    @property
    def has_fgradient(self) -> bool:
        """Whether MXNet 1.9.1 defines a gradient (``FGradient``, possibly zeros) for the
        operator: those it does not (:data:`~gluonlite.ops.no_fgradient.NO_FGRADIENT`)
        refuse a gradient graph through them."""
        return self.name not in NO_FGRADIENT

    def reads_out_grads(self, attrs: OpAttrs) -> tuple | None:
        """Per output, whether ``backward`` reads its gradient; ``None``: all of them."""
        r = self.out_grads_read
        if r is None:
            return None
        return tuple(r(attrs) if callable(r) else r)

    def output_names(self, attrs: OpAttrs) -> tuple:
        """Names of the outputs (``output``, or ``output0``, ``output1``, ...)."""
        return tuple(self._output_names(attrs))

    def is_elementwise(self, attrs: OpAttrs) -> bool:
        """Whether every input and output of a call with ``attrs`` have one shape."""
        e = self.elementwise
        return e(attrs) if callable(e) else bool(e)

    def fuses_int(self, attrs: OpAttrs) -> bool:
        """Whether the fusion expression of a call with ``attrs`` holds on integer dtypes."""
        f = self.fuse_int
        return f(attrs) if callable(f) else bool(f)

    def aux_indices(self, attrs: OpAttrs) -> tuple:
        """Positions of the auxiliary-state inputs."""
        names = self.input_names(attrs)
        return tuple(i for i, n in enumerate(names) if n in self.aux_names)

    # -- inference ----------------------------------------------------------------
    def infer_shape(self, attrs: OpAttrs, in_shapes: list,
                    out_shapes: list | None = None) -> tuple[list, list]:
        """Infer input and output shapes from what is known; raise ``MXNetError`` on conflict.

        ``out_shapes`` (known output shapes, ``None`` where unknown) reach operators that
        declare ``infer_shape_outputs``; the others infer from the inputs alone.
        """
        if self._infer_shape is None:
            raise MXNetError(f"Operator {self.name}: no shape inference")
        try:
            if self.infer_shape_outputs:
                outs_known = list(out_shapes) if out_shapes is not None else \
                    [None] * self.num_outputs(attrs)
                ins, outs = self._infer_shape(attrs, list(in_shapes), outs_known)
            else:
                ins, outs = self._infer_shape(attrs, list(in_shapes))
        except MXNetError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as err:
            raise MXNetError(f"Operator {self.name}: shape inference failed for input "
                             f"shapes {list(in_shapes)}: {err}") from err
        return list(ins), list(outs)

    def infer_type(self, attrs: OpAttrs, in_dtypes: list) -> tuple[list, list]:
        """Infer input and output dtypes (``None`` where unknown)."""
        ins, outs = self._infer_type(self, attrs, list(in_dtypes))
        return list(ins), list(outs)

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


def _default_output_names(op: OpDef):
    def names(attrs):
        n = op.num_outputs(attrs)
        return ("output",) if n == 1 else tuple(f"output{i}" for i in range(n))
    return names


def same_dtype(op: OpDef, attrs: OpAttrs, in_dtypes: list):
    """Default dtype rule: every input and output has the dtype of the first known input."""
    known = next((d for d in in_dtypes if d is not None), None)
    n_out = op.num_outputs(attrs)
    if known is None:
        return in_dtypes, [None] * n_out
    for i, d in enumerate(in_dtypes):
        if d is not None and d != known:
            names = op.input_names(attrs)
            raise MXNetError(f"Operator {op.name}: input '{names[i]}' has dtype {d}, "
                             f"expected {known} like the other inputs")
    return [known] * len(in_dtypes), [known] * n_out


def register(op: OpDef) -> OpDef:
    """Add an operator to the registry under its name and aliases."""
    for name in (op.name,) + op.aliases:
        if name in _REGISTRY and _REGISTRY[name] is not op:
            raise ValueError(f"operator {name} registered twice")
        _REGISTRY[name] = op
    _CANONICAL[op.name] = op
    return op


def add_alias(name: str, alias: str) -> OpDef:
    """Register the existing operator ``name`` under one more name (MXNet's names for the
    same operator in another front end: ``_npi_exp`` for ``exp``)."""
    op = _REGISTRY[name]
    if alias in _REGISTRY and _REGISTRY[alias] is not op:
        raise ValueError(f"operator {alias} registered twice")
    if alias not in op.aliases and alias != op.name:
        op.aliases = op.aliases + (alias,)
    _REGISTRY[alias] = op
    return op


def defop(name: str, **kwargs) -> Callable:
    """Decorator form: ``@defop("relu", ...)`` over the forward function."""
    def wrap(forward):
        return register(OpDef(name, forward, **kwargs))
    return wrap


def find_op(name: str) -> OpDef | None:
    """The operator registered under ``name`` (canonical or alias), or ``None``."""
    _ensure_loaded()
    return _REGISTRY.get(name)


def get_op(name: str) -> OpDef:
    """The operator registered under ``name``; unknown names raise ``MXNetError``."""
    _ensure_loaded()
    op = _REGISTRY.get(name)
    if op is None:
        raise MXNetError(f"Cannot find operator '{name}' in the operator registry")
    return op


def all_ops() -> list[OpDef]:
    """Every distinct operator, in registration order."""
    _ensure_loaded()
    return list(_CANONICAL.values())


def op_names() -> list[str]:
    """Every registered name, aliases included."""
    _ensure_loaded()
    return list(_REGISTRY)


def names_with_prefix(prefixes: tuple) -> list[str]:
    """Registered names (aliases included) that start with one of ``prefixes``
    (``("_npi_", "_np_")``: the operators of MXNet's NumPy interface)."""
    _ensure_loaded()
    return [n for n in _REGISTRY if n.startswith(prefixes)]


def positional_attrs(name: str, inputs: tuple, attrs: dict) -> list:
    """The array inputs of a call of operator ``name``; the positional numbers among
    ``inputs`` fill ``attrs`` in the operator's declared order (MXNet's generated
    signatures put them after the arrays: ``boolean_mask_assign_scalar(data, mask,
    value, start_axis)``)."""
    arrays = [x for x in inputs if not isinstance(x, numbers.Number)]
    given = [x for x in inputs if isinstance(x, numbers.Number)]
    if given:
        free = [k for k in get_op(name).attrs if k not in attrs]
        for key, value in zip(free, given):
            attrs[key] = value
    return arrays


_loaded = False


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        from . import _all  # noqa: F401 - importing registers every operator
