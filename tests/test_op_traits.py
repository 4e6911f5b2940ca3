"""What the engine, the symbol layer and Gluon know about operators is declared on
their definitions (``OpDef`` traits), never inferred from op names or by probing.

* a static check: no ``op.name == ...`` / ``op.name in ...`` and no literal list of
  registered operator names in ``gluonlite/`` outside ``gluonlite/ops/`` (except the
  explicit, commented allow-list below, which may only shrink);
* every operator declared ``elementwise`` maps one shape to all its inputs and
  outputs, on 3-D and 4-D shapes, in shape inference and in forward;
* the bug the shape probe caused: a 4-D-preserving ``Reshape`` is no elementwise op.
"""
from __future__ import annotations

import ast
import pathlib
import re
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops.registry import OpContext, all_ops, op_names

from .ops.samples import all_samples

PACKAGE = pathlib.Path(mx.__file__).resolve().parent

# Files whose literal collections of registered op names are allowed, and why.  Entries
# marked REMAINING hold operator knowledge that should become a trait; the list may only
# shrink (a test fails when an entry is no longer needed).
ALLOWED_NAME_LISTS = {
    # Python operators -> the operator each one calls (names to call, not facts about them)
    "ndarray/arith.py": "operator dispatch",
    "symbol/arith.py": "operator dispatch",
    # MXNet's fluent methods: NDArray method name -> the operator of that name
    "ndarray/fluent.py": "public method names",
    # activation types and RNN modes (``relu``, ``tanh``) that happen to be op names too
    "gluon/rnn/rnn_cell.py": "activation types",
    "gluon/rnn/rnn_layer.py": "RNN modes",
}

# Comparisons of an op-name-like value with a registered op name that are allowed
ALLOWED_NAME_COMPARES = {
    # the Gluon layer's own ``op_name`` argument (which operator it calls)
    "gluon/nn/conv_layers.py": "layer argument",
}

_OPISH = re.compile(r"(^|[^\w])(op|op_name|opname|_op_name|_op)(\.name)?$|\.op\.name$")


def _registered() -> set:
    return set(op_names())


def _is_op_name_attr(node: ast.AST) -> bool:
    """``op.name``, ``node.op.name``, ``self._op.name``, and the same read with
    ``getattr(op, "name", ...)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "getattr" and len(node.args) >= 2 and \
            isinstance(node.args[1], ast.Constant) and node.args[1].value == "name":
        node = ast.Attribute(value=node.args[0], attr="name")
    if not isinstance(node, ast.Attribute) or node.attr != "name":
        return False
    v = node.value
    return (isinstance(v, ast.Name) and v.id in ("op", "opdef", "op_def")) or \
        (isinstance(v, ast.Attribute) and v.attr in ("op", "_op"))


def _op_name_vars(tree: ast.AST) -> set:
    """Names assigned from an operator's name anywhere in the module (``name = op.name``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_op_name_attr(node.value):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def _is_all(node: ast.AST, parents: dict) -> bool:
    p = parents.get(node)
    return isinstance(p, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                             for t in p.targets)


def _scan(path: pathlib.Path, names: set):
    """(kind, line, text) for every op-name comparison and op-name list in one file."""
    tree = ast.parse(path.read_text())
    parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    op_vars = _op_name_vars(tree)
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left] + node.comparators
            if any(_is_op_name_attr(s) for s in sides):
                hits.append(("compare", node.lineno, ast.unparse(node)))
                continue
            consts = [s for s in sides if isinstance(s, ast.Constant) and s.value in names]
            others = [s for s in sides if not isinstance(s, ast.Constant)]
            if consts and any(_OPISH.search(ast.unparse(s)) or
                              (isinstance(s, ast.Name) and s.id in op_vars) for s in others):
                hits.append(("compare", node.lineno, ast.unparse(node)))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            strs = [e.value for e in node.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strs) >= 2 and all(s in names for s in strs) and not _is_all(node, parents):
                hits.append(("list", node.lineno, ast.unparse(node)[:80]))
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if len(keys) >= 2 and all(k in names for k in keys):
                hits.append(("list", node.lineno, ast.unparse(node)[:80]))
    return hits


def _package_hits() -> dict:
    names = _registered()
    found: dict = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("ops/"):
            continue
        for kind, line, text in _scan(path, names):
            found.setdefault(rel, []).append((kind, line, text))
    return found


def test_no_op_name_logic_outside_ops():
    bad = []
    for rel, hits in _package_hits().items():
        for kind, line, text in hits:
            allowed = ALLOWED_NAME_LISTS if kind == "list" else ALLOWED_NAME_COMPARES
            if rel not in allowed:
                bad.append(f"{rel}:{line}: {text}")
    assert not bad, ("operator names outside gluonlite/ops/ (declare a trait on the "
                     "OpDef instead):\n" + "\n".join(bad))


def test_allow_lists_only_shrink():
    hits = _package_hits()
    stale = [rel for rel in ALLOWED_NAME_LISTS
             if not any(k == "list" for k, _, _ in hits.get(rel, ()))]
    stale += [rel for rel in ALLOWED_NAME_COMPARES
              if not any(k == "compare" for k, _, _ in hits.get(rel, ()))]
    assert not stale, f"allow-list entries no longer needed, remove them: {stale}"


def test_scanner_catches_what_it_should(tmp_path):
    src = ("def f(op, node):\n"
           "    if op.name == 'Activation':\n        pass\n"
           "    if node.op.name in _TABLE:\n        pass\n"
           "    name = node.op.name\n"
           "    if name == 'Pooling':\n        pass\n"
           "    T = ('elemwise_add', 'broadcast_add')\n"
           "    U = {'BatchNorm': 1, 'LeakyReLU': 2}\n"
           "    ok = ('float16', 'relu')\n"
           "    if os.name == 'nt':\n        pass\n"
           "    if getattr(node.op, 'name', None) != 'Convolution':\n        pass\n"
           "    if getattr(op, 'name', None) in _TABLE:\n        pass\n"
           "    if getattr(d, 'name', None) == 'data':\n        pass\n")
    path = tmp_path / "m.py"
    path.write_text(src)
    lines = sorted(line for _, line, _ in _scan(path, _registered()))
    assert lines == [2, 4, 7, 9, 10, 14, 16]


# -- elementwise ------------------------------------------------------------------------
def _elementwise_cases():
    samples = all_samples()
    cases = []
    for op in all_ops():
        if op.elementwise is False:
            continue
        attr_sets = [s.attrs for s in samples.get(op.name, ())]
        try:
            op.parse_attrs({})
            attr_sets.append({})
        except mx.base.MXNetError:
            pass  # required attributes: the samples give them
        seen = set()
        for attrs in attr_sets:
            parsed = op.parse_attrs(attrs)
            key = repr(sorted(parsed.as_dict().items()))
            if key in seen or not op.is_elementwise(parsed):
                continue
            seen.add(key)
            cases.append(pytest.param(op, attrs, id=f"{op.name}-{len(seen)}"))
    return cases


_CASES = _elementwise_cases()


def test_elementwise_ops_are_declared():
    declared = {p.values[0].name for p in _CASES}
    # a few that must be there, from different families and helpers
    assert {"relu", "exp", "elemwise_add", "_mul_scalar", "Activation", "LeakyReLU", "clip",
            "Dropout", "Cast", "zeros_like", "_random_uniform_like"} <= declared
    for name in ("Reshape", "squeeze", "SwapAxis", "sort", "where", "broadcast_add",
                 "FullyConnected"):
        assert not mx.ops.registry.get_op(name).elementwise, name
    # softmax keeps one shape unless it takes a length input of another shape
    softmax = mx.ops.registry.get_op("softmax")
    assert softmax.is_elementwise(softmax.parse_attrs({}))
    assert not softmax.is_elementwise(softmax.parse_attrs({"use_length": True}))


@pytest.mark.parametrize("op,attrs", _CASES)
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5)])
def test_elementwise_maps_one_shape(op, attrs, shape):
    parsed = op.parse_attrs(attrs)
    n_in = op.num_inputs(parsed)
    n_out = op.num_outputs(parsed)
    for given in range(n_in):  # from any one input
        known = [None] * n_in
        known[given] = shape
        ins, outs = op.infer_shape(parsed, known)
        assert [tuple(s) for s in ins] == [shape] * n_in
        assert [tuple(s) for s in outs[:n_out]] == [shape] * n_out
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(0.2, 0.8, size=shape) for _ in range(n_in)]
    first = all_samples().get(op.name)
    if first and first[0].inputs[0].dtype.kind in "iub":  # integer-only operators
        inputs = [rng.integers(1, 9, size=shape).astype(first[0].inputs[0].dtype)
                  for _ in range(n_in)]
    oc = OpContext(np, True, mx.cpu())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        outs = op.forward(oc, parsed, inputs, None)
    assert [tuple(o.shape) for o in outs[:n_out]] == [shape] * n_out


# -- the probe's bug -------------------------------------------------------------------------
def test_reshape_keeping_4d_is_not_elementwise():
    x = mx.sym.var("x")
    # MXNet 1.9.1: ([(2, 3, 20)], [(2, 3, 20, 1)], [])
    args, outs, aux = mx.sym.reshape(x, shape=(0, 0, 0, -1)).infer_shape(x=(2, 3, 20))
    assert args == [(2, 3, 20)] and outs == [(2, 3, 20, 1)] and aux == []


def test_where_with_1d_condition_infers():
    c, x, y = mx.sym.var("c"), mx.sym.var("x"), mx.sym.var("y")
    # MXNet 1.9.1: ([(2,), (2, 3), (2, 3)], [(2, 3)], [])
    args, outs, _ = mx.sym.where(c, x, y).infer_shape(c=(2,), x=(2, 3), y=(2, 3))
    assert args == [(2,), (2, 3), (2, 3)] and outs == [(2, 3)]


def test_elementwise_passes_output_shape_back():
    x, z = mx.sym.var("x"), mx.sym.var("z")
    args, _, _ = (mx.sym.relu(x) + z).infer_shape_partial(z=(2, 3, 4))
    assert args == [(2, 3, 4), (2, 3, 4)]


# -- other declared traits ----------------------------------------------------------------
def test_batchnorm_declares_input_init_and_float32_inputs():
    bn = mx.sym.BatchNorm(mx.sym.var("data"), name="bn")
    attrs = bn.attr_dict()
    assert attrs["bn_moving_mean"]["__init__"] == '["zero", {}]'
    assert attrs["bn_moving_var"]["__init__"] == '["one", {}]'
    lr = mx.sym.LeakyReLU(mx.sym.var("data"), act_type="prelu", name="pr")
    assert lr.attr_dict()["pr_gamma"]["__init__"] == '["Constant", {"value": 0.25}]'
    op = mx.ops.registry.get_op("BatchNorm")
    assert set(op.float32_inputs) == {"gamma", "beta", "moving_mean", "moving_var"}
