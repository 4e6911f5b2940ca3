"""``mx.contrib.text`` (MXNet 1.9): text token indexing (``vocab``), token embeddings
from local files (``embedding``) and counting tokens (``utils``)."""
from . import utils  # noqa: F401
from . import vocab  # noqa: F401
from . import embedding  # noqa: F401
