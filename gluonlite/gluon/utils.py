"""``mx.gluon.utils``: batch splitting across devices, global-norm clipping, file
helpers, as in MXNet 1.9."""
from __future__ import annotations

import hashlib
import math
import os
import ssl
import urllib.request
import uuid
import warnings

from .. import ndarray as nd
from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..util import is_np_array, is_np_shape  # noqa: F401 - MXNet exposes them here
from .block import HookHandle  # noqa: F401 - MXNet exposes it here
from .parameter import shape_is_known  # noqa: F401

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download",
           "replace_file", "shape_is_known", "HookHandle"]


def split_data(data: NDArray, num_slice: int, batch_axis: int = 0,
               even_split: bool = True) -> list:
    """Split ``data`` into ``num_slice`` parts along ``batch_axis``.

    With ``even_split=False`` the first ``size % num_slice`` parts get one more
    item (parts may be empty when ``size < num_slice``), as MXNet 1.9 splits.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            f"data with shape {data.shape} cannot be evenly split into {num_slice} slices "
            f"along axis {batch_axis}. Use a batch size that's multiple of {num_slice} or set "
            "even_split=False to allow uneven partitioning of data.")
    step, extra = divmod(size, num_slice)
    bounds = [0]
    for i in range(num_slice):
        bounds.append(bounds[-1] + step + (1 if i < extra else 0))
    if batch_axis == 0:  # first-axis slices are views, as in MXNet
        return [data[bounds[i]:bounds[i + 1]] for i in range(num_slice)]
    return [nd.slice_axis(data, batch_axis, bounds[i], bounds[i + 1])
            for i in range(num_slice)]


def split_and_load(data, ctx_list: list, batch_axis: int = 0,
                   even_split: bool = True) -> list:
    """Split ``data`` (NDArray or NumPy array) into ``len(ctx_list)`` parts, each
    copied to one context."""
    if not isinstance(data, NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays: list, max_norm: float, check_isfinite: bool = True):
    """Rescale ``arrays`` in place so that the 2-norm of all of them together is at
    most ``max_norm``; return that norm before clipping (a float, or an NDArray when
    ``check_isfinite`` is False, which avoids a device synchronisation)."""
    if not arrays:
        raise MXNetError("clip_global_norm: no arrays given")
    ctx = arrays[0].context
    total = nd.add_n(*[(nd.norm(a) ** 2).as_in_context(ctx) for a in arrays]).sqrt()
    if check_isfinite:
        norm = float(total.asscalar())
        if not math.isfinite(norm):
            warnings.warn(UserWarning("nan or inf is detected. Clipping results will be "
                                      "undefined."), stacklevel=2)
    scale = max_norm / (total + 1e-8)
    scale = nd.minimum(scale, nd.ones((1,), ctx=ctx, dtype=scale.dtype))
    for a in arrays:
        a *= scale.as_in_context(a.context)
    return norm if check_isfinite else total


def check_sha1(filename: str, sha1_hash: str) -> bool:
    """Whether the SHA-1 of the file's content equals ``sha1_hash`` (hex digits)."""
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def replace_file(src: str, dst: str) -> None:
    """Move ``src`` over ``dst`` atomically."""
    os.replace(src, dst)


def _fetch(url: str, into: str, verify_ssl: bool) -> None:
    """Write the body of ``url`` into the file ``into``: through ``requests`` where it is
    installed, as MXNet's ``download`` does (so code that mocks ``requests.get`` behaves
    as on MXNet), through ``urllib`` otherwise."""
    try:
        import requests  # optional: MXNet's HTTP client, not a gluonlite requirement
    except ImportError:
        requests = None
    if requests is not None:
        response = requests.get(url, stream=True, verify=verify_ssl)
        if response.status_code != 200:
            raise RuntimeError(f"Failed downloading url {url}")
        with open(into, "wb") as f:
            for chunk in response.iter_content(chunk_size=1 << 20):
                f.write(chunk)
        return
    context = None if verify_ssl else ssl._create_unverified_context()
    with urllib.request.urlopen(url, context=context) as response, open(into, "wb") as f:
        while True:
            chunk = response.read(1 << 20)
            if not chunk:
                break
            f.write(chunk)


def download(url: str, path: str | None = None, overwrite: bool = False,
             sha1_hash: str | None = None, retries: int = 5, verify_ssl: bool = True) -> str:
    """Download ``url`` to ``path`` (a file, or a folder to put it in); return the file
    name.  An existing file is kept unless ``overwrite`` or its SHA-1 differs."""
    fname = url.split("/")[-1] if path is None else path
    if path is not None and os.path.isdir(path):
        fname = os.path.join(path, url.split("/")[-1])
    if not fname:
        raise MXNetError(f"download: cannot infer a file name from url {url!r}")
    if os.path.exists(fname) and not overwrite and \
            (sha1_hash is None or check_sha1(fname, sha1_hash)):
        return fname
    folder = os.path.dirname(os.path.abspath(os.path.expanduser(fname)))
    os.makedirs(folder, exist_ok=True)
    last_error = None
    for _ in range(max(1, retries)):
        tmp = f"{fname}.{uuid.uuid4()}"
        try:
            _fetch(url, tmp, verify_ssl)
            if sha1_hash and not check_sha1(tmp, sha1_hash):
                raise UserWarning(f"File {fname} is downloaded but the content hash does "
                                  "not match. The repo may be outdated or download may be "
                                  "incomplete.")
            replace_file(tmp, fname)
            return fname
        except Exception as err:  # noqa: BLE001 - retried, then reported
            last_error = err
            if os.path.exists(tmp):
                os.remove(tmp)
    raise MXNetError(f"download of {url} failed after {retries} tries: {last_error}")


_DEFAULT_REPO = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def _get_repo_url() -> str:
    """Base URL of the Gluon model and dataset repository (``MXNET_GLUON_REPO``), ending
    in ``/``.  gluonlite downloads nothing itself; GluonCV and GluonNLP build their URLs
    with it."""
    url = os.environ.get("MXNET_GLUON_REPO", _DEFAULT_REPO)
    return url if url.endswith("/") else url + "/"


def _get_repo_file_url(namespace: str, filename: str) -> str:
    """URL of ``filename`` under ``namespace`` in the Gluon repository."""
    return f"{_get_repo_url()}{namespace}/{filename}"
