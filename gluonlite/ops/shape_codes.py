"""MXNet's Reshape codes: 0 (copy dim), -1 (infer), -2 (copy the rest),
-3 (merge two dims), -4 (split a dim into the next two codes), and ``reverse``."""
from __future__ import annotations

from ..base import MXNetError


class ReshapeSizeError(MXNetError, ValueError):
    """A reshape to a shape of another size.  Also a ``ValueError``: MXNet's
    ``NDArray.reshape`` raises ``ValueError`` for it ("Cannot reshape array of size ...")."""


def _tokens(codes):
    toks, i = [], 0
    while i < len(codes):
        if codes[i] == -4:
            if i + 2 >= len(codes):
                raise ValueError("-4 must be followed by two dimensions")
            toks.append((-4, codes[i + 1], codes[i + 2]))
            i += 3
        else:
            toks.append((codes[i],))
            i += 1
    return toks


def reshape_shape(src: tuple, codes: tuple, reverse: bool = False, op: str = "Reshape",
                  allow_unknown: bool = False) -> tuple:
    """The target shape of reshaping an array of shape ``src`` with MXNet ``codes``.

    With ``allow_unknown`` a source dimension 0 (unknown) gives 0 in the result
    where it cannot be resolved, instead of raising.
    """
    src = tuple(int(d) for d in src)
    codes = tuple(int(c) for c in codes)
    bad = MXNetError(f"Operator {op}: cannot reshape array of shape {src} into "
                     f"shape {codes}" + (" (reverse)" if reverse else ""))
    if reverse:
        # MXNet reverses the raw code list (so a -4 group reads right to left) and the
        # source shape, applies the codes, and reverses the result
        src = src[::-1]
        codes_used = codes[::-1]
    else:
        codes_used = codes
    try:
        toks = _tokens(codes_used)
    except ValueError as err:
        raise MXNetError(f"Operator {op}: invalid shape {codes}: {err}") from err
    out: list = []
    infer_at = -1
    i = 0
    for t in toks:
        c = t[0]
        if c > 0:
            out.append(c)
            i += 1
        elif c == 0:
            if i >= len(src):
                raise bad
            out.append(src[i])
            i += 1
        elif c == -1:
            if infer_at >= 0:
                raise MXNetError(f"Operator {op}: shape {codes} has more than one -1")
            infer_at = len(out)
            out.append(-1)
            i += 1
        elif c == -2:
            out.extend(src[i:])
            i = len(src)
        elif c == -3:
            if i + 1 >= len(src):
                raise bad
            out.append(src[i] * src[i + 1])
            i += 2
        elif c == -4:
            if i >= len(src):
                raise bad
            d1, d2 = t[1], t[2]
            whole = src[i]
            if d1 == -1 and d2 == -1:
                raise bad
            if d1 == -1:
                d1 = whole // d2 if d2 else 0
            elif d2 == -1:
                d2 = whole // d1 if d1 else 0
            if whole and d1 * d2 != whole:
                raise bad
            out.extend([d1, d2])
            i += 1
        else:
            raise MXNetError(f"Operator {op}: invalid code {c} in shape {codes}")
    total = 1
    for d in src:
        total *= d
    if infer_at >= 0:
        rest = 1
        for j, d in enumerate(out):
            if j != infer_at:
                rest *= d
        if rest == 0 or total == 0:
            if not allow_unknown:
                raise bad
            out[infer_at] = 0
        else:
            if total % rest:
                raise bad
            out[infer_at] = total // rest
    else:
        size = 1
        for d in out:
            size *= d
        if size != total and not (allow_unknown and (size == 0 or total == 0)):
            raise ReshapeSizeError(f"{bad} (size {total} into size {size})")
    if reverse:
        out = out[::-1]
    return tuple(out)
