"""Breadth-first neighbourhood sampling of a csr graph (the kernel of MXNet 1.9's
``dgl_csr_neighbor_uniform_sample`` / ``dgl_csr_neighbor_non_uniform_sample``).

MXNet walks a queue vertex by vertex: the seeds (duplicates dropped) are hop 0; a
vertex of hop ``h < num_hops`` gets up to ``num_neighbor`` of its stored neighbours
drawn without replacement (all of them when it has no more), its sampled edges are
kept, and each sampled neighbour not seen before joins the queue at hop ``h + 1``,
until ``max_num_vertices`` vertices are collected: then the vertex being expanded
keeps all its sampled edges, no later vertex is expanded, and no more vertices join.

Here one hop (a whole BFS level) is one vectorized step, which gives exactly that
queue's result: a vertex's sampled neighbours are drawn with one random key per
stored neighbour (the ``k`` smallest keys win: uniform keys give a uniform draw
without replacement; exponential keys ``E / p`` give successive draws proportional to
``p``, what MXNet's sampling heap does), new vertices are the first occurrences, in
queue order, of unseen neighbours, and when the vertex budget runs out the level is
cut after the vertex whose neighbour filled it.  The Python loop runs once per hop.

Sampled neighbours are in stored order, except the rows a non-uniform draw picked from
(more than ``num_neighbor`` neighbours), sorted by vertex id, as MXNet 1.9 has them.
MXNet 1.9's non-uniform kernel sorts the vertex ids and the edge ids of a row
separately, pairing an edge id with the wrong neighbour; here each edge keeps its id.
"""
from __future__ import annotations

import numpy as np

from . import random_sample as rs
from .common import fail


def host(a) -> np.ndarray:
    """``a`` as a NumPy array (CuPy arrays are copied to the host)."""
    get = getattr(a, "get", None)
    return get() if callable(get) and not isinstance(a, np.ndarray) else np.asarray(a)


def _segments(starts: np.ndarray, lens: np.ndarray):
    """For rows ``starts[i] : starts[i] + lens[i]``: (row of each entry, position)."""
    owner = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
    offset = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens,
                                                                     lens)
    return owner, np.repeat(starts, lens) + offset


def _draw(rng, indices, owner, pos, prob, k: int):
    """Indices into ``pos`` of the sampled entries, grouped by owner, each group in
    stored order (uniform) or by neighbour id (weighted)."""
    if owner.size == 0:
        return np.zeros(0, dtype=np.int64)
    u = host(rs.uniform01(rng, (owner.size,)))
    if prob is None:
        keys = u
    else:
        with np.errstate(divide="ignore"):
            keys = -np.log1p(-u) / prob[indices[pos]]  # Exp(1) / weight: the race
    order = np.lexsort((keys, owner))
    first = np.searchsorted(owner[order], owner[order], side="left")
    chosen = order[np.arange(order.size) - first < k]
    tie = pos[chosen]
    if prob is not None:  # rows actually drawn from are sorted by neighbour id
        drawn = np.bincount(owner)[owner[chosen]] > k
        tie = np.where(drawn, indices[tie], tie)
    return chosen[np.lexsort((tie, owner[chosen]))]


def sample_neighbors(rng, indptr, indices, values, seeds, prob, num_hops: int,
                     num_neighbor: int, max_num_vertices: int):
    """One subgraph sample.

    Returns
    -------
    ids : ndarray
        The sampled vertices, sorted.
    layer : ndarray
        The hop at which each of ``ids`` was reached.
    (indptr, columns, edge ids) : ndarrays
        The sampled edges as csr rows over ``ids`` (``max_num_vertices + 1`` row
        pointers), columns being vertex ids of the graph.
    """
    n_vertices = indptr.size - 1
    if seeds.size and (seeds.min() < 0 or seeds.max() >= n_vertices):
        fail("dgl_csr_neighbor_sample", f"seed ids must be in [0, {n_vertices})", seeds.shape)
    _, first = np.unique(seeds, return_index=True)
    frontier = seeds[np.sort(first)]
    seen = np.zeros(n_vertices, dtype=bool)
    seen[frontier] = True
    ids, layers = [frontier], [np.zeros(frontier.size, dtype=np.int64)]
    edge_src, edge_pos = [], []
    count = frontier.size
    for hop in range(num_hops):
        if frontier.size == 0 or count >= max_num_vertices:
            break
        starts = indptr[frontier]
        owner, pos = _segments(starts, indptr[frontier + 1] - starts)
        pick = _draw(rng, indices, owner, pos, prob, num_neighbor)
        owner, pos = owner[pick], pos[pick]
        cols = indices[pos]
        fresh = np.nonzero(~seen[cols])[0]
        _, first = np.unique(cols[fresh], return_index=True)
        new_at = np.sort(fresh[first])
        room = max_num_vertices - count
        if new_at.size >= room:  # the budget runs out inside this level
            new_at = new_at[:room]
            keep = owner <= owner[new_at[-1]]
            owner, pos = owner[keep], pos[keep]
        new = indices[pos[new_at]] if new_at.size else np.zeros(0, dtype=np.int64)
        edge_src.append(frontier[owner])
        edge_pos.append(pos)
        seen[new] = True
        count += new.size
        ids.append(new)
        layers.append(np.full(new.size, hop + 1, dtype=np.int64))
        frontier = new
    ids, layers = np.concatenate(ids), np.concatenate(layers)
    order = np.argsort(ids, kind="stable")
    ids, layers = ids[order], layers[order]
    src = np.concatenate(edge_src) if edge_src else np.zeros(0, dtype=np.int64)
    pos = np.concatenate(edge_pos) if edge_pos else np.zeros(0, dtype=np.int64)
    rows = np.searchsorted(ids, src)
    by_row = np.argsort(rows, kind="stable")
    rows, pos = rows[by_row], pos[by_row]
    ptr = np.zeros(max_num_vertices + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=max_num_vertices)[:max_num_vertices], out=ptr[1:])
    return ids, layers, (ptr, indices[pos].astype(np.int64), values[pos])
