"""The docstring of a generated operator function, as MXNet's ``ndarray_doc`` and
``symbol_doc`` build it: the operator's description, a numpy-style ``Parameters``
section from its argument names, types and descriptions, what the front end adds
(``out`` or ``name``), ``Returns``, and the examples of a ``<op>Doc`` class when one
is defined."""
from __future__ import annotations

import inspect

__all__ = ["param_doc", "build_doc"]


def param_doc(arg_names, arg_types, arg_descs, remove_dup: bool = True) -> str:
    """A ``Parameters`` section: ``name : type`` lines, each followed by its
    description indented by four spaces (``num_args`` left out; a repeated name kept
    once unless ``remove_dup`` is false)."""
    seen: set = set()
    entries = []
    for name, type_info, desc in zip(arg_names, arg_types, arg_descs):
        if name == "num_args" or (remove_dup and name in seen):
            continue
        seen.add(name)
        entries.append(f"{name} : {type_info}" + (f"\n    {desc}" if desc else ""))
    return "Parameters\n----------\n" + "\n".join(entries) + "\n"


def extra_doc(base: type, func_name: str) -> str:
    """The dedented docstrings of the direct subclasses of ``base`` named
    ``<func_name>Doc``, each after a blank line (a newline when there is none)."""
    docs = ["\n" + inspect.cleandoc(cls.__doc__ or "") for cls in base.__subclasses__()
            if cls.__name__ == f"{func_name}Doc"]
    return "\n" + "\n".join(docs)


def build_doc(base: type, func_name: str, desc: str, arg_names, arg_types, arg_desc,
              extra_params: str, returns: str, array_word: str) -> str:
    """The whole docstring; ``NDArray-or-Symbol`` types read ``array_word``."""
    doc = (f"{desc}\n\n{param_doc(arg_names, arg_types, arg_desc)}\n{extra_params}\n\n"
           f"Returns\n-------\n{returns}")
    doc += extra_doc(base, func_name)
    return doc.replace("NDArray-or-Symbol", array_word)
