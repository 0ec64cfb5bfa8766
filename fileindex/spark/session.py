"""One way to get a Spark session for the pipeline: local mode by default, any cluster by its URL.

``start_session()`` starts ``local[*]`` bound to the loopback address, with the running interpreter
for the Python workers, Arrow on, Spark's logging at WARN and the web UI off (``ui=True`` turns it
on). ``master`` (``spark://host:7077``, ``yarn``, ``local[2]``) and ``conf`` pass through. Under
``spark-submit`` (or wherever a session is already running) the active session is used as it is.
Java is checked first, so a missing or old JDK is one message, not a JVM stack trace; so is a
``spark://`` master that does not answer (Spark itself retries for a minute without naming it).
``check_workers`` runs a one-task probe on every session the pipeline uses, so that Python workers
that cannot import this package (another interpreter) are one message saying what to set.

The lowest of the Spark modules: the jobs (``jobs``) and the data source (``datasource``) import it, never
the other way round.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources

from fileindex.errors import FileIndexError
from fileindex.extras import install_hint
from fileindex.spark.jvm_stderr import incubator_warning_dropped

MIN_JAVA = 17
MASTER_TIMEOUT = 5.0  # seconds to wait for a spark:// master to accept a connection
NO_EXECUTOR_SECONDS = 15.0  # a cluster gives an application its executors within seconds; none by then: say so
SPARK_MODULES = ("pyspark", "py4j", "pandas")  # what the [spark] extra installs


class SparkSetupError(FileIndexError):
    """Spark cannot start here: no pyspark, no suitable Java, an unreachable master, Python workers
    without this package. The message says what to install or set."""


def missing_spark(err: ImportError) -> SparkSetupError | None:
    """The setup error for an ImportError of a module the ``[spark]`` extra installs (None for others)."""
    name = getattr(err, "name", None)
    if not name:  # pyspark's own check for pandas: "[PACKAGE_NOT_INSTALLED] Pandas >= 2.2.0 must be installed"
        match = re.search(r"No module named '([\w.]+)'|\] (\w+) >= [\d.]+ must be installed", str(err))
        name = (match.group(1) or match.group(2)) if match else ""
    name = name.split(".")[0].lower()
    if name not in SPARK_MODULES:
        return None
    return SparkSetupError(f"the Spark pipeline needs the [spark] extra (No module named {name!r}): "
                           f"{install_hint('spark')}")


def java_version(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def check_java() -> None:
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    where = f"JAVA_HOME={home}" if home else "PATH"
    if not java or not os.path.exists(java):
        raise SparkSetupError(f"Spark needs Java {MIN_JAVA} or newer and found no java on {where}: install a JDK "
                              "(e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME to one")
    version = java_version(java)
    if version is None or version < MIN_JAVA:
        found = f"Java {version}" if version else "a java that does not report its version"
        raise SparkSetupError(f"Spark needs Java {MIN_JAVA} or newer; {java} is {found}: install a newer JDK "
                              "(e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME to one")


# the master URLs Spark parses (SparkContext.createTaskScheduler); any other scheme is a cluster manager's (k8s://)
LOCAL_MASTER = re.compile(r"local(\[(\d+|\*)(\s*,\s*\d+)?\])?|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]")
OTHER_MASTER = re.compile(r"yarn|[a-z][a-z0-9+.-]*://.+")


def check_master(master: str) -> None:
    """A master URL Spark can parse; a ``spark://`` master (or any of a list, for standby masters) must accept
    a connection."""
    if not (LOCAL_MASTER.fullmatch(master) or OTHER_MASTER.fullmatch(master)):
        raise SparkSetupError(f"--master {master}: not a master URL Spark takes: write local[*], local[N], "
                              "spark://HOST:PORT, yarn or k8s://HOST:PORT")
    if not master.startswith("spark://"):
        return
    problems = []
    for address in master[len("spark://"):].split(","):
        host, _, port = address.rstrip("/").rpartition(":")
        if not host or not port.isdigit():
            raise SparkSetupError(f"--master {master}: write spark://HOST:PORT")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=MASTER_TIMEOUT).close()
            return
        except OSError as err:
            problems.append(f"{host}:{port}: {err.strerror or err or 'timed out'}")
    raise SparkSetupError(f"cannot reach the Spark master {master} ({'; '.join(problems)}): is it running, and is "
                          "--master its URL (shown on the master's web UI)?")


def _loopback(master: str) -> bool:
    return master.startswith("local") or re.match(r"spark://(127\.0\.0\.1|localhost)[:/]", master) is not None


@contextmanager
def caller_sigint_handler_kept() -> Iterator[None]:
    """A new SparkContext's SIGINT handler cancels the jobs through py4j, from inside whatever py4j call Ctrl-C
    interrupted ("reentrant call", a hundred lines of tracebacks), and raises a KeyboardInterrupt of its own; so
    the context never installs it (the session is made in seconds to minutes, and Ctrl-C may come at any point):
    the caller's handler stays (a KeyboardInterrupt, then the command's cleanup)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    install = signal.signal

    def sigint_kept(signum, handler):
        return signal.getsignal(signum) if signum == signal.SIGINT else install(signum, handler)

    signal.signal = sigint_kept  # pyspark's context module calls signal.signal(SIGINT, ...)
    try:
        yield
    finally:
        signal.signal = install


def start_session(master: str | None = None, conf: Mapping[str, str] | None = None, *, ui: bool = False,
                  app_name: str = "fileindex"):
    """The session the pipeline runs on (see the module docstring), without the data source, which is a layer
    above (``fileindex.spark.spark_session`` registers it)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as err:
        raise (missing_spark(err) or err) from None
    active = SparkSession.getActiveSession()
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit launched this interpreter
    if active is not None or (submitted and master is None):
        session = active or SparkSession.builder.appName(app_name).getOrCreate()
        _prepare(session)
        return session
    master = master or "local[*]"
    check_master(master)
    check_java()
    settings = {
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": str(ui).lower(),
        "spark.ui.showConsoleProgress": "false",
        # a Python worker's exception reaches the driver as its last line, not its traceback: the data source's
        # one-line refusal stays a few lines in Spark's AnalysisException, not 14-28 (Spark 4's own setting)
        "spark.sql.execution.pyspark.udf.hideTraceback.enabled": "true",
    }
    settings["spark.driver.extraJavaOptions"] = settings["spark.executor.extraJavaOptions"] = java_options()
    if master.startswith("local"):
        settings["spark.sql.shuffle.partitions"] = "4"
    if _loopback(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        settings["spark.driver.host"] = "127.0.0.1"
        settings["spark.driver.bindAddress"] = "127.0.0.1"
    settings.update(conf or {})
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in settings.items():
        builder = builder.config(key, value)
    with incubator_warning_dropped(), caller_sigint_handler_kept():
        session = builder.getOrCreate()
    _quiet_task_failures(session)
    _prepare(session)
    return session


# A failed task is reported by the pipeline in one line (its first cause, see failures.py); these loggers
# report it too, repeating the Python traceback and a Java stack three to five times (100-220 lines).
# Set on the running JVM: naming them in log4j2.properties makes Spark announce a "default log level".
TASK_FAILURE_LOGGERS = ("org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager",
                        "org.apache.spark.storage.BlockManager", "org.apache.spark.api.python")


def _quiet_task_failures(session) -> None:
    jvm = session.sparkContext._jvm
    for name in TASK_FAILURE_LOGGERS:
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, jvm.org.apache.logging.log4j.Level.OFF)


def _prepare(session) -> None:
    session.sparkContext.setLogLevel("WARN")
    check_workers(session)


_checked_applications: set[str] = set()


def _say_if_no_executor(context) -> None:
    """One line on stderr when a cluster gave the application no executor: Spark waits for one for ever, saying
    only in its log that the job "has not accepted any resources" (Ctrl-C ends the wait)."""
    master = context.master
    try:
        executors = context._jsc.sc().getExecutorMemoryStatus().size() - 1  # (the driver is listed too)
    except Exception:  # a session stopping meanwhile: nothing to say
        return
    if master.startswith("spark://") and executors <= 0:
        print(f"fileindex: Spark has no executor for this job after {NO_EXECUTOR_SECONDS:.0f} s: is a worker with "
              f"free cores and memory running for {master}? (still waiting; Ctrl-C ends)", file=sys.stderr, flush=True)


def check_workers(session) -> None:
    """Spark's Python workers can import this package and what its tasks need, or a SparkSetupError
    saying which interpreter they run and what to set. Once per Spark application (one tiny task)."""
    context = session.sparkContext
    application = context.applicationId
    if application in _checked_applications:
        return
    from pyspark import cloudpickle

    from fileindex.spark import worker_probe
    from fileindex.spark.failures import first_cause

    cloudpickle.register_pickle_by_value(worker_probe)  # the probe must run where fileindex is missing
    fix = (f"set PYSPARK_PYTHON (or spark.pyspark.python) to a Python that has paimon-fileindex installed, such "
           f"as this one ({sys.executable}), before the session starts; on a cluster, install paimon-fileindex in "
           "the workers' Python")
    waiting = threading.Timer(NO_EXECUTOR_SECONDS, _say_if_no_executor, (context,))
    waiting.daemon = True
    waiting.start()
    try:
        executable, version, missing = context.parallelize([0], 1).mapPartitions(worker_probe.probe).first()
    except Exception as err:  # py4j and pyspark raise their own classes; the message says what failed
        raise SparkSetupError(f"Spark's Python workers do not start ({first_cause(err)}): {fix}") from None
    finally:
        waiting.cancel()
    if missing:
        configured = context.getConf().get("spark.pyspark.python", None) or os.environ.get("PYSPARK_PYTHON")
        shown = configured or executable  # a venv's python reports the interpreter it links to
        raise SparkSetupError(f"Spark's Python workers run {shown} (Python {version}), which cannot import "
                              f"{', '.join(missing)}: {fix}")
    _checked_applications.add(application)



def java_options() -> str:
    """The JVMs' options: the project's log configuration, and an exit where a JVM runs out of heap (a driver
    out of memory otherwise hangs the command, its event loop dead; exiting, the job fails in one line)."""
    log_config = f"-Dlog4j2.configurationFile={resources.files(__package__) / 'log4j2.properties'}"
    return f"{log_config} -XX:+ExitOnOutOfMemoryError"
