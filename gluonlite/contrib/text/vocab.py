"""``mx.contrib.text.vocab``: :class:`Vocabulary`, the token <-> index mapping (MXNet 1.9).

Index 0 is the unknown token, then the reserved tokens in the given order, then the
keys of the counter by decreasing frequency, ties broken by the keys' natural order.
"""
from __future__ import annotations

import collections
from typing import Hashable, Iterator, List, Optional, Sequence, Union

from . import _constants as C

__all__ = ["Vocabulary"]


class Vocabulary:
    """Indices for text tokens: the unknown token, reserved tokens and counted tokens.

    Parameters
    ----------
    counter : collections.Counter, optional
        Token frequencies; its keys are indexed subject to ``most_freq_count`` and
        ``min_freq``.  Keys, ``unknown_token`` and ``reserved_tokens`` must be of one
        hashable type (str, int, tuple...).
    most_freq_count : int, optional
        At most this many of the counter's keys are indexed (reserved tokens and the
        unknown token not counted); tokens of equal frequency are taken in sorted order.
    min_freq : int, default 1
        Minimum frequency for a counter key to be indexed.
    unknown_token : hashable, default '<unk>'
        The representation of every unknown token; always index 0.
    reserved_tokens : list of hashable, optional
        Tokens always indexed (after the unknown token), e.g. padding or sentence marks;
        no duplicates and not ``unknown_token``.

    Raises
    ------
    AssertionError
        On ``min_freq <= 0``, duplicate reserved tokens, ``unknown_token`` among them or
        a ``counter`` that is not a :class:`collections.Counter` (as MXNet).
    """

    def __init__(self, counter: Optional[collections.Counter] = None,
                 most_freq_count: Optional[int] = None, min_freq: int = 1,
                 unknown_token: Hashable = "<unk>",
                 reserved_tokens: Optional[Sequence[Hashable]] = None) -> None:
        assert min_freq > 0, "`min_freq` must be set to a positive value."
        if reserved_tokens is not None:
            distinct = set(reserved_tokens)
            assert unknown_token not in distinct, \
                "`reserved_token` cannot contain `unknown_token`."
            assert len(distinct) == len(reserved_tokens), \
                "`reserved_tokens` cannot contain duplicate reserved tokens."
        self._index_unknown_and_reserved_tokens(unknown_token, reserved_tokens)
        if counter is not None:
            self._index_counter_keys(counter, unknown_token, reserved_tokens,
                                     most_freq_count, min_freq)

    def _index_unknown_and_reserved_tokens(self, unknown_token, reserved_tokens) -> None:
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + (self._reserved_tokens or [])
        self._token_to_idx = {tok: i for i, tok in enumerate(self._idx_to_token)}

    def _index_counter_keys(self, counter, unknown_token, reserved_tokens,
                            most_freq_count, min_freq) -> None:
        assert isinstance(counter, collections.Counter), \
            "`counter` must be an instance of collections.Counter."
        special = set(reserved_tokens or ()) | {unknown_token}
        # by frequency, descending; equal frequencies in the keys' sorted order
        ranked = sorted(sorted(counter.items(), key=lambda kv: kv[0]),
                        key=lambda kv: kv[1], reverse=True)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in ranked:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self) -> int:
        return len(self._idx_to_token)

    def __contains__(self, token: Hashable) -> bool:
        """Whether ``token`` is indexed (gluonlite extra; MXNet 1.9 has no ``in``)."""
        return token in self._token_to_idx

    def __iter__(self) -> Iterator[Hashable]:
        """The indexed tokens in index order (gluonlite extra)."""
        return iter(self._idx_to_token)

    def __getitem__(self, tokens):
        """``to_indices(tokens)`` (gluonlite extra, GluonNLP's convention)."""
        return self.to_indices(tokens)

    @property
    def token_to_idx(self) -> dict:
        """dict: each indexed token's index."""
        return self._token_to_idx

    @property
    def idx_to_token(self) -> list:
        """list: the indexed tokens, position = index."""
        return self._idx_to_token

    @property
    def unknown_token(self) -> Hashable:
        """The representation of unknown tokens (index 0)."""
        return self._unknown_token

    @property
    def reserved_tokens(self) -> Optional[list]:
        """The reserved tokens, or None."""
        return self._reserved_tokens

    def to_indices(self, tokens: Union[Hashable, List[Hashable]]) -> Union[int, List[int]]:
        """Indices of tokens; unknown tokens map to 0.

        Parameters
        ----------
        tokens : hashable or list
            One token, or a list of tokens.

        Returns
        -------
        int or list of int
            An index for a single token, a list for a list.
        """
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, C.UNKNOWN_IDX)
        return [self._token_to_idx.get(tok, C.UNKNOWN_IDX) for tok in tokens]

    def to_tokens(self, indices: Union[int, List[int]]) -> Union[Hashable, List[Hashable]]:
        """Tokens of indices.

        Parameters
        ----------
        indices : int or list of int
            One index, or a list of indices.

        Returns
        -------
        hashable or list
            A token for a single index, a list for a list.

        Raises
        ------
        ValueError
            For an index that is not an ``int`` or is past the last index.
        """
        single = not isinstance(indices, list)
        max_idx = len(self._idx_to_token) - 1
        out = []
        for idx in ([indices] if single else indices):
            if not isinstance(idx, int) or idx > max_idx:
                raise ValueError(f"Token index {idx} in the provided `indices` is invalid.")
            out.append(self._idx_to_token[idx])
        return out[0] if single else out
