"""No test asserts how long something took, and none sends a signal after a fixed sleep: on a loaded machine both
fail on timing, not on answers (the README's test command went red so). Timings belong in the benchmarks
(tools/bench_*.py); a test that signals a process waits for the state it needs (a readiness line, a file)."""
import ast

from conftest import ROOT

CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}
SIGNALS = {"send_signal", "kill", "killpg", "raise_signal", "terminate"}
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def sources():
    return [p for p in sorted((ROOT / "tests").rglob("*.py")) if "vectors" not in p.parts]


def _calls(node: ast.AST, names: set[str], owner: str | None = None) -> bool:
    """Whether ``node`` calls ``owner.<one of names>`` (any owner when None)."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in names:
            if owner is None or (isinstance(call.func.value, ast.Name) and call.func.value.id == owner):
                return True
    return False


def timed_assertions(tree: ast.AST) -> list[int]:
    """Lines of asserts that order a value read from a clock (directly, or through a name set from one)."""
    found = []
    for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        timed = {target.id for node in ast.walk(function) if isinstance(node, ast.Assign)
                 and _calls(node.value, CLOCKS, "time") for target in node.targets if isinstance(target, ast.Name)}
        for node in ast.walk(function):
            if not isinstance(node, ast.Assert):
                continue
            for compare in (c for c in ast.walk(node.test) if isinstance(c, ast.Compare)):
                operands = [compare.left, *compare.comparators]
                clocked = any(_calls(o, CLOCKS, "time") or any(isinstance(n, ast.Name) and n.id in timed
                                                                 for n in ast.walk(o)) for o in operands)
                if clocked and any(isinstance(op, ORDERING) for op in compare.ops):
                    found.append(node.lineno)
    return found


def signals_after_a_sleep(tree: ast.AST) -> list[int]:
    """Lines of statements that send a signal right after a fixed ``time.sleep``."""
    found = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, after in zip(body, body[1:], strict=False):
            if _calls(before, {"sleep"}, "time") and isinstance(before, ast.Expr) and _calls(after, SIGNALS):
                found.append(after.lineno)
    return found


def test_no_test_asserts_a_duration_or_signals_after_a_fixed_sleep():
    problems = []
    for path in sources():
        tree = ast.parse(path.read_text())
        where = path.relative_to(ROOT)
        problems += [f"{where}:{line}: asserts a duration" for line in timed_assertions(tree)]
        problems += [f"{where}:{line}: signals after a fixed sleep" for line in signals_after_a_sleep(tree)]
    assert problems == []


def test_the_checks_find_what_they_look_for():
    timed = ast.parse("def test():\n    started = time.monotonic()\n    run()\n"
                      "    assert time.monotonic() - started < 60\n    assert x < 3\n")
    assert timed_assertions(timed) == [4]
    slept = ast.parse("def test():\n    time.sleep(2)\n    process.send_signal(2)\n    wait(p)\n    os.kill(1, 2)\n")
    assert signals_after_a_sleep(slept) == [3]
