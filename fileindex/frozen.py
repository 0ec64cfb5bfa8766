"""Frozen record classes built for a fraction of what ``@dataclass(frozen=True)`` costs to build (issue #54).

``dataclasses`` writes and compiles six methods for each frozen class as a module defining it is imported: about
3.8 M instructions a class, 0.13 G for the 36 classes a cold ``fileindex read`` meets, and importing ``dataclasses``
imports ``inspect``. ``@frozen`` makes the same class (the same ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
ordering where asked, assignment refused) compiling only ``__init__``, and that only once the class has made
``COMPILED_AFTER`` instances (the instances before set their fields without it); the comparisons use
``operator.attrgetter``.
Its instances pickle, copy and compare as a frozen dataclass's do, and ``dataclasses.replace``, ``fields`` and
``asdict`` take them: their ``__dataclass_fields__`` is built, on first look, by ``dataclasses`` itself from a class
of the same fields (``dataclasses`` imported then). Inside this package, ``replace`` here changes fields without it.
"""
from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")
_MISSING: Any = object()
_set = object.__setattr__


class FrozenError(AttributeError):
    """An assignment to (or deletion of) a field of a frozen record."""


class Field:
    """What ``field(...)`` says of one field, as ``dataclasses.field`` does (``default_factory``: called for each
    instance; ``init``: a parameter of ``__init__``; ``repr``, ``compare``: shown by repr, compared and hashed)."""

    __slots__ = ("name", "default", "default_factory", "init", "repr", "compare")

    def __init__(self, default: Any = _MISSING, default_factory: Callable[[], Any] | Any = _MISSING,
                 init: bool = True, repr: bool = True, compare: bool = True):
        self.name = ""
        self.default, self.default_factory, self.init, self.repr, self.compare = \
            default, default_factory, init, repr, compare


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | Any = _MISSING, init: bool = True,
          repr: bool = True, compare: bool = True) -> Any:
    """A field's default and roles, as ``dataclasses.field``."""
    return Field(default, default_factory, init, repr, compare)


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def frozen(cls: type[T] | None = None, /, *, init: bool = True, order: bool = False) -> Any:
    """``@dataclass(frozen=True)`` (with ``init`` and ``order`` as there), built without compiling more than
    ``__init__``; a method the class defines itself is kept (``__hash__`` too, as dataclasses keeps an explicit one)."""
    def build(cls: type[T]) -> type[T]:
        return _build(cls, init, order)

    return build if cls is None else build(cls)


def replace(record: T, /, **changes: Any) -> T:
    """A copy of ``record`` with ``changes`` (as ``dataclasses.replace``: every ``__init__`` field passed again)."""
    for one in type(record).__record_fields__:  # type: ignore[attr-defined]
        if one.init and one.name not in changes:
            changes[one.name] = getattr(record, one.name)
    return type(record)(**changes)


def _build(cls: type[T], init: bool, order: bool) -> type[T]:
    fields = {one.name: one for base in reversed(cls.__mro__[1:]) for one in getattr(base, "__record_fields__", ())}
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, _MISSING)
        one = value if isinstance(value, Field) else Field(default=value)
        one.name = name
        if one.default is _MISSING:
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, one.default)
        fields[name] = one
    listed = tuple(fields.values())
    own = dict(cls.__dict__)
    compared = [one.name for one in listed if one.compare]
    key = (lambda record: ()) if not compared else attrgetter(*compared) if len(compared) > 1 else \
        (lambda record, get=attrgetter(compared[0]): (get(record),))
    shown = tuple(one.name for one in listed if one.repr)
    made: dict[str, Any] = {"__record_fields__": listed, "__repr__": _repr(shown),
                            "__eq__": _comparison(key, tuple.__eq__)}
    if init and "__init__" not in own:
        made["__init__"] = _compiled_when_used(cls, listed)
    if order:
        made.update({name: _comparison(key, compare) for name, compare in (
            ("__lt__", tuple.__lt__), ("__le__", tuple.__le__), ("__gt__", tuple.__gt__), ("__ge__", tuple.__ge__))})
    for name, method in made.items():
        if name not in own:
            setattr(cls, name, method)
    names = frozenset(fields)
    methods = {"__setattr__": _refuse(cls, names, "assign to"), "__delattr__": _refuse(cls, names, "delete"),
               "__match_args__": tuple(one.name for one in listed if one.init),
               "__dataclass_fields__": _DataclassFields()}
    if own.get("__hash__") is None:  # (none defined: a class defining __eq__ has __hash__ None, as dataclasses sees it)
        methods["__hash__"] = lambda self: hash(key(self))
    for name, method in methods.items():
        setattr(cls, name, method)
    return cls


# instances a class makes before its __init__ is compiled: a cold read makes 27 kinds of record, most of them 50 times
# or fewer, and compiling an __init__ costs about 0.65 M instructions, a few thousand instances' worth of the slower
# binding (#54)
COMPILED_AFTER = 64


def _compiled_when_used(cls: type, listed: tuple[Field, ...]) -> Callable:
    """The class's ``__init__``: its first ``COMPILED_AFTER`` instances bound by :func:`_bind`, then what :func:`_init`
    makes, put in the class in its place (by the first call :func:`_bind` cannot bind too, which raises the compiled
    function's own ``TypeError``)."""
    made = 0
    parameters = {one.name: one for one in listed if one.init}
    names, named = tuple(parameters), frozenset(parameters)
    # (every field a parameter, none with a factory, no __post_init__: set as given, when given whole)
    plain = len(names) == len(listed) and all(one.default_factory is _MISSING for one in listed) and \
        not hasattr(cls, "__post_init__")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        made += 1
        if made <= COMPILED_AFTER:
            if plain and not kwargs and len(args) == len(names):
                for name, value in zip(names, args, strict=True):
                    _set(self, name, value)
                return
            if plain and not args and kwargs.keys() == named:
                for name in names:
                    _set(self, name, kwargs[name])
                return
            if _bind(cls, self, parameters, args, kwargs):
                return
        compiled = _init(cls, listed)
        if cls.__dict__.get("__init__") is __init__:
            type.__setattr__(cls, "__init__", compiled)
        compiled(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _bind(cls: type, record: Any, parameters: dict[str, Field], args: tuple, kwargs: dict) -> bool:
    """What the compiled ``__init__`` does with ``args`` and ``kwargs``, done without it; False, having set nothing,
    where they do not bind (too many, unknown, given twice or missing)."""
    if len(args) > len(parameters):
        return False
    given = dict(zip(parameters, args, strict=False))  # (fewer args than parameters: the rest by name or default)
    for name, value in kwargs.items():
        if name in given or name not in parameters:
            return False
        given[name] = value
    if len(given) < len(parameters) and any(
            name not in given and one.default is _MISSING and one.default_factory is _MISSING
            for name, one in parameters.items()):
        return False
    for one in cls.__record_fields__:  # type: ignore[attr-defined]
        name = one.name
        if name in given and (one.default_factory is _MISSING or given[name] is not _MISSING):
            value = given[name]
        elif one.default_factory is not _MISSING:
            value = one.default_factory()
        elif one.init:
            value = one.default
        else:
            continue  # (the class's default, or set by __post_init__)
        _set(record, name, value)
    if hasattr(cls, "__post_init__"):
        record.__post_init__()
    return True


def _init(cls: type, listed: tuple[Field, ...]) -> Callable:
    """``__init__`` as dataclasses writes it for a frozen class: parameters in field order, each set by
    ``object.__setattr__``, the factories called, then ``__post_init__`` where the class has one."""
    scope: dict[str, Any] = {"_set": object.__setattr__, "_MISSING": _MISSING}
    parameters, body = [], []
    for number, one in enumerate(listed):
        if one.default_factory is not _MISSING:
            scope[f"_factory{number}"] = one.default_factory
            value = f"_factory{number}()"
            if one.init:
                parameters.append(f"{one.name}=_MISSING")
                value = f"_factory{number}() if {one.name} is _MISSING else {one.name}"
        elif one.default is not _MISSING and one.init:
            scope[f"_default{number}"] = one.default
            parameters.append(f"{one.name}=_default{number}")
            value = one.name
        elif one.init:
            parameters.append(one.name)
            value = one.name
        else:
            continue  # (the class's default, or set by __post_init__)
        body.append(f"  _set(self, {one.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + ("\n".join(body) or "  pass") + "\n"
    exec(source, scope)  # (the source is made above from the class's own field names)
    made = scope["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    return made


def _repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"

    return __repr__


def _comparison(key: Callable[[Any], tuple], compare: Callable[[tuple, tuple], bool]) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return compare(key(self), key(other))

    return method


def _refuse(cls: type, names: frozenset[str], what: str) -> Callable[..., None]:
    def method(self: Any, name: str, *value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenError(f"cannot {what} field {name!r}")
        getattr(super(cls, self), "__setattr__" if value else "__delattr__")(name, *value)

    return method


class _DataclassFields:
    """A class's ``__dataclass_fields__``, what ``dataclasses.replace``, ``fields`` and ``asdict`` read: the fields
    of a dataclass of the same names, defaults and roles, made by ``dataclasses`` on first look (and kept)."""

    def __get__(self, record: Any, cls: type) -> dict:
        made = cls.__dict__.get("_dataclass_fields_made")
        if made is None:
            import dataclasses

            namespace: dict[str, Any] = {"__module__": cls.__module__, "__annotations__": {}}
            for one in cls.__record_fields__:  # type: ignore[attr-defined]
                namespace["__annotations__"][one.name] = Any
                namespace[one.name] = dataclasses.field(
                    default=dataclasses.MISSING if one.default is _MISSING else one.default,
                    default_factory=dataclasses.MISSING if one.default_factory is _MISSING else one.default_factory,
                    init=one.init, repr=one.repr, compare=one.compare)
            shadow: type = dataclasses.dataclass(frozen=True)(type(cls.__name__, (), namespace))
            made = shadow.__dict__["__dataclass_fields__"]
            type.__setattr__(cls, "_dataclass_fields_made", made)
        return made
