"""Code generation and execution of a fused elementwise group.

A :class:`FusedGroup` wraps a :class:`~gluonlite.engine.fusion.Group` and behaves
like an ``OpDef`` for the engine: ``forward(oc, attrs, inputs, out)`` and
``backward(oc, attrs, inputs, outputs, out_grads)`` with the group's input entries
as inputs and its output entries as outputs, plus ``name``, ``backward_uses``,
``differentiable`` and ``random``.

On CuPy the forward is one generated ``cupy.ElementwiseKernel`` (it broadcasts the
inputs to the group's shape), and the backward another one that recomputes the
intermediates from the inputs and chains the members' ``cuda_grad`` expressions
in reverse, producing every input gradient at once; gradients of broadcast inputs
are then summed over the broadcast axes.  Kernels are cached module-wide by their
source and dtypes.  On NumPy the members' own functions run one by one (the same
numbers as the unfused graph).

The kernel text is described by a :class:`KernelSpec` (parameters and operation),
which tests also wrap into a plain CUDA or C++ loop to compile without a GPU.

Fusion is meant for the GPU.  On the CPU the memory-planned unfused plan is faster
than the group's op-by-op path, and numexpr does not pay either (measured by
``bench/bench_fusion.py`` on the 10-op chain: numexpr without Intel VML is several
times slower than NumPy's SIMD ``exp``/``tanh``, and promotes float32 with float
constants to float64).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..ops._binary_math import reduce_to
from .cuda_expr import CTYPES

__all__ = ["KernelSpec", "FusedGroup", "forward_spec", "backward_spec", "kernel_cache_size"]

_KERNELS: dict = {}


@dataclass(frozen=True)
class KernelSpec:
    """The text of one elementwise kernel.

    Attributes
    ----------
    name : str
        Kernel name (a C identifier).
    in_params, out_params : tuple of (str, numpy dtype)
        Parameter names and dtypes, in call order.
    operation : str
        C statements run once per element (ElementwiseKernel's ``operation``).
    """

    name: str
    in_params: tuple
    out_params: tuple
    operation: str

    @staticmethod
    def _params(params) -> str:
        return ", ".join(f"{np.dtype(d).name} {n}" for n, d in params)

    @property
    def in_text(self) -> str:
        """``in_params`` as ElementwiseKernel wants it (``"float32 in0, float32 in1"``)."""
        return self._params(self.in_params)

    @property
    def out_text(self) -> str:
        """``out_params`` as ElementwiseKernel wants it."""
        return self._params(self.out_params)


def _sub(expr: str, names: list, y: str | None = None) -> str:
    """Put variable names into a normalised expression (``$0``... and ``$y``)."""
    if y is not None:
        expr = expr.replace("$y", y)
    # replace the highest positions first so that $1 does not eat the start of $10
    for k in range(len(names) - 1, -1, -1):
        expr = expr.replace(f"${k}", names[k])
    return expr


def _kernel_name(group, kind: str, body: str) -> str:
    digest = hashlib.sha1(body.encode()).hexdigest()[:10]
    ops = "_".join(n.op.name.strip("_").lower() for n in group.nodes[:4])
    ops = "".join(c if c.isalnum() or c == "_" else "_" for c in ops)[:40]
    return f"gl_{kind}_{ops}_{digest}"


def _recompute(group, dtypes) -> tuple[list[str], dict, dict]:
    """Statements computing every member from the group inputs.

    Returns the statements, the C name of each input entry (``in<k>``) and of each
    member (``t<j>``), keyed by ``(id(node), index)``.
    """
    names = {(id(e[0]), e[1]): f"in{k}" for k, e in enumerate(group.inputs)}
    lines = []
    for j, (node, expr) in enumerate(zip(group.nodes, group.exprs)):
        args = [names[(id(e[0]), e[1])] for e in node.inputs]
        ctype = CTYPES[np.dtype(dtypes[(node, 0)])]
        lines.append(f"const {ctype} t{j} = ({ctype})({_sub(expr.forward, args)});")
        names[(id(node), 0)] = f"t{j}"
    return lines, names


def forward_spec(group, dtypes) -> KernelSpec:
    """The forward kernel of ``group``; ``dtypes`` maps every entry to its dtype."""
    lines, names = _recompute(group, dtypes)
    for k, e in enumerate(group.outputs):
        lines.append(f"out{k} = {names[(id(e[0]), e[1])]};")
    body = "\n".join(lines)
    ins = tuple((f"in{k}", np.dtype(dtypes[e])) for k, e in enumerate(group.inputs))
    outs = tuple((f"out{k}", np.dtype(dtypes[e])) for k, e in enumerate(group.outputs))
    return KernelSpec(_kernel_name(group, "fwd", body), ins, outs, body)


def _term(g: str, d: str) -> str:
    d = d.strip()
    if d == "1":
        return g
    if d == "-1":
        return f"(-{g})"
    return f"{g} * ({d})"


def backward_spec(group, dtypes) -> tuple[KernelSpec, list] | None:
    """The backward kernel of ``group`` and, per group input, its gradient parameter
    position in ``out_params`` (``None`` where the gradient is zero).

    The kernel reads the group inputs and one head gradient per group output
    (``gy<k>``) and writes ``gx<k>`` for the inputs that receive a gradient.
    Returns ``None`` when a differentiable member has no gradient expression or an
    input is not floating point.
    """
    if any(np.dtype(dtypes[e]).kind != "f" for e in group.inputs):
        return None  # integer groups differentiate member by member
    lines, names = _recompute(group, dtypes)
    terms: dict = {}
    out_pos = {(id(e[0]), e[1]): k for k, e in enumerate(group.outputs)}
    for j in range(len(group.nodes) - 1, -1, -1):
        node, expr = group.nodes[j], group.exprs[j]
        key = (id(node), 0)
        mine = list(terms.pop(key, ()))
        if key in out_pos:
            mine.insert(0, f"gy{out_pos[key]}")
        if not mine:
            continue
        ctype = CTYPES[np.dtype(dtypes[(node, 0)])]
        lines.append(f"const {ctype} g{j} = {' + '.join(mine)};")
        args = [names[(id(e[0]), e[1])] for e in node.inputs]
        for p, e in enumerate(node.inputs):
            d = expr.grads[p] if p < len(expr.grads) else None
            if d is None:
                if node.op.differentiable:
                    return None
                continue
            d = _sub(d, args, f"t{j}")
            if d.strip() in ("0", "(0)"):
                continue
            terms.setdefault((id(e[0]), e[1]), []).append(_term(f"g{j}", d))
    outs, positions = [], []
    for k, e in enumerate(group.inputs):
        mine = terms.get((id(e[0]), e[1]))
        if not mine:
            positions.append(None)
            continue
        ctype = CTYPES[np.dtype(dtypes[e])]
        positions.append(len(outs))
        lines.append(f"gx{k} = ({ctype})({' + '.join(mine)});")
        outs.append((f"gx{k}", np.dtype(dtypes[e])))
    body = "\n".join(lines)
    ins = tuple((f"in{k}", np.dtype(dtypes[e])) for k, e in enumerate(group.inputs)) + \
        tuple((f"gy{k}", np.dtype(dtypes[e])) for k, e in enumerate(group.outputs))
    return KernelSpec(_kernel_name(group, "bwd", body), ins, tuple(outs), body), positions


def _kernel(xp, spec: KernelSpec):
    """The compiled ``ElementwiseKernel`` of ``spec`` (cached module-wide)."""
    key = (spec.in_text, spec.out_text, spec.operation)
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = xp.ElementwiseKernel(spec.in_text, spec.out_text, spec.operation,
                                                 spec.name)
    return k


def kernel_cache_size() -> int:
    """Number of compiled kernels held (for tests and benchmarks)."""
    return len(_KERNELS)


def _is_cupy(xp) -> bool:
    return getattr(xp, "__name__", "") == "cupy"


class FusedGroup:
    """One fused group as an engine step (same calling convention as an ``OpDef``).

    Parameters
    ----------
    group : Group
        From :func:`gluonlite.engine.fusion.find_groups`.
    dtypes : mapping of Entry to numpy dtype
        The dtype of every entry the group touches (the plan's dtype inference).
    """

    random = False
    backward_uses = ("inputs",)  # backward recomputes the intermediates from the inputs

    def __init__(self, group, dtypes):
        self.group = group
        self.name = group.name
        self.differentiable = any(n.op.differentiable for n in group.nodes)
        self._dtypes = {e: np.dtype(dtypes[e]) for e in
                        list(group.inputs) + [(n, 0) for n in group.nodes]}
        self._fwd = None
        self._bwd = None
        self._bwd_built = False
        self._fwd_kernel = None  # compiled kernels (the module cache shares them)
        self._bwd_kernel = None
        # member position of each group output; input slot of each member input
        pos = {(id(e[0]), e[1]): ("in", k) for k, e in enumerate(group.inputs)}
        for j, n in enumerate(group.nodes):
            pos[(id(n), 0)] = ("t", j)
        self._arg_src = [[pos[(id(e[0]), e[1])] for e in n.inputs] for n in group.nodes]
        self._out_member = {}
        for k, e in enumerate(group.outputs):
            self._out_member[pos[(id(e[0]), e[1])][1]] = k

    def __repr__(self) -> str:
        return f"<FusedGroup {self.name}: {len(self.group.nodes)} ops>"

    @property
    def forward_spec(self) -> KernelSpec:
        """The generated forward kernel."""
        if self._fwd is None:
            self._fwd = forward_spec(self.group, self._dtypes)
        return self._fwd

    @property
    def backward_spec(self):
        """``(KernelSpec, positions)`` of the generated backward, or ``None``."""
        if not self._bwd_built:
            self._bwd = backward_spec(self.group, self._dtypes)
            self._bwd_built = True
        return self._bwd

    # -- forward --------------------------------------------------------------------
    def forward(self, oc, attrs, inputs, out):
        """Outputs of the group (``out``: preallocated output buffers or ``None``)."""
        if _is_cupy(oc.xp):
            k = self._fwd_kernel
            if k is None:
                k = self._fwd_kernel = _kernel(oc.xp, self.forward_spec)
            res = k(*inputs, *out) if out is not None else k(*inputs)
            return list(res) if isinstance(res, tuple) else [res]
        vals = self._run_members(oc, inputs, out)
        return [vals[("t", j)] for j in sorted(self._out_member, key=self._out_member.get)]

    def _run_members(self, oc, inputs, out):
        vals = {("in", k): x for k, x in enumerate(inputs)}
        for j, node in enumerate(self.group.nodes):
            args = [vals[s] for s in self._arg_src[j]]
            k = self._out_member.get(j)
            buf = [out[k]] if out is not None and k is not None else None
            vals[("t", j)] = node.op.forward(oc, node.attrs, args, buf)[0]
        return vals

    # -- backward -------------------------------------------------------------------
    def backward(self, oc, attrs, inputs, outputs, out_grads):
        """Gradients of the group inputs (one per input, zeros where none flows)."""
        xp = oc.xp
        if _is_cupy(xp) and self.backward_spec is not None:
            spec, positions = self.backward_spec
            if spec.out_params:
                k = self._bwd_kernel
                if k is None:
                    k = self._bwd_kernel = _kernel(xp, spec)
                res = k(*inputs, *out_grads)
                res = list(res) if isinstance(res, tuple) else [res]
            grads = []
            for x, p in zip(inputs, positions):
                if p is None:
                    grads.append(xp.zeros(x.shape, dtype=x.dtype))
                else:
                    g = res[p]
                    grads.append(g if g.shape == x.shape else reduce_to(g, x.shape))
            return grads
        return self._backward_members(oc, inputs, out_grads)

    def _backward_members(self, oc, inputs, out_grads):
        xp = oc.xp
        vals = self._run_members(oc, inputs, None)
        acc: dict = {}
        for j, k in self._out_member.items():
            acc[("t", j)] = out_grads[k]
        for j in range(len(self.group.nodes) - 1, -1, -1):
            g = acc.pop(("t", j), None)
            node = self.group.nodes[j]
            if g is None or node.op.backward is None:
                continue
            args = [vals[s] for s in self._arg_src[j]]
            gin = node.op.backward(oc, node.attrs, args, [vals[("t", j)]], [g])
            for s, gi in zip(self._arg_src[j], gin):
                if gi is None:
                    continue
                prev = acc.get(s)
                acc[s] = gi if prev is None else prev + gi
        grads = []
        for k, x in enumerate(inputs):
            g = acc.get(("in", k))
            grads.append(xp.zeros(x.shape, dtype=x.dtype) if g is None else g)
        return grads
