"""``mx.space``: the configuration spaces of operator schedules (MXNet 1.9's
``mxnet.space``, the bridge to TVM's ``autotvm`` config spaces).

A :class:`ConfigSpace` maps knob names to an :class:`OtherOptionSpace` (the values a
knob may take) and to an :class:`OtherOptionEntity` (the value chosen);
:class:`ConfigSpaces` holds one space per operator.  All three round-trip through
JSON-serializable structures (``to_json_dict``/``from_json_dict``) in MXNet's layout:
a space is ``{"e": [(key, "ot", value), ...], "s": [(key, "ot", [values]), ...]}``
and a set of spaces a list of ``(name, space)`` pairs.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["OtherOptionSpace", "OtherOptionEntity", "ConfigSpace", "ConfigSpaces"]

# the only knob type MXNet writes: "other option", a free list of values
_KNOB = "ot"


class OtherOptionEntity:
    """One chosen value of a knob.

    Parameters
    ----------
    val : Any
        The value.
    """

    def __init__(self, val: Any):
        self.val = val

    @classmethod
    def from_tvm(cls, x: Any) -> "OtherOptionEntity":
        """The entity of ``x``, an ``autotvm`` ``OtherOptionEntity`` (anything with
        ``.val``)."""
        return cls(x.val)

    def __repr__(self) -> str:
        return str(self.val)


class OtherOptionSpace:
    """The values a knob may take.

    Parameters
    ----------
    entities : iterable
        The values; each becomes an :class:`OtherOptionEntity`.
    """

    def __init__(self, entities):
        self.entities = [OtherOptionEntity(value) for value in entities]

    @classmethod
    def from_tvm(cls, x: Any) -> "OtherOptionSpace":
        """The space of ``x``, an ``autotvm`` ``OtherOptionSpace`` (anything whose
        ``.entities`` have ``.val``)."""
        return cls([entity.val for entity in x.entities])

    def __len__(self) -> int:
        return len(self.entities)

    def __repr__(self) -> str:
        return f"OtherOption({self.entities}) len={len(self)}"


def _knob_type(knob: str) -> None:
    if knob != _KNOB:
        raise RuntimeError(f"Invalid config knob type: {knob}")


class ConfigSpace:
    """The configuration space of one schedule.

    Parameters
    ----------
    space_map : dict
        Knob name to :class:`OtherOptionSpace`.
    _entity_map : dict
        Knob name to the chosen :class:`OtherOptionEntity`.
    """

    def __init__(self, space_map: dict, _entity_map: dict):
        self.space_map = space_map
        self._entity_map = _entity_map
        self._length = None

    @classmethod
    def from_tvm(cls, x: Any) -> "ConfigSpace":
        """The space of ``x``, an ``autotvm`` ``ConfigSpace`` (``.space_map`` and
        ``._entity_map``)."""
        spaces = OrderedDict((k, OtherOptionSpace.from_tvm(v)) for k, v in x.space_map.items())
        entities = OrderedDict((k, OtherOptionEntity.from_tvm(v))
                               for k, v in x._entity_map.items())
        return cls(spaces, entities)

    def __len__(self) -> int:
        """The number of configurations: the product of the knobs' sizes (1 for none)."""
        if self._length is None:
            self._length = int(np.prod([len(space) for space in self.space_map.values()]))
        return self._length

    def __repr__(self) -> str:
        lines = [f"ConfigSpace (len={len(self)}, space_map="]
        lines += [f"  {i:2d} {name}: {space}" for i, (name, space)
                  in enumerate(self.space_map.items())]
        return "\n".join(lines) + "\n)"

    def to_json_dict(self) -> dict:
        """The space as ``{"e": [(key, "ot", value)], "s": [(key, "ot", values)]}``.

        Raises
        ------
        RuntimeError
            If a chosen value is not an :class:`OtherOptionEntity`.
        """
        entities = []
        for key, entity in self._entity_map.items():
            if not isinstance(entity, OtherOptionEntity):
                raise RuntimeError(f"Invalid entity instance: {entity!r}")
            entities.append((key, _KNOB, entity.val))
        spaces = [(key, _KNOB, [e.val for e in space.entities])
                  for key, space in self.space_map.items()]
        return {"e": entities, "s": spaces}

    @classmethod
    def from_json_dict(cls, json_dict: dict) -> "ConfigSpace":
        """The space :meth:`to_json_dict` wrote (keys become ``str``).

        Raises
        ------
        RuntimeError
            On a knob type other than ``"ot"``.
        """
        entities = OrderedDict()
        for key, knob, value in json_dict["e"]:
            _knob_type(knob)
            entities[str(key)] = OtherOptionEntity(value)
        spaces = OrderedDict()
        for key, knob, values in json_dict["s"]:
            _knob_type(knob)
            spaces[str(key)] = OtherOptionSpace(values)
        return cls(spaces, entities)


class ConfigSpaces:
    """The configuration spaces of all operators, by name (``spaces[name] = space``)."""

    def __init__(self):
        self.spaces: dict = {}

    def __setitem__(self, name: str, space: ConfigSpace) -> None:
        self.spaces[name] = space

    def __len__(self) -> int:
        return len(self.spaces)

    def __repr__(self) -> str:
        lines = [f"ConfigSpaces (len={len(self)}, config_space="]
        lines += [f"  {i:2d} {key}:\n {space}" for i, (key, space)
                  in enumerate(self.spaces.items())]
        return "\n".join(lines) + "\n)"

    def to_json_dict(self) -> list:
        """The spaces as a list of ``(name, space.to_json_dict())``."""
        return [(key, space.to_json_dict()) for key, space in self.spaces.items()]

    @classmethod
    def from_json_dict(cls, json_dict: list) -> "ConfigSpaces":
        """The spaces :meth:`to_json_dict` wrote."""
        result = cls()
        for key, value in json_dict:
            result.spaces[key] = ConfigSpace.from_json_dict(value)
        return result
