"""What an operator function receives besides its arrays: the :class:`OpContext` (array
module, train or predict, device, random stream) and the parsed :class:`OpAttrs`."""
from __future__ import annotations

from .attrs import format_attr

__all__ = ["OpContext", "OpAttrs"]


class OpContext:
    """What an operator function needs besides its arrays.

    Attributes
    ----------
    xp : module
        ``numpy`` or ``cupy``.
    is_train : bool
        Training mode (Dropout, BatchNorm statistics).
    ctx : Context
        Device the arrays live on.
    """

    __slots__ = ("xp", "is_train", "ctx")

    def __init__(self, xp, is_train: bool, ctx):
        self.xp = xp
        self.is_train = is_train
        self.ctx = ctx

    @property
    def rng(self):
        """The random generator of this context (seeded by ``mx.random.seed``)."""
        from .. import _rng
        return _rng.generator(self.ctx)


class OpAttrs:
    """Parsed attributes of one operator call; attribute access by name.

    ``_given`` keeps the attributes the caller gave explicitly, which is what
    MXNet writes into graph JSON.
    """

    def __init__(self, values: dict, given: dict):
        self.__dict__.update(values)
        self._given = given

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k != "_given")
        return f"OpAttrs({items})"

    def as_dict(self) -> dict:
        """All attribute values (given and defaulted)."""
        return {k: v for k, v in self.__dict__.items() if k != "_given"}

    def with_values(self, **values) -> "OpAttrs":
        """A copy with ``values`` set besides the given attributes (runtime objects such
        as a control-flow node's subgraphs, which never go into JSON strings)."""
        new = self.with_given(self._given)
        new.__dict__.update(values)
        return new

    def with_given(self, given: dict) -> "OpAttrs":
        """A copy whose explicitly given attributes are ``given`` (the symbol layer keeps
        the caller's exact strings for JSON); subclass state (slots) is shared."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot != "__weakref__" and hasattr(self, slot):
                    setattr(new, slot, getattr(self, slot))
        new._given = dict(given)
        return new

    def to_strings(self) -> dict[str, str]:
        """The explicitly given attributes as MXNet attribute strings."""
        return {k: format_attr(v) for k, v in self._given.items()}
