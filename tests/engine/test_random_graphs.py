"""A property test of the CachedOp: random graphs give what imperative execution gives.

Each seed builds one random DAG over three input variables: fan-out (a value read by
several operators), diamonds, an input or a value read twice by one operator (``x * x``),
several heads, in-place-capable elementwise operators, and a two-output operator
(``SliceChannel``, joined again by ``Concat``).  The same program runs imperatively on
``nd`` (the reference, under autograd) and as a CachedOp, with static and dynamic
allocation, recorded (outputs and input gradients) and unrecorded, twice each, with the
engine poisoning every buffer it frees (``debug``): a buffer freed or reused while a
reader still needs it shows as NaN or wrong numbers.  A failure names its seed.
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd

SHAPE = (3, 4)
SEEDS = range(300)

# (name, function of the namespace F (mx.nd or mx.sym) and its inputs); a failure prints
# the program by these names
UNARY = [
    ("relu", lambda F, x: F.relu(x)),
    ("tanh", lambda F, x: F.tanh(x)),
    ("sigmoid", lambda F, x: F.sigmoid(x)),
    ("abs", lambda F, x: F.abs(x)),
    ("negative", lambda F, x: F.negative(x)),
    ("square_tanh", lambda F, x: F.square(F.tanh(x))),
    ("scale_shift", lambda F, x: x * 0.5 + 1.0),
    ("copy", lambda F, x: F.identity(x)),
    ("split_join", lambda F, x: F.concat(*reversed(F.split(x, num_outputs=2, axis=1)), dim=1)),
]
BINARY = [
    ("add", lambda F, x, y: x + y),
    ("sub", lambda F, x, y: x - y),
    ("mul", lambda F, x, y: x * y),
    ("maximum", lambda F, x, y: F.broadcast_maximum(x, y)),
    ("add_n", lambda F, x, y: F.add_n(x, y, x)),
]


def random_program(seed: int) -> tuple[list, list]:
    """Steps ``(name, function, input indices)`` over values 0-2 (the inputs) and the
    heads."""
    rng = np.random.default_rng(seed)
    steps, count = [], 3
    for _ in range(int(rng.integers(3, 13))):
        if rng.random() < 0.5:
            name, fn = UNARY[rng.integers(len(UNARY))]
            args = [int(rng.integers(count))]
        else:
            name, fn = BINARY[rng.integers(len(BINARY))]
            first = int(rng.integers(count))
            # a third of the binary steps read one value twice (x * x)
            args = [first, first if rng.random() < 0.33 else int(rng.integers(count))]
        steps.append((name, fn, args))
        count += 1
    made = list(range(3, count))
    heads = [made[-1]] + [int(v) for v in rng.choice(made[:-1], size=min(len(made) - 1,
                                                                           rng.integers(0, 3)),
                                                     replace=False)]
    return steps, heads


def run_program(F, inputs, steps, heads):
    values = list(inputs)
    for _, fn, args in steps:
        values.append(fn(F, *(values[i] for i in args)))
    return [values[h] for h in heads]


def describe(steps, heads) -> str:
    lines = [f"v{3 + k} = {name}({', '.join(f'v{i}' for i in args)})"
             for k, (name, _, args) in enumerate(steps)]
    return "; ".join(lines) + f"; heads {', '.join(f'v{h}' for h in heads)}"


def _inputs(seed):
    rng = np.random.default_rng(10_000 + seed)
    return [rng.uniform(-2, 2, SHAPE).astype(np.float32) for _ in range(3)]


def _reference(data, steps, heads, head_grads):
    arrays = [mx.nd.array(x) for x in data]
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        outs = run_program(mx.nd, arrays, steps, heads)
    autograd.backward(outs, [mx.nd.array(h) for h in head_grads])
    return [o.asnumpy() for o in outs], [a.grad.asnumpy() for a in arrays]


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_random_graph_matches_imperative(seed):
    steps, heads = random_program(seed)
    program = describe(steps, heads)
    data = _inputs(seed)
    rng = np.random.default_rng(20_000 + seed)
    head_grads = [rng.uniform(-1, 1, SHAPE).astype(np.float32) for _ in heads]
    want_outs, want_grads = _reference(data, steps, heads, head_grads)

    names = ["a", "b", "c"]
    graph = mx.sym.Group(run_program(mx.sym, [mx.sym.var(n) for n in names], steps, heads))
    # only the inputs the heads depend on are graph inputs, in the graph's order
    used = [names.index(n) for n in mx.nd.CachedOp(graph).list_inputs()]
    for static in (False, True):
        op = mx.nd.CachedOp(graph, {"static_alloc": static, "debug": True})
        for _ in range(2):  # a second call reuses (static) or re-plans its buffers
            arrays = [mx.nd.array(data[i]) for i in used]
            got = op(*arrays)
            got = got if isinstance(got, list) else [got]
            for g, w in zip(got, want_outs):
                np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6,
                                           err_msg=f"seed {seed}, static_alloc={static}, "
                                                   f"unrecorded: {program}")
            for a in arrays:
                a.attach_grad()
            with autograd.record():
                got = op(*arrays)
            got = got if isinstance(got, list) else [got]
            autograd.backward(got, [mx.nd.array(h) for h in head_grads])
            where = f"seed {seed}, static_alloc={static}, recorded: {program}"
            for g, w in zip(got, want_outs):
                np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6,
                                           err_msg=where)
            for k, a in zip(used, arrays):
                np.testing.assert_allclose(a.grad.asnumpy(), want_grads[k], rtol=1e-5,
                                           atol=1e-5, err_msg=f"{where}, gradient {k}")
