"""What went wrong in a Spark job, in one line: the first cause a task raised, with its file.

Spark reports a failed task as the whole Python traceback wrapped in Java exceptions (and, in its logs,
several times over: the log4j configuration silences those loggers for the pipeline's sessions).
``first_cause`` keeps the line that says what was raised, without the traceback or the module path of
this project's own error types, whose messages already name the file.
"""
from __future__ import annotations

import re

_RAISED = re.compile(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception)): (.*)$")
_JAVA_CAUSE = "Caused by: "
_OS_ERROR = re.compile(r"^\[Errno \d+\] (.+?): '(.+)'$")
_OWN = "fileindex."


def first_cause(err: Exception) -> str:
    """The error the failed task raised (the last ``...Error: message`` line of Spark's report)."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    raised = [line for line in lines if _RAISED.match(line)]
    if not raised:  # an error of the JVM's own (a Java exception): its deepest cause
        causes = [line.removeprefix(_JAVA_CAUSE) for line in lines if line.startswith(_JAVA_CAUSE)]
        raised = [cause for cause in causes if _RAISED.match(cause)]
    if not raised:
        return (lines[0] if lines else type(err).__name__)[:500]
    line = raised[-1]
    match = _RAISED.match(line)
    assert match is not None  # picked above by the same pattern
    name, message = match.groups()
    os_error = _OS_ERROR.match(message)
    if os_error:  # FileNotFoundError: [Errno 2] No such file or directory: '/data/x.parquet'
        return f"{os_error.group(2)}: {os_error.group(1)}"[:500]
    return (message if line.startswith(_OWN) else f"{name}: {message}")[:500]
