"""Sorting the generated operator functions into MXNet's namespaces, shared by
``nd`` and ``sym``: every registered name goes to ``<pkg>.op``; names starting with
``_`` go to ``<pkg>._internal`` and, by prefix, under their short name to
``contrib`` (``_contrib_``), ``linalg`` (``_linalg_``), ``image`` (``_image_``) and
``sparse`` (``_sparse_``); the other names are the package's public functions."""
from __future__ import annotations

import sys
import types
from typing import Callable

from .registry import all_ops

__all__ = ["OpNamespaces"]

PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_image_": "image",
            "_sparse_": "sparse"}


class OpNamespaces:
    """The generated functions of one front end.

    Parameters
    ----------
    package : str
        Module path of the front end (``gluonlite.ndarray``), for the namespace names.
    make_function : callable
        ``make_function(opdef, name)``: the front end's function generator.
    subs : tuple of str
        Which of ``contrib``, ``linalg``, ``image``, ``sparse`` the front end has.
    own_short_functions : bool
        Generate a separate function under each short name (``sym`` names nodes after
        the function: ``linalg.gemm2`` makes ``gemm20``), instead of reusing the
        full-name function.

    Attributes
    ----------
    op, internal : module
        ``<pkg>.op`` (every name) and ``<pkg>._internal``.
    subs : dict of str to module
    functions : dict of str to callable
        Every registered name.
    public : dict of str to callable
        The names not starting with ``_``.
    """

    def __init__(self, package: str, make_function: Callable, subs: tuple,
                 own_short_functions: bool = False):
        self.op = types.ModuleType(f"{package}.op")
        self.internal = types.ModuleType(f"{package}._internal")
        self.subs = {s: types.ModuleType(f"{package}.{s}") for s in subs}
        # importable as modules (``from mxnet.symbol.contrib import SyncBatchNorm``), also
        # under the names of MXNet's generated files (``mxnet.ndarray.gen_op``)
        for module in [self.op, self.internal, *self.subs.values()]:
            sys.modules.setdefault(module.__name__, module)
            base, short = module.__name__.rsplit(".", 1)
            sys.modules.setdefault(f"{base}.gen_{short}", module)
        self.functions: dict = {}
        self.public: dict = {}
        for opdef in all_ops():
            for name in (opdef.name,) + opdef.aliases:
                fn = make_function(opdef, name)
                self.functions[name] = fn
                setattr(self.op, name, fn)
                if not name.startswith("_"):
                    self.public[name] = fn
                    continue
                setattr(self.internal, name, fn)
                for prefix, sub in PREFIXES.items():
                    if name.startswith(prefix) and sub in self.subs:
                        short = name[len(prefix):]
                        setattr(self.subs[sub], short,
                                make_function(opdef, short) if own_short_functions else fn)
