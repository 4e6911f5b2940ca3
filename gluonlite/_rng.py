"""Random streams per device, seeded by ``mx.random.seed``.

The CPU stream (every CPU context shares it, as in MXNet) is a
:class:`MXNetCPUStream`: MXNet 1.9.1's own streams for its uniform and normal samplers
and Dropout, so that a seeded run draws MXNet's numbers, and a ``numpy.random.Generator``
for every other distribution.  Before any seed it is seed 0's stream, as MXNet's is at
start-up.  GPU contexts use CuPy's ``cupy.random.RandomState`` for that device.  Seeding
replaces the stream, so a run after the same seed draws the same numbers on the same
device.
"""
from __future__ import annotations

import functools

import numpy as np

_generators: dict = {}
_base_seed: int | None = None


def generator(ctx):
    """The random stream of ``ctx``, created on first use."""
    key = (ctx.device_typeid == 2, ctx.device_id if ctx.device_typeid == 2 else 0)
    gen = _generators.get(key)
    if gen is None:
        gen = _make(key, None if _base_seed is None else _base_seed + key[1] * 7919 * key[0])
        _generators[key] = gen
    return gen


def _make(key, seed):
    if key[0]:
        from . import backend
        cp = backend.cupy_module()
        with cp.cuda.Device(key[1]):
            return cp.random.RandomState(seed)
    return MXNetCPUStream(0 if seed is None else seed)


def seed(seed_state: int, ctx=None) -> None:
    """Reseed the stream of ``ctx``, or of every device when ``ctx`` is ``None``/``'all'``."""
    global _base_seed
    # MXNet passes the seed as a C int, so any int works and a negative seed is the
    # same as its 32-bit two's complement (NumPy and CuPy take non-negative seeds only)
    seed_state = int(seed_state) & 0xFFFFFFFF
    if ctx is None or ctx == "all":
        _base_seed = seed_state
        _generators.clear()
        return
    key = (ctx.device_typeid == 2, ctx.device_id if ctx.device_typeid == 2 else 0)
    _generators[key] = _make(key, seed_state)


# -- MXNet 1.9.1's CPU streams ----------------------------------------------------------
# MXNet draws on the CPU from a "parallel random" resource: 1024 std::mt19937 states,
# state i seeded with ``seed * 127 + i`` (127 is its per-device seed multiplier; every
# CPU context shares the one resource).  A sampler over N values splits them into
# ceil(N / 64) chunks (at most 1024) of equal length; chunk t draws from state t, which
# keeps its position for the next call.  Uniform draws are libstdc++'s
# generate_canonical: one 32-bit word scaled by 2**-32 for float, two for double.
_NUM_STATES = 1024
_MIN_PER_STATE = 64
_SEED_MULTIPLIER = 127
_WORD = 4294967296.0  # 2**32


@functools.lru_cache(maxsize=64)
def _words_below(bound: float, inclusive: bool) -> int:
    """How many 32-bit words give a float draw below ``bound`` (or equal, if
    ``inclusive``): the draw is non-decreasing in the word, so they are a prefix."""
    low, high = 0, 1 << 32  # the answer lies in [low, high]
    while low < high:  # 32 halvings
        mid = (low + high) // 2
        u = MXNetCPUStream._canonical(np.array([mid], np.uint64), False)[0]
        if u <= bound if inclusive else u < bound:
            low = mid + 1
        else:
            high = mid
    return low


class MXNetCPUStream:
    """The CPU random stream: MXNet 1.9.1's own for its uniform and normal samplers and
    Dropout, a NumPy ``Generator`` (its attributes are this object's) for the rest.

    Parameters
    ----------
    seed : int
        The seed as ``mx.random.seed`` takes it, already reduced to 32 bits.
    """

    def __init__(self, seed: int) -> None:
        self._base = (seed * _SEED_MULTIPLIER) & 0xFFFFFFFF
        self._states: dict = {}
        # words a state has produced that no draw has used yet (the normal sampler draws
        # ahead and gives back what it did not need)
        self._unused: dict = {}
        self.numpy = np.random.Generator(np.random.PCG64(seed))

    def __getattr__(self, name: str):
        if name == "numpy":  # not set yet (a copy being built): no delegation loop
            raise AttributeError(name)
        return getattr(self.numpy, name)

    def _words(self, index: int, count: int) -> np.ndarray:
        """The next ``count`` 32-bit outputs of state ``index`` (as uint64)."""
        state = self._states.get(index)
        if state is None:
            # RandomState(s) seeds MT19937 as std::mt19937(s) does (init_genrand)
            key = np.random.RandomState((self._base + index) & 0xFFFFFFFF).get_state()[1]
            state = np.random.MT19937()
            state.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
            self._states[index] = state
        unused = self._unused.pop(index, None)
        if unused is None:
            return state.random_raw(count)
        if unused.size >= count:
            if unused.size > count:
                self._unused[index] = unused[count:]
            return unused[:count]
        return np.concatenate([unused, state.random_raw(count - unused.size)])

    @staticmethod
    def _chunks(count: int) -> list:
        """``(state index, start, stop)`` of each non-empty chunk of ``count`` draws."""
        chunks = min(-(-count // _MIN_PER_STATE), _NUM_STATES)
        step = -(-count // chunks) if count else 0
        return [(t, t * step, min((t + 1) * step, count)) for t in range(chunks)
                if t * step < count]

    @staticmethod
    def _canonical(words: np.ndarray, double: bool) -> np.ndarray:
        """Uniform draws in [0, 1) from 32-bit words along the last axis: float32 from
        one word each, float64 from two (low word first)."""
        if not double:
            u = words.astype(np.float32) / np.float32(_WORD)
            return np.minimum(u, np.nextafter(np.float32(1), np.float32(0)))
        pairs = words.reshape(words.shape[:-1] + (-1, 2)).astype(np.float64)
        u = (pairs[..., 0] + pairs[..., 1] * _WORD) / (_WORD * _WORD)
        return np.minimum(u, np.nextafter(1.0, 0.0))

    def _all_words(self, count: int, per_value: int) -> np.ndarray:
        """The words of ``count`` draws of ``per_value`` words each, in MXNet's order."""
        # a loop over at most 1024 states, not over values
        words = [self._words(t, (stop - start) * per_value)
                 for t, start, stop in self._chunks(count)]
        return np.concatenate(words) if words else np.empty(0, np.uint64)

    def uniform01(self, shape, double: bool) -> np.ndarray:
        """Uniform draws of ``shape`` in MXNet's order (float64 if ``double``)."""
        count = int(np.prod(shape, dtype=np.int64))
        flat = self._all_words(count, 2 if double else 1)
        return self._canonical(flat, double).reshape(shape)

    def uniform01_below(self, shape, bound: float, inclusive: bool,
                        double: bool) -> np.ndarray:
        """Whether each uniform draw of ``shape``, as a float, is below ``bound`` (or equal,
        if ``inclusive``): Dropout's test.  With one word per draw the test runs on the
        words (the float draw grows with the word), saving the conversion."""
        if double:
            u = self.uniform01(shape, True).astype(np.float32)
            return u <= np.float32(bound) if inclusive else u < np.float32(bound)
        count = int(np.prod(shape, dtype=np.int64))
        limit = _words_below(float(np.float32(bound)), inclusive)
        return (self._all_words(count, 1) < limit).reshape(shape)

    def standard_normal01(self, shape, double: bool) -> np.ndarray:
        """N(0, 1) draws of ``shape`` in MXNet's order: libstdc++'s polar method, one
        accepted pair per value (MXNet's distribution object does not outlive a value).

        Every chunk's pairs are drawn at once, a third more than it needs; the words past
        the pair that completes a chunk go back to its state for the next draw."""
        count = int(np.prod(shape, dtype=np.int64))
        ftype = np.float64 if double else np.float32
        words_per_pair = 4 if double else 2
        out = np.empty(count, ftype)
        chunks = self._chunks(count)
        states = np.array([t for t, _, _ in chunks], dtype=np.int64)
        next_pos = np.array([start for _, start, _ in chunks], dtype=np.int64)
        need = np.array([stop - start for _, start, stop in chunks], dtype=np.int64)
        while need.size:
            pairs = int(need.max()) + int(need.max()) // 3 + 16
            words = np.stack([self._words(t, pairs * words_per_pair) for t in states])
            u = self._canonical(words, double).reshape(len(states), pairs, 2)
            # libstdc++ evaluates 2 * u - 1 in double and stores it in the float type:
            # one rounding of the exact value, as the float type's own arithmetic gives
            x = ftype(2) * u[..., 0] - ftype(1)
            y = ftype(2) * u[..., 1] - ftype(1)
            r2 = x * x + y * y
            inside = (r2 <= 1) & (r2 != 0)
            accepted = np.cumsum(inside, axis=1)
            use = inside & (accepted <= need[:, None])
            complete = accepted[:, -1] >= need
            used_pairs = np.where(complete, np.argmax(accepted >= need[:, None], axis=1) + 1,
                                  pairs)
            for t, row, used in zip(states, words, used_pairs * words_per_pair):
                if used < row.size:
                    self._unused[int(t)] = row[used:]
            r2_used = r2[use]
            # the C library's log rounds to the float type.  A correctly rounded log (in
            # double for float, in long double for double: NumPy's own SIMD double log
            # may be off in the last bit) agrees with glibc's to the last bit on all but
            # ~0.4% of float values (1 ulp there)
            wider = np.longdouble if double else np.float64
            log_r2 = np.log(r2_used.astype(wider)).astype(ftype)
            values = y[use] * np.sqrt(ftype(-2) * log_r2 / r2_used)
            got = use.sum(axis=1)
            first = np.cumsum(got) - got  # where each chunk's values start in ``values``
            out[np.repeat(next_pos - first, got) + np.arange(values.size)] = values
            next_pos += got
            need -= got
            short = need > 0
            states, next_pos, need = states[short], next_pos[short], need[short]
        return out.reshape(shape)
