"""Generate the ``nd.<Name>`` function of every registry operator, with MXNet's
calling convention: NDArray arguments (positional or by input name) are inputs,
other positional arguments fill attributes in declaration order, and ``out=``,
``name=`` and ``ctx=`` are accepted."""
from __future__ import annotations

from ..base import MXNetError
from ..context import Context
from .invoke import invoke, invoke_unary
from .ndarray import NDArray

_SKIP_ATTR_KEYS = ("name", "attr")


def _as_ctx(ctx):
    if ctx is None or isinstance(ctx, Context):
        return ctx
    from ..context import Context as C
    s = str(ctx)
    if "(" in s:
        kind, rest = s.split("(", 1)
        return C(kind, int(rest.rstrip(")")))
    return C(s)


def _unary_default_attrs(op):
    """The default attributes of a one-input, one-output operator without aux states
    (which :func:`invoke_unary` can run), else ``None``."""
    if op._static_inputs is None or len(op._static_inputs) != 1 or op.aux_names:
        return None
    try:
        attrs = op.parse_attrs(None)
        if op.num_outputs(attrs) != 1 or op.num_visible_outputs(attrs) != 1:
            return None
    except Exception:  # noqa: BLE001 - required attributes: no default call exists
        return None
    return attrs


def make_function(op, func_name: str, cls=None):
    """Build the imperative function for ``op`` under ``func_name``; ``cls``: the array
    class of the results (``mx.np.ndarray`` for ``mx.npx``; default ``NDArray``)."""
    attr_order = list(op.attrs)
    static_inputs = op._static_inputs
    n_static = len(static_inputs) if static_inputs is not None else -1
    var_key = op.key_var_num_args
    parse = op.parse_attrs

    unary_attrs = _unary_default_attrs(op)

    def fn(*args, out=None, name=None, ctx=None, **kwargs):
        if unary_attrs is not None and len(args) == 1 and not kwargs and out is None \
                and ctx is None and type(args[0]) is NDArray and cls is None:
            return invoke_unary(op, args[0], unary_attrs)
        if not kwargs and len(args) == n_static and out is None and ctx is None:
            for a in args:
                if type(a) is not NDArray:
                    break
            else:
                if cls is None:
                    return invoke(op, list(args), parse(None))
        pos_inputs = []
        rest = []
        for i, a in enumerate(args):
            if isinstance(a, NDArray) and not rest:
                pos_inputs.append(a)
            elif a is None and not rest:
                continue  # an input not given: MXNet's f(data=None, weight=None, bias=None, ...)
            elif var_key and isinstance(a, (list, tuple)) and a and \
                    all(isinstance(x, NDArray) for x in a) and not rest:
                pos_inputs.extend(a)
            else:
                rest.append(a)
        kw_inputs = {}
        attrs = {}
        for k, v in kwargs.items():
            if isinstance(v, NDArray):
                kw_inputs[k] = v
            elif v is None and k not in op.attrs and not op.open_attrs:
                continue
            elif k in _SKIP_ATTR_KEYS:
                continue
            else:
                attrs[k] = v
        if rest:
            free = [a for a in attr_order if a not in attrs and a != var_key]
            if len(rest) > len(free):
                raise MXNetError(f"Operator {op.name}: too many positional arguments")
            for key, value in zip(free, rest):
                attrs[key] = value
        if var_key and var_key not in attrs and var_key in op.attrs:
            attrs[var_key] = len(pos_inputs) + len(kw_inputs)
        parsed = op.parse_attrs(attrs)
        names = op.input_names(parsed)
        if kw_inputs:
            inputs = list(pos_inputs)
            for nm in names[len(pos_inputs):]:
                if nm in kw_inputs:
                    inputs.append(kw_inputs.pop(nm))
                else:
                    raise MXNetError(f"Operator {op.name}: input '{nm}' is missing")
            if kw_inputs:
                raise MXNetError(f"Operator {op.name}: unknown inputs {sorted(kw_inputs)}; "
                                 f"inputs are {list(names)}")
        else:
            inputs = pos_inputs
        if len(inputs) != len(names):
            raise MXNetError(f"Operator {op.name}: expected {len(names)} input(s) "
                             f"{list(names)}, got {len(inputs)}")
        return invoke(op, inputs, parsed, out=out, ctx=_as_ctx(ctx), cls=cls)

    fn.__name__ = func_name
    fn.__qualname__ = func_name
    fn.__doc__ = op.doc or f"The ``{op.name}`` operator (MXNet semantics)."
    return fn
