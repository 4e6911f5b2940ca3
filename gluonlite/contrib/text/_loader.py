"""Reading a token-embedding text file: one token and its vector per line."""
from __future__ import annotations

import os
import warnings
from typing import Hashable, List, Optional, Tuple

import numpy as np

__all__ = ["read_embedding_file"]


def read_embedding_file(path: str, elem_delim: str, unknown_token: Hashable,
                        encoding: str = "utf8"
                        ) -> Tuple[List[str], np.ndarray, Optional[np.ndarray]]:
    """Parse ``token<d>v1<d>v2...`` lines as MXNet does.

    The first vector of a token wins (later ones are skipped with a warning); a line
    with a one-element vector is taken for a header and skipped with a warning; the
    first line of ``unknown_token`` gives its vector.

    Parameters
    ----------
    path : str
        The text file.
    elem_delim : str
        Separator of the token and the numbers on a line.
    unknown_token : hashable
        The token whose line (if any) holds the unknown vector.
    encoding : str, default 'utf8'
        The file's encoding.

    Returns
    -------
    tokens : list of str
        Tokens in file order (without ``unknown_token``).
    vectors : numpy.ndarray
        float32 array ``(len(tokens), vec_len)``.
    unknown_vec : numpy.ndarray or None
        The unknown token's vector when the file has one.

    Raises
    ------
    ValueError
        When ``path`` is not a file.
    AssertionError
        On a line without a vector, or vectors of different lengths (as MXNet).
    """
    path = os.path.expanduser(path)
    if not os.path.isfile(path):
        raise ValueError("`pretrained_file_path` must be a valid path to the pre-trained "
                         f"token embedding file (got {path!r}).")
    tokens: List[str] = []
    rows: List[List[float]] = []
    seen = set()
    unknown_vec = None
    vec_len = None
    with open(path, "r", encoding=encoding) as f:
        for line_num, line in enumerate(f, 1):
            elems = line.rstrip().split(elem_delim)
            assert len(elems) > 1, (
                f"At line {line_num} of the pre-trained text embedding file: the data format "
                f"of the pre-trained token embedding file {path} is unexpected.")
            token, values = elems[0], [float(v) for v in elems[1:]]
            if token == unknown_token and unknown_vec is None:
                unknown_vec = values
                seen.add(token)
            elif token in seen:
                warnings.warn(f"At line {line_num} of the pre-trained token embedding file: "
                              f"the embedding vector for token {token} has been loaded and a "
                              "duplicate embedding for the  same token is seen and skipped.")
            elif len(values) == 1:
                warnings.warn(f"At line {line_num} of the pre-trained text embedding file: "
                              f"token {token} with 1-dimensional vector {values} is likely a "
                              "header and is skipped.")
            else:
                if vec_len is None:
                    vec_len = len(values)
                assert len(values) == vec_len, (
                    f"At line {line_num} of the pre-trained token embedding file: the "
                    f"dimension of token {token} is {len(values)} but the dimension of "
                    f"previous tokens is {vec_len}. Dimensions of all the tokens must be the "
                    "same.")
                tokens.append(token)
                rows.append(values)
                seen.add(token)
    assert vec_len is not None, f"The pre-trained token embedding file {path} has no vectors."
    vectors = np.asarray(rows, dtype=np.float32).reshape(len(rows), vec_len)
    unk = None if unknown_vec is None else np.asarray(unknown_vec, dtype=np.float32)
    return tokens, vectors, unk
