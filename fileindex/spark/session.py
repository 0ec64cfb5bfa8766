"""One way to get a Spark session for the pipeline: local mode by default, any cluster by its URL.

``spark_session()`` starts ``local[*]`` bound to the loopback address, with the running interpreter
for the Python workers, Arrow on, Spark's logging at WARN and the web UI off (``ui=True`` turns it
on). ``master`` (``spark://host:7077``, ``yarn``, ``local[2]``) and ``conf`` pass through. Under
``spark-submit`` (or wherever a session is already running) the active session is used as it is.
Java is checked first, so a missing or old JDK is one message, not a JVM stack trace.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from typing import Mapping

from fileindex.errors import FileIndexError

MIN_JAVA = 17


class SparkSetupError(FileIndexError):
    """Spark cannot start here: no pyspark, or no suitable Java. The message says what to install."""


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


def _loopback(master: str) -> bool:
    return master.startswith("local") or re.match(r"spark://(127\.0\.0\.1|localhost)[:/]", master) is not None


def spark_session(master: str | None = None, conf: Mapping[str, str] | None = None, *, ui: bool = False,
                  app_name: str = "fileindex"):
    """The session the pipeline runs on (see the module docstring)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkSetupError("the Spark pipeline needs pyspark: pip install 'paimon-fileindex[spark]'") from None
    active = SparkSession.getActiveSession()
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit launched this interpreter
    if active is not None or (submitted and master is None):
        session = active or SparkSession.builder.appName(app_name).getOrCreate()
        _prepare(session)
        return session
    check_java()
    master = master or "local[*]"
    settings = {
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": str(ui).lower(),
        "spark.ui.showConsoleProgress": "false",
    }
    log_config = f"-Dlog4j2.configurationFile={resources.files(__package__) / 'log4j2.properties'}"
    settings["spark.driver.extraJavaOptions"] = log_config
    settings["spark.executor.extraJavaOptions"] = log_config
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
    session = builder.getOrCreate()
    _prepare(session)
    return session


def _prepare(session) -> None:
    session.sparkContext.setLogLevel("WARN")
    from fileindex.spark.datasource import register

    register(session)

