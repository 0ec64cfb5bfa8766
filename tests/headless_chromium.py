"""Headless Chromium (Debian's ``chromium``) driven over the Chrome DevTools Protocol: load a page at a given
window size, wait for its images, evaluate JavaScript, take screenshots. Used by the browser tests of the docs."""
from __future__ import annotations

import base64
import functools
import http.server
import itertools
import json
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import websocket  # websocket-client

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")  # a container's small /dev/shm would crash the renderer
TIMEOUT = 60.0
# resolves once the page has loaded and every image has loaded or failed
IMAGES_SETTLED = """Promise.all([...document.images].map(i => i.complete ? null :
    new Promise(done => { i.addEventListener('load', done); i.addEventListener('error', done); })))"""


def executable() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """One browser process with a fresh profile, and its first tab."""

    def __init__(self, width: int = 1280, height: int = 900):
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        self.process = subprocess.Popen(
            [executable(), *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
             "--remote-debugging-address=127.0.0.1", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ids = itertools.count(1)
        self.events: list[str] = []
        try:
            port = self._port()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=TIMEOUT) as answer:
                tab = next(t for t in json.load(answer) if t["type"] == "page")
            self.socket = websocket.create_connection(tab["webSocketDebuggerUrl"], timeout=TIMEOUT,
                                                      suppress_origin=True)
            self.call("Page.enable")
            self.resize(width, height)
        except BaseException:
            self.close()
            raise

    def _port(self) -> int:
        """Chromium writes the port it chose into the profile as the first line of DevToolsActivePort."""
        marker = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode} before listening")
            lines = marker.read_text().splitlines() if marker.is_file() else []
            if len(lines) >= 2:
                return int(lines[0])
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its DevTools port")

    def call(self, method: str, **params) -> dict:
        """Send one command and return its result; the names of events that arrive meanwhile are kept."""
        ident = next(self.ids)
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            if "method" in message:
                self.events.append(message["method"])

    def wait_for(self, event: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while event not in self.events:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {event} within {TIMEOUT:.0f} s")
            message = json.loads(self.socket.recv())
            if "method" in message:
                self.events.append(message["method"])

    def resize(self, width: int, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def open(self, url: str) -> None:
        """Navigate and wait for the load event and the images."""
        self.events = []
        self.call("Emulation.setFocusEmulationEnabled", enabled=True)  # :focus styles apply, as in a window in front
        result = self.call("Page.navigate", url=url)
        if "errorText" in result:
            raise RuntimeError(f"{url}: {result['errorText']}")
        self.wait_for("Page.loadEventFired")
        self.evaluate(IMAGES_SETTLED)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, *, full_page: bool = False) -> None:
        params = {"format": "png"}
        if full_page:
            width, height = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
            params.update(captureBeyondViewport=True, clip=clip)
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", **params)["data"]))

    def close(self) -> None:
        if getattr(self, "socket", None) is not None:
            self.socket.close()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class LoopbackServer:
    """Serve a folder over http://127.0.0.1 on a free port, in a thread."""

    def __init__(self, folder: Path):
        handler = functools.partial(QuietHandler, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
