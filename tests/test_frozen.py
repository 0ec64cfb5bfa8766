"""``fileindex.frozen`` builds what ``@dataclass(frozen=True)`` builds: each class body here is made both ways and
the two held equal in construction, defaults, repr, equality, hashing, ordering, refused assignment, pickling and
what ``dataclasses.replace``, ``fields`` and ``asdict`` make of them."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileindex import frozen as records
from fileindex.table.manifest_entry import ManifestEntry
from fileindex.values import Timestamp


def bodies(field):
    """The class bodies (as namespaces), made with ``field``: records' or dataclasses'."""
    return {
        "plain": {"__annotations__": {"a": "int", "b": "str"}},
        "defaults": {"__annotations__": {"a": "int", "b": "str", "c": "tuple"}, "b": "x", "c": (1, 2)},
        "roles": {"__annotations__": {"a": "int", "memo": "dict", "shown": "int", "later": "int"},
                  "memo": field(default_factory=dict, compare=False, repr=False),
                  "shown": field(default=5, repr=False), "later": field(default=7, init=False)},
        "post-init": {"__annotations__": {"a": "int", "double": "int"}, "double": field(init=False),
                      "__post_init__": lambda self: object.__setattr__(self, "double", 2 * self.a)},
        "no fields": {},
    }


def made(kind: str, body: str, **options):
    namespace = dict(bodies(records.field if kind == "records" else dataclasses.field)[body], __module__=__name__)
    cls = type(body.title().replace("-", "").replace(" ", ""), (), namespace)
    return records.frozen(cls, **options) if kind == "records" else dataclasses.dataclass(frozen=True, **options)(cls)


ARGUMENTS = {"plain": [(1, "a"), (1, "b"), (2, "a")], "defaults": [(1,), (1, "y"), (1, "x", (3,))],
             "roles": [(1,), (1, {"k": 1}), (1, {}, 6), (2,)], "post-init": [(1,), (3,)], "no fields": [()]}


def seen(instance, dataclass_view: bool = True) -> dict:
    """What an instance shows: repr (class name aside), its attributes, and dataclasses' view of it."""
    view = {"repr": repr(instance).partition("(")[2], "vars": vars(instance), "match": type(instance).__match_args__}
    if dataclass_view:
        view.update(fields=[(f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(instance)],
                    asdict=dataclasses.asdict(instance))
    return view


# the records at module level, where pickle finds their classes by name
RECORDS = {body: made("records", body, order=True) for body in ARGUMENTS}
globals().update({cls.__name__: cls for cls in RECORDS.values()})


@pytest.mark.parametrize("body", list(ARGUMENTS))
def test_a_record_is_made_as_a_frozen_dataclass_is(body):
    ours, theirs = RECORDS[body], made("dataclasses", body, order=True)
    for arguments in ARGUMENTS[body]:
        mine, expected = ours(*arguments), theirs(*arguments)
        assert seen(mine) == seen(expected)
        assert hash(mine) == hash(expected)
        copied = pickle.loads(pickle.dumps(mine))
        assert type(copied) is ours and copied == mine and seen(copied) == seen(mine)
        assert copy.deepcopy(mine) == mine
        if ours.__match_args__:
            first = ours.__match_args__[0]
            with pytest.raises(records.FrozenError, match=f"cannot assign to field '{first}'"):
                setattr(mine, first, 9)
            with pytest.raises(AttributeError):
                delattr(mine, first)
            changed = dataclasses.replace(mine, **{first: 9})
            assert seen(changed) == seen(dataclasses.replace(expected, **{first: 9}))
            assert seen(records.replace(mine, **{first: 9})) == seen(changed)
        for other in ARGUMENTS[body]:
            pairs = ((mine, ours(*other)), (expected, theirs(*other)))
            for compare in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
                assert [getattr(left, compare)(right) for left, right in pairs].count(
                    getattr(pairs[1][0], compare)(pairs[1][1])) == 2, (compare, arguments, other)
    assert ours(*ARGUMENTS[body][0]) != theirs(*ARGUMENTS[body][0])  # (another class: never equal)


def test_a_class_keeps_the_methods_it_defines():
    @records.frozen
    class Kept:
        a: int

        def __repr__(self) -> str:
            return "kept"

        def __hash__(self) -> int:
            return 7

    assert repr(Kept(1)) == "kept" and hash(Kept(1)) == 7 and Kept(1) == Kept(1) != Kept(2)


def test_an_instance_of_a_subclass_refuses_its_parents_fields_only():
    @records.frozen
    class Parent:
        a: int

    class Child(Parent):
        pass

    child = Child(1)
    child.note = "free"  # (as a frozen dataclass's plain subclass takes attributes of its own)
    with pytest.raises(records.FrozenError):
        child.a = 2


@given(st.tuples(st.integers(-10**12, 10**12), st.integers(0, 999_999)),
       st.tuples(st.integers(-10**12, 10**12), st.integers(0, 999_999)))
def test_a_records_order_is_its_fields_tuple(left, right):
    assert (Timestamp(*left) < Timestamp(*right)) == (left < right)
    assert (Timestamp(*left) == Timestamp(*right)) == (left == right)


def test_the_packages_records_are_dataclasses_to_dataclasses():
    assert dataclasses.is_dataclass(ManifestEntry) and not isinstance(ManifestEntry.__dataclass_fields__, property)
    assert [f.name for f in dataclasses.fields(ManifestEntry)][:2] == list(ManifestEntry.__match_args__[:2])


def test_a_records_init_is_compiled_once_it_has_made_enough_instances():
    """Defining a record compiles nothing (a module defines records a run may never make), nor do its first
    ``COMPILED_AFTER`` instances (a cold read makes most kinds 50 times or fewer): the next one compiles ``__init__``
    and puts it in the class; every instance is made alike."""
    cls, theirs = made("records", "defaults"), made("dataclasses", "defaults")
    standing_in = cls.__dict__["__init__"]
    assert standing_in.__qualname__ == "Defaults.__init__"
    for number in range(records.COMPILED_AFTER):
        assert seen(cls(number, "y")) == seen(theirs(number, "y")) and cls.__dict__["__init__"] is standing_in
    assert seen(cls(1, b="z")) == seen(theirs(1, b="z"))
    compiled = cls.__dict__["__init__"]
    assert compiled is not standing_in and compiled.__qualname__ == "Defaults.__init__"
    assert seen(cls(2)) == seen(theirs(2)) and cls.__dict__["__init__"] is compiled


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("body", list(ARGUMENTS))
def test_a_records_init_takes_and_refuses_what_a_dataclasss_does(body, compiled, monkeypatch):
    """Bound without compiling (the first instances) or compiled: the same fields, factories called once an
    instance, ``__post_init__`` run; a call that does not bind raises the ``TypeError`` a dataclass raises."""
    monkeypatch.setattr(records, "COMPILED_AFTER", 0 if compiled else 10**6)
    ours, theirs = made("records", body), made("dataclasses", body)
    for arguments in ARGUMENTS[body]:
        assert seen(ours(*arguments)) == seen(theirs(*arguments))
        names = ours.__match_args__
        by_name = dict(zip(names, arguments, strict=False))
        assert seen(ours(**by_name)) == seen(theirs(**by_name))
    if body == "roles":
        assert ours(1).memo is not ours(1).memo  # (a factory called for each instance)
    for args, kwargs in [((), {}), ((1, 2, 3, 4, 5, 6), {}), ((1,), {"unknown": 2}), ((1,), {"a": 1}),
                         ((), {"later": 1})]:
        assert outcome(ours, args, kwargs) == outcome(theirs, args, kwargs), (args, kwargs)


def outcome(cls, args: tuple, kwargs: dict):
    """What ``cls(*args, **kwargs)`` shows, or the message of the TypeError it raises."""
    try:
        return seen(cls(*args, **kwargs))
    except TypeError as err:
        return str(err)
