"""MXNet 1.9's graph operators for DGL, on csr graphs whose stored values are edge ids.

* ``_contrib_edge_id(data, u, v)``: the stored value at ``(u[i], v[i])``, or -1;
* ``_contrib_dgl_adjacency(data)``: the same structure with float32 ones;
* ``_contrib_dgl_subgraph(graph, v0, v1, ..., return_mapping)``: the subgraph induced
  by each sorted vertex list, with new edge ids ``0..nnz-1`` (and, with
  ``return_mapping``, the same structure holding the original edge ids);
* ``_contrib_dgl_csr_neighbor_uniform_sample`` /
  ``_contrib_dgl_csr_neighbor_non_uniform_sample``: breadth-first neighbourhood
  sampling from each seed array (:mod:`._dgl_sampling`);
* ``_contrib_dgl_graph_compact``: a sampled subgraph renumbered to its own vertices.

MXNet runs these on csr inputs only (CPU kernels).  Here a dense graph is taken as
the csr array of its nonzeros and dense results are returned (the storage fallback
of every gluonlite operator), which the op harness uses.  Everything is computed on
the host with vectorized NumPy; results go back to the input's device.
"""
from __future__ import annotations

import numpy as np

from ._dgl_sampling import host, sample_neighbors
from .attrs import Attr
from .common import fail
from .registry import OpDef, register
from .sparse_storage import IDX_DTYPE, CSRStorage, from_dense, to_dense

_I64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)


def _as_csr(op: str, xp, a) -> CSRStorage:
    """``a`` as a csr record (a dense array: its nonzeros); any other storage fails."""
    if getattr(a, "stype", "default") == "csr":
        return a
    if getattr(a, "stype", "default") != "default":
        fail(op, f"the graph must be a csr array, got storage '{a.stype}'", a.shape)
    if a.ndim != 2:
        fail(op, "the graph must be a 2-D csr array", a.shape)
    return from_dense(xp, a, "csr")


def _host_csr(st: CSRStorage):
    return host(st.values), host(st.indptr).astype(np.int64), host(st.indices).astype(np.int64)


def _to_device(xp, arrays):
    out = []
    for a in arrays:
        if isinstance(a, CSRStorage):
            out.append(CSRStorage(xp.asarray(a.values), xp.asarray(a.indices),
                                  xp.asarray(a.indptr), a.shape))
        else:
            out.append(xp.asarray(a))
    return out


def _dense_fallback(sparse_fn):
    """The dense ``forward``: run the csr kernel, densify its csr results."""
    def forward(oc, attrs, inputs, out):
        res = sparse_fn(oc, attrs, inputs, None)
        res = [to_dense(oc.xp, r) if isinstance(r, CSRStorage) else r for r in res]
        if out is not None:
            for buf, r in zip(out, res):
                buf[...] = r
            return out
        return res
    return forward


def _rows_of(indptr) -> np.ndarray:
    return np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))


# ----------------------------------------------------------------------------- edge_id
_EDGE_ID = "_contrib_edge_id"


def _edge_id_sparse(oc, attrs, inputs, out):
    xp = oc.xp
    g = _as_csr(_EDGE_ID, xp, inputs[0])
    u, v = (host(a).astype(np.int64) for a in inputs[1:])
    values, indptr, indices = _host_csr(g)
    n_rows, n_cols = g.shape
    if u.size and (u.min() < 0 or u.max() >= n_rows or v.min() < 0 or v.max() >= n_cols):
        fail(_EDGE_ID, f"vertex ids must lie in the graph of shape {g.shape}", u.shape)
    # one key per stored entry; the first stored entry of a (row, column) pair wins
    keys = _rows_of(indptr) * n_cols + indices
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    query = u * n_cols + v
    at = np.minimum(np.searchsorted(sorted_keys, query), max(sorted_keys.size - 1, 0))
    found = sorted_keys.size > 0
    hit = (sorted_keys[at] == query) if found else np.zeros(query.shape, bool)
    res = np.full(query.shape, -1, dtype=values.dtype)
    if found:
        res[hit] = values[order[at[hit]]]
    return [xp.asarray(res)]


def _edge_id_infer(attrs, in_shapes):
    g, u, v = in_shapes
    s = u if u is not None else v
    for x in (u, v):
        if x is not None and len(x) != 1:
            fail(_EDGE_ID, "u and v must be 1-D", *in_shapes)
    if u is not None and v is not None and u[0] and v[0] and u[0] != v[0]:
        fail(_EDGE_ID, "u and v must have one length", u, v)
    return [g, s, s], [s]


register(OpDef(
    _EDGE_ID, _dense_fallback(_edge_id_sparse), inputs=("data", "u", "v"),
    infer_shape=_edge_id_infer,
    infer_type=lambda op, attrs, dts: (dts, [dts[0]]),
    differentiable=False, sparse_forward=_edge_id_sparse,
    doc="``out[i] = data[u[i], v[i]]`` where the csr graph stores that edge, else -1."))


# ----------------------------------------------------------------------------- dgl_adjacency
_ADJ = "_contrib_dgl_adjacency"


def _check_int64(op: str, dtype, what: str) -> None:
    if np.dtype(dtype) != _I64:
        fail(op, f"{what} must be int64 (edge or vertex ids), got {np.dtype(dtype).name}")


def _adjacency_sparse(oc, attrs, inputs, out):
    xp = oc.xp
    g = _as_csr(_ADJ, xp, inputs[0])
    _check_int64(_ADJ, g.dtype, "the graph")
    ones = xp.ones(g.indices.shape, dtype=_F32)
    return [CSRStorage(ones, g.indices.copy(), g.indptr.copy(), g.shape)]


register(OpDef(
    _ADJ, _dense_fallback(_adjacency_sparse), infer_shape=lambda attrs, s: (s, s),
    infer_type=lambda op, attrs, dts: (dts, [_F32]), differentiable=False,
    sparse_forward=_adjacency_sparse,
    doc="The csr graph's structure with float32 ones as values (an adjacency matrix)."))


# ----------------------------------------------------------------------------- dgl_subgraph
_SUB = "_contrib_dgl_subgraph"


def _induced(op: str, values, indptr, indices, n: int, vertices):
    """``(indptr, columns, original edge ids)`` of the subgraph induced by the sorted
    ``vertices`` of an ``n``-vertex graph."""
    if vertices.size and (vertices.min() < 0 or vertices.max() >= n):
        fail(op, f"vertex ids must be in [0, {n}) (a graph of {n} vertices)", vertices.shape)
    if np.any(np.diff(vertices) < 0):
        fail(op, "The input vertex list has to be sorted", vertices.shape)
    starts, ends = indptr[vertices], indptr[vertices + 1]
    lens = ends - starts
    owner = np.repeat(np.arange(vertices.size, dtype=np.int64), lens)
    pos = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    pos += np.repeat(starts, lens)
    cols = indices[pos]
    new_col = np.searchsorted(vertices, cols)
    inside = new_col < vertices.size
    inside[inside] = vertices[new_col[inside]] == cols[inside]
    owner, new_col, eids = owner[inside], new_col[inside], values[pos[inside]]
    new_ptr = np.zeros(vertices.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=vertices.size), out=new_ptr[1:])
    return new_ptr, new_col, eids


def _subgraph_sparse(oc, attrs, inputs, out):
    xp = oc.xp
    g = _as_csr(_SUB, xp, inputs[0])
    values, indptr, indices = _host_csr(g)
    graphs, mappings = [], []
    for varr in inputs[1:]:
        _check_int64(_SUB, varr.dtype, "the vertex arrays")
        vertices = host(varr).astype(np.int64)
        ptr, cols, eids = _induced(_SUB, values, indptr, indices, g.shape[0], vertices)
        shape = (vertices.size, vertices.size)
        new_ids = np.arange(cols.size, dtype=values.dtype)
        graphs.append(CSRStorage(new_ids, cols, ptr, shape))
        mappings.append(CSRStorage(eids.astype(values.dtype), cols.copy(), ptr.copy(), shape))
    return _to_device(xp, graphs + (mappings if attrs.return_mapping else []))


def _subgraph_infer(attrs, in_shapes):
    g = in_shapes[0]
    if g is not None and len(g) != 2:
        fail(_SUB, "the graph must be 2-D", g)
    outs = []
    for s in in_shapes[1:]:
        if s is not None and len(s) != 1:
            fail(_SUB, "vertex arrays must be 1-D", s)
        outs.append(None if s is None else (s[0], s[0]))
    return in_shapes, outs * (2 if attrs.return_mapping else 1)


def _subgraph_outputs(attrs) -> int:
    return (attrs.num_args - 1) * (2 if attrs.return_mapping else 1)


register(OpDef(
    _SUB, _dense_fallback(_subgraph_sparse),
    attrs={"num_args": Attr("int"), "return_mapping": Attr("bool")},
    inputs=lambda attrs: ["graph"] + [f"varray{i}" for i in range(attrs.num_args - 1)],
    key_var_num_args="num_args", num_outputs=_subgraph_outputs,
    infer_shape=_subgraph_infer,
    infer_type=lambda op, attrs, dts: (dts, [dts[0]] * _subgraph_outputs(attrs)),
    differentiable=False, sparse_forward=_subgraph_sparse,
    doc="Subgraphs induced by sorted int64 vertex lists of a csr graph of edge ids."))


# ----------------------------------------------------------------------------- samplers
_UNIFORM = "_contrib_dgl_csr_neighbor_uniform_sample"
_NON_UNIFORM = "_contrib_dgl_csr_neighbor_non_uniform_sample"
_SAMPLE_ATTRS = {"num_args": Attr("int"), "num_hops": Attr("int", 1),
                 "num_neighbor": Attr("int", 2), "max_num_vertices": Attr("int", 100)}


def _sampler(op: str, weighted: bool):
    first_seed = 2 if weighted else 1

    def kernel(oc, attrs, inputs, out):
        xp = oc.xp
        g = _as_csr(op, xp, inputs[0])
        if g.shape[0] != g.shape[1]:
            fail(op, "the graph must be a square csr array", g.shape)
        _check_int64(op, g.dtype, "the graph")
        values, indptr, indices = _host_csr(g)
        prob = host(inputs[1]).astype(np.float64) if weighted else None
        if attrs.num_hops < 0 or attrs.num_neighbor < 0 or attrs.max_num_vertices < 1:
            fail(op, "num_hops and num_neighbor must be >= 0, max_num_vertices >= 1")
        sets = [[] for _ in range(4 if weighted else 3)]
        for seeds in inputs[first_seed:]:
            if seeds.ndim != 1:
                fail(op, "seed arrays must be 1-D", seeds.shape)
            if seeds.shape[0] > attrs.max_num_vertices:
                fail(op, f"{seeds.shape[0]} seeds but max_num_vertices = "
                     f"{attrs.max_num_vertices}", seeds.shape)
            ids, layer, (ptr, cols, eids) = sample_neighbors(
                oc.rng, indptr, indices, values, host(seeds).astype(np.int64), prob,
                attrs.num_hops, attrs.num_neighbor, attrs.max_num_vertices)
            n, cap = ids.size, attrs.max_num_vertices
            sample_id = np.zeros(cap + 1, dtype=seeds.dtype)
            sample_id[:n] = ids
            sample_id[cap] = n
            layers = np.zeros(cap, dtype=seeds.dtype)
            layers[:n] = layer
            sets[0].append(sample_id)
            sets[1].append(CSRStorage(eids.astype(values.dtype), cols, ptr, (cap, g.shape[1])))
            if weighted:
                sub_prob = np.zeros(cap, dtype=inputs[1].dtype)
                sub_prob[:n] = prob[ids]
                sets[2].append(sub_prob)
            sets[-1].append(layers)
        return _to_device(xp, [a for s in sets for a in s])
    return kernel


def _sampler_infer(op: str, weighted: bool):
    first_seed = 2 if weighted else 1

    def infer(attrs, in_shapes):
        g = in_shapes[0]
        if g is not None and (len(g) != 2 or (g[0] and g[1] and g[0] != g[1])):
            fail(op, "the graph must be a square 2-D csr array", g)
        for s in in_shapes[1:]:
            if s is not None and len(s) != 1:
                fail(op, "probability and seed arrays must be 1-D", s)
        n = len(in_shapes) - first_seed
        cap = attrs.max_num_vertices
        csr = None if g is None else (cap, g[1])
        outs = [(cap + 1,)] * n + [csr] * n + ([(cap,)] * n if weighted else []) + [(cap,)] * n
        return in_shapes, outs
    return infer


def _sampler_type(weighted: bool):
    first_seed = 2 if weighted else 1

    def infer(op, attrs, dts):
        n = len(dts) - first_seed
        seed = dts[first_seed] if n else None
        outs = [seed] * n + [dts[0]] * n + ([dts[1]] * n if weighted else []) + [seed] * n
        return dts, outs
    return infer


for _name, _weighted in ((_UNIFORM, False), (_NON_UNIFORM, True)):
    _sets = 4 if _weighted else 3
    _first = 2 if _weighted else 1
    _kernel = _sampler(_name, _weighted)
    register(OpDef(
        _name, _dense_fallback(_kernel), attrs=dict(_SAMPLE_ATTRS),
        inputs=(lambda first, weighted: lambda attrs: (
            ["csr_matrix"] + (["probability"] if weighted else [])
            + [f"seed_arrays{i}" for i in range(attrs.num_args - first)]))(_first, _weighted),
        key_var_num_args="num_args",
        num_outputs=(lambda sets, first: lambda attrs: sets * (attrs.num_args - first))(
            _sets, _first),
        infer_shape=_sampler_infer(_name, _weighted), infer_type=_sampler_type(_weighted),
        random=True, differentiable=False, sparse_forward=_kernel,
        doc=("Breadth-first neighbourhood samples of a csr graph from each seed array "
             + ("(neighbours drawn with probability proportional to ``probability``): "
                if _weighted else "(neighbours drawn uniformly): ")
             + "vertex ids (the last entry counts them), the sampled edges as a csr "
             + ("array, the vertices' probabilities " if _weighted else "array ")
             + "and the hop at which each vertex was reached.")))


# ----------------------------------------------------------------------------- compact
_COMPACT = "_contrib_dgl_graph_compact"


def _compact_sparse(oc, attrs, inputs, out):
    xp = oc.xp
    n = attrs.num_args // 2
    if len(attrs.graph_sizes) != n:
        fail(_COMPACT, f"graph_sizes has {len(attrs.graph_sizes)} entries for {n} graphs")
    graphs, mappings = [], []
    for i in range(n):
        g = _as_csr(_COMPACT, xp, inputs[i])
        values, indptr, indices = _host_csr(g)
        vids = host(inputs[n + i]).astype(np.int64)
        size = int(attrs.graph_sizes[i])
        if vids.size != indptr.size or vids[-1] != size or size > g.shape[0]:
            fail(_COMPACT, f"graph {i}: the vertex array must be a sampler's (one id per row "
                 f"and the vertex count {size} last)", vids.shape, g.shape)
        ids = vids[:size]
        order = np.argsort(ids, kind="stable")
        at = np.minimum(np.searchsorted(ids[order], indices), max(size - 1, 0))
        if indices.size and (size == 0 or np.any(ids[order][at] != indices)):
            fail(_COMPACT, f"graph {i}: an edge leads to a vertex that is not in the "
                 f"subgraph's {size} vertices", g.shape)
        cols = order[at].astype(np.int64)
        ptr = indptr[:size + 1].copy()
        graphs.append(CSRStorage(np.arange(cols.size, dtype=np.int64), cols, ptr, (size, size)))
        mappings.append(CSRStorage(values.astype(np.int64), cols.copy(), ptr.copy(),
                                   (size, size)))
    return _to_device(xp, graphs + (mappings if attrs.return_mapping else []))


def _compact_outputs(attrs) -> int:
    return (attrs.num_args // 2) * (2 if attrs.return_mapping else 1)


def _compact_infer(attrs, in_shapes):
    outs = [(int(s), int(s)) for s in attrs.graph_sizes]
    return in_shapes, outs * (2 if attrs.return_mapping else 1)


register(OpDef(
    _COMPACT, _dense_fallback(_compact_sparse),
    attrs={"num_args": Attr("int"), "return_mapping": Attr("bool"),
           "graph_sizes": Attr("shape")},
    inputs=lambda attrs: ([f"graph{i}" for i in range(attrs.num_args // 2)]
                          + [f"varray{i}" for i in range(attrs.num_args // 2)]),
    key_var_num_args="num_args", num_outputs=_compact_outputs, infer_shape=_compact_infer,
    infer_type=lambda op, attrs, dts: (dts, [IDX_DTYPE] * _compact_outputs(attrs)),
    differentiable=False, sparse_forward=_compact_sparse,
    doc="Sampled subgraphs renumbered to their own vertices (square csr arrays with new "
        "edge ids; with ``return_mapping`` also the original edge ids)."))
