"""Gluon's ``Block`` (MXNet 1.9 ``mx.gluon.Block``): the base of every layer and model.

A Block owns a :class:`ParameterDict` whose names share the Block's ``prefix``
(``dense0_``), registers child Blocks assigned as attributes, and runs
``forward`` when called.  Prefixes come from :class:`_BlockScope`: a Block created
outside any ``name_scope()`` takes ``<alias><n>_`` from the global
:class:`~gluonlite.name.NameManager`; one created inside its parent's
``name_scope()`` takes ``<parent prefix><alias><n>_`` with counters kept per parent.

``HybridBlock`` and ``SymbolBlock`` live in :mod:`.hybrid_block` and
:mod:`.symbol_block` and are re-exported here, as ``mxnet.gluon.block`` has them.
"""
from __future__ import annotations

import threading
import warnings
import weakref
from collections import OrderedDict

from .. import name as _name
from ..util import is_np_array
from .parameter import Parameter, ParameterDict, _AssertionError, _TypeError
from .parameter_dict import _indent

__all__ = ["Block", "HybridBlock", "SymbolBlock", "HookHandle"]


class _BlockScope:
    """The naming scope a Block opens with ``name_scope()``.

    Counts the prefixes of the children created inside it (``dense0_``,
    ``dense1_``) and, while active, prefixes symbol names with the Block's prefix.
    """

    _current = threading.local()

    def __init__(self, block: "Block"):
        self._block = block
        self._counter: dict = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint: str):
        """``(prefix, params)`` of a new Block from the active scope."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.NameManager.current.get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


class HookHandle:
    """Handle of a registered hook; ``detach()`` removes the hook."""

    _next_id = 0

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict: OrderedDict, hook) -> None:
        if self._hooks_dict_ref is not None:
            raise _AssertionError("The same handle cannot be attached twice.")
        self._id = HookHandle._next_id
        HookHandle._next_id += 1
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self) -> None:
        hooks = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks is not None and self._id in hooks:
            del hooks[self._id]

    def __getstate__(self):
        hooks = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        return (hooks, self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()


def _flatten_blocks(value):
    """Whether a (nested) list/tuple/dict holds a Block."""
    if isinstance(value, Block):
        return True
    if isinstance(value, (list, tuple)):
        return any(_flatten_blocks(v) for v in value)
    if isinstance(value, dict):
        return any(_flatten_blocks(v) for v in value.values())
    return False


class Block:
    """Base class of all layers and models.

    Parameters
    ----------
    prefix : str, optional
        Prefix of this Block's parameter and child names (default: from the
        enclosing ``name_scope()``, e.g. ``dense0_``).
    params : ParameterDict, optional
        Share these parameters (``params=other.params``) instead of creating new ones.
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = OrderedDict()
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self) -> str:
        lines = [f"  ({key}): {_indent(repr(block), 2)}"
                 for key, block in self.__dict__.items() if isinstance(block, Block)]
        return "{name}(\n{mods}\n)".format(name=self.__class__.__name__, mods="\n".join(lines))

    def __setattr__(self, name: str, value) -> None:
        """Register Blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise _TypeError(f"Changing attribute type for {name} from {type(existing)} "
                                 f"to {type(value)}is not allowed.")
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                # MXNet's message leaves the %s unfilled; kept verbatim
                raise _AssertionError(
                    "Overriding Parameter attribute %s is not allowed. If you want to "
                    "share parameters between blocks, please set 'params' at Block "
                    "construction instead.")
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self) -> None:
        children = set(self._children.values())
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and not key.startswith("__") \
                    and _flatten_blocks(value):
                leaked = [v for v in _iter_blocks(value) if v not in children]
                if leaked:
                    warnings.warn(
                        f'"{self.__class__.__name__}.{key}" is an unregistered container '
                        f'with Blocks. Note that Blocks inside the list, tuple or dict will '
                        f'not be registered automatically. Make sure to register them using '
                        f'register_child() or switching to nn.Sequential/nn.HybridSequential '
                        f'instead. ',
                        stacklevel=3)

    def _alias(self) -> str:
        return self.__class__.__name__.lower()

    @property
    def prefix(self) -> str:
        """Prefix of this Block's names (``dense0_``)."""
        return self._prefix

    @property
    def name(self) -> str:
        """Name of this Block: the prefix without its trailing ``_``."""
        return self._name

    def name_scope(self) -> _BlockScope:
        """Scope in which child Blocks get names prefixed with this Block's prefix."""
        return self._scope

    @property
    def params(self) -> ParameterDict:
        """This Block's own parameters (not its children's)."""
        return self._params

    def collect_params(self, select=None) -> ParameterDict:
        """This Block's and all descendants' parameters, optionally those whose name
        matches the regular expression ``select`` (``'.*weight|.*bias'``)."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        ret.update(self._params._select(select) if select else self._params)
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix: str = "") -> OrderedDict:
        """Parameters by structural name (``features.3.weight``)."""
        if prefix:
            prefix += "."
        ret = OrderedDict((prefix + key, val) for key, val in self._reg_params.items())
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    # -- files (see block_io) -----------------------------------------------------------
    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        """Save parameters by structural name (``0.weight``); see :mod:`.block_io`."""
        from .block_io import save_parameters
        save_parameters(self, filename, deduplicate)

    def load_parameters(self, filename: str, ctx=None, allow_missing: bool = False,
                        ignore_extra: bool = False, cast_dtype: bool = False,
                        dtype_source: str = "current") -> None:
        """Load parameters saved by :meth:`save_parameters` (or legacy prefixed names)."""
        from .block_io import load_parameters
        load_parameters(self, filename, ctx, allow_missing, ignore_extra, cast_dtype,
                        dtype_source)

    def save(self, prefix: str) -> None:
        """Save structure, traced graphs and parameters to ``<prefix>-model.json`` and
        ``<prefix>-model.params`` (MXNet 1.9's files); see :mod:`.block_model_io`."""
        from .block_model_io import save_model
        save_model(self, prefix)

    def load(self, prefix: str) -> None:
        """Restore what :meth:`save` wrote into a Block built the same way, in the same
        order; see :mod:`.block_model_io`."""
        from .block_model_io import load_model
        load_model(self, prefix)

    def save_params(self, filename: str) -> None:
        """Deprecated: save with prefixed names (use :meth:`save_parameters`)."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if "
                      "you want load from SymbolBlock later, please use export instead. For "
                      "details, see https://mxnet.apache.org/tutorials/gluon/"
                      "save_load_params.html")
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except ValueError as e:
            raise ValueError(f"{e}\nsave_params is deprecated. Using save_parameters may "
                             f"resolve this error.") from e

    def load_params(self, filename: str, ctx=None, allow_missing: bool = False,
                    ignore_extra: bool = False) -> None:
        """Deprecated: same as :meth:`load_parameters`."""
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # -- children and hooks -------------------------------------------------------------
    def register_child(self, block: "Block", name: str | None = None) -> None:
        """Register ``block`` as a child (named by position when ``name`` is None)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook) -> HookHandle:
        """Call ``hook(block, inputs)`` before each forward; returns its handle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook) -> HookHandle:
        """Call ``hook(block, inputs, outputs)`` after each forward; returns its handle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn) -> "Block":
        """Call ``fn(block)`` on every descendant, then on this Block; returns self."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    # -- parameters in bulk -------------------------------------------------------------
    def initialize(self, init=None, ctx=None, verbose: bool = False,
                   force_reinit: bool = False) -> None:
        """Initialize all parameters (``collect_params().initialize``); ``init``
        defaults to ``Uniform()``."""
        if init is None:
            from .. import initializer
            init = initializer.Uniform()
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active: bool = True, **kwargs) -> None:
        """Hybridize every HybridBlock child (a plain Block itself runs imperatively)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype) -> None:
        """Cast all parameters to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def zero_grad(self) -> None:
        """Set every parameter gradient to 0."""
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx) -> None:
        """Move every parameter to ``ctx``."""
        self.collect_params().reset_ctx(ctx)

    # -- running ------------------------------------------------------------------------
    def __call__(self, *args):
        """Run hooks around :meth:`forward`."""
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        if is_np_array():  # npx.set_np(): blocks give mx.np arrays
            _check_same_output_types(out)
            out = _as_np_outputs(out)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        """The computation; override it."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all: bool = False) -> None:
        """Install ``callback(name, op_name, array)`` on hybridized descendants."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def summary(self, *inputs) -> None:
        """Print a table of layers, output shapes and parameter counts for ``inputs``."""
        from .block_summary import summary
        summary(self, *inputs)


def _iter_blocks(value):
    if isinstance(value, Block):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _iter_blocks(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _iter_blocks(v)


def _check_same_output_types(out) -> None:
    """Raise ``TypeError`` when ``out`` mixes legacy arrays (or symbols) with ``mx.np``
    ones, which MXNet refuses to return from one block call under ``npx.set_np()``."""
    if not isinstance(out, (list, tuple)):  # one output cannot mix
        return
    from ..ndarray import NDArray
    from ..ndarray.numpy import ndarray as np_ndarray
    from ..symbol import Symbol
    from ..symbol.numpy import _Symbol
    kinds = set()

    def walk(o):
        if isinstance(o, (list, tuple)):
            for x in o:
                walk(x)
        elif isinstance(o, (NDArray, Symbol)) and getattr(o, "stype", "default") == "default":
            kinds.add(isinstance(o, (np_ndarray, _Symbol)))
    walk(out)
    if len(kinds) > 1:
        raise _TypeError("Found both classic arrays/symbols (mx.nd, mx.sym) and numpy ones "
                         "(mx.np, mx.sym.np) in the outputs of one block; convert them to one "
                         "type with as_np_ndarray() or as_nd_ndarray()")


def _as_np_outputs(out):
    """``out`` (arrays or symbols, or nested lists/tuples of them) with legacy ``NDArray``s
    as ``mx.np`` arrays sharing their storage and autograd history, legacy symbols as
    ``mx.np`` symbols."""
    if isinstance(out, (list, tuple)):
        return type(out)(_as_np_outputs(o) for o in out)
    as_np = getattr(out, "as_np_ndarray", None)
    if as_np is not None and getattr(out, "stype", "default") == "default":
        return as_np()  # arrays and symbols; sparse arrays stay as they are
    return out


from .hybrid_block import HybridBlock, _flatten, _regroup  # noqa: E402,F401  (needs Block)
from .symbol_block import SymbolBlock  # noqa: E402
