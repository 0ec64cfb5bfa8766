"""Names of other modules imported where they are first used, so that importing a package loads what its
user asks for and nothing more (``tests/test_imports.py`` holds each entry point to its list).

:class:`LazyFunction` stands for a function (or class) of another module wherever a callable is kept,
as an :class:`~fileindex.indexes.index_type.IndexType` keeps its reader, checks and writer;
:func:`lazy_exports` gives a package's ``__getattr__`` for the names it re-exports.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec


class LazyFunction:
    """``module.name``, imported on the first call; pickled as the two names (a Spark executor imports it
    when it calls it)."""

    __slots__ = ("module", "name", "_target")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name
        self._target: Callable | None = None

    @property
    def target(self) -> Callable:
        """The function itself (imported now if it was not)."""
        if self._target is None:
            self._target = getattr(importlib.import_module(self.module), self.name)
        return self._target

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return (self._target or self.target)(*args, **kwargs)

    def __reduce__(self) -> tuple:
        return LazyFunction, (self.module, self.name)

    def __repr__(self) -> str:
        return f"LazyFunction({self.module}.{self.name})"


def lazy_exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for ``package``: each of ``names`` (name → the module defining it)
    imported from its module on first use."""

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


class LazyModule:
    """A module imported on its first attribute lookup: ``pc = LazyModule("pyarrow.compute")`` in a module that
    uses it inside functions only, so that importing that module does not import it. Each name looked up is
    kept, so the next lookup is a plain attribute's."""

    def __init__(self, name: str):
        self.__dict__["_module_name"] = name

    def __getattr__(self, name: str) -> Any:
        value = getattr(importlib.import_module(self.__dict__["_module_name"]), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"LazyModule({self.__dict__['_module_name']})"


class DeferredModule(ModuleType):
    """Stands for a module that another imports at its top but uses only inside functions, if ever (pyarrow's
    ``_compute`` imports ``inspect``, about 34 M instructions of a cold read, for its user-defined functions): the
    module is imported by the first attribute looked up, and that attribute and the next ones are the real
    module's. See :func:`import_deferring`."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # (an importer's look at __path__, __file__...: not a use)
            raise AttributeError(name)
        if sys.modules.get(self.__name__) is self:  # (looked up while the importer is still being imported)
            del sys.modules[self.__name__]
        value = getattr(importlib.import_module(self.__name__), name)
        setattr(self, name, value)
        return value


def import_deferring(module: str, *deferred: str) -> ModuleType:
    """``importlib.import_module(module)``, each of ``deferred`` (modules that ``module`` imports at its top and uses
    only in functions) bound there to a :class:`DeferredModule`; a module imported already is bound as it is. The
    stand-ins are in ``sys.modules`` only while ``module`` is imported: an ``import`` anywhere else, later, imports
    the real module. While ``module`` is imported a stand-in gives what ``ANSWERED`` holds for it without importing
    the real module; afterwards it gives the real module's."""
    standing_in = [DeferredModule(name) for name in deferred if name not in sys.modules and module not in sys.modules]
    for stand_in in standing_in:
        vars(stand_in).update(ANSWERED.get(stand_in.__name__, {}))
        sys.modules[stand_in.__name__] = stand_in
    try:
        return importlib.import_module(module)
    finally:
        for stand_in in standing_in:
            for attribute, answer in ANSWERED.get(stand_in.__name__, {}).items():
                if vars(stand_in).get(attribute) is answer:
                    delattr(stand_in, attribute)
            if isinstance(sys.modules.get(stand_in.__name__), DeferredModule):
                del sys.modules[stand_in.__name__]


def _system_name() -> str:
    """``platform.system()`` on a POSIX system, where ``platform.uname()`` takes it from ``os.uname()`` (blank for
    unknown)."""
    import os

    name = os.uname().sysname
    return "" if name == "unknown" else name


# what an import asks of a deferred module at its top, answered as that module would: uuid asks platform for the
# system's name on a POSIX system (platform's regular expressions: 8 M instructions of a cold read, #54)
ANSWERED: dict[str, dict[str, Any]] = {"platform": {"system": _system_name}}



def import_submodule(module: str, *deferred: str) -> ModuleType:
    """``importlib.import_module(module)`` (``package.submodule``) without running the package's ``__init__`` first
    where the package is not imported yet: fastavro's imports its writer, JSON reader and validation (about 20 M
    instructions of a cold read) for a read that uses its reader alone. The package is made as the import system
    makes it and its ``__init__`` runs in that same module object on the first attribute asked of it that it lacks
    (``fastavro.writer``, ``from fastavro import parse_schema``), so the submodules imported before are its own.
    ``deferred``: as :func:`import_deferring`'s."""
    name = module.rpartition(".")[0]
    if name in sys.modules:
        return import_deferring(module, *deferred)
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    package = sys.modules[name] = importlib.util.module_from_spec(spec)
    try:
        return import_deferring(module, *deferred)
    finally:  # (not before: the submodules' imports look up their names in the package before binding them)
        _initialized_on_first_use(package, spec)


def _initialized_on_first_use(package: ModuleType, spec: ModuleSpec) -> None:
    import threading

    name = package.__name__
    # Held while ``__init__`` runs, and ``__getattr__`` kept till it has: another thread asking meanwhile waits for
    # the whole package (it met a half-made one: "module 'backports.zstd' has no attribute 'ZstdDecompressor'");
    # reentrant, as ``__init__``'s own imports ask the package for submodules it lacks yet.
    initializing = threading.RLock()
    running = False

    def __getattr__(attribute: str) -> Any:  # (PEP 562: asked only for what the module lacks)
        nonlocal running
        with initializing:
            if running:  # (``__init__`` itself, asking for what it has not made yet)
                raise AttributeError(f"partially initialized module {name!r} has no attribute {attribute!r}")
            if vars(package).get("__getattr__") is __getattr__:
                running = True
                try:
                    spec.loader.exec_module(package)  # type: ignore[union-attr]
                except BaseException:
                    if sys.modules.get(name) is package:  # (as a failed import leaves it)
                        del sys.modules[name]
                    raise
                finally:
                    running = False
                if vars(package).get("__getattr__") is __getattr__:  # (not the package's own, if it has one)
                    del package.__getattr__
        return getattr(package, attribute)

    package.__getattr__ = __getattr__  # type: ignore[method-assign]


if TYPE_CHECKING:
    import numpy as numpy
else:
    # imported by the first array operation: a command line's read whose path needs none never loads it
    # (``from fileindex.lazy import numpy as np``; see fileindex/cli/unimported.py)
    numpy = LazyModule("numpy")
