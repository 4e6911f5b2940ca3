"""``mx.contrib.text.utils``: counting tokens in text (MXNet 1.9)."""
from __future__ import annotations

import collections
import re
from typing import Optional

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(source_str: str, token_delim: str = " ", seq_delim: str = "\n",
                          to_lower: bool = False,
                          counter_to_update: Optional[collections.Counter] = None
                          ) -> collections.Counter:
    """Count the tokens of a string.

    The string is split wherever ``token_delim`` or ``seq_delim`` matches (both are
    regular expressions: escape special characters, e.g. ``'\\*'``); empty pieces are
    dropped.

    Parameters
    ----------
    source_str : str
        The text to count.
    token_delim : str, default ' '
        Regular expression separating tokens.
    seq_delim : str, default '\\n'
        Regular expression separating sequences.
    to_lower : bool, default False
        Whether tokens are lower-cased before counting.
    counter_to_update : collections.Counter, optional
        A counter to add the counts to (and return); default a new one.

    Returns
    -------
    collections.Counter
        Token frequencies.

    Examples
    --------
    >>> count_tokens_from_str(' Life is great ! \\n life is good . \\n', ' ', '\\n', True)
    Counter({'life': 2, 'is': 2, 'great': 1, '!': 1, 'good': 1, '.': 1})
    """
    tokens = [t for t in re.split(token_delim + "|" + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
