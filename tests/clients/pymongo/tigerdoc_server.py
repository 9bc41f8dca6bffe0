"""The real tigerdoc server for driver tests: started from the binary named by
$TIGERDOC_BINARY on a free loopback port with a fresh data directory, stopped
with SIGTERM (then SIGKILL) at the end. Nothing is mocked."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TigerdocServer:
    def __init__(self, binary=None, extra_args=()):
        self.binary = binary or os.environ.get("TIGERDOC_BINARY")
        if not self.binary or not os.access(self.binary, os.X_OK):
            raise RuntimeError("set TIGERDOC_BINARY to the tigerdoc server binary")
        self.extra_args = list(extra_args)
        self.dir = tempfile.mkdtemp(prefix="tigerdoc-pymongo-")
        self.port = None
        self.proc = None

    @property
    def uri(self):
        return "mongodb://127.0.0.1:%d/?directConnection=true&serverSelectionTimeoutMS=10000" % self.port

    def start(self):
        self.port = free_port()
        dbpath = os.path.join(self.dir, "db")
        os.makedirs(dbpath, exist_ok=True)
        self.log = open(os.path.join(self.dir, "server.log"), "ab")
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind_ip", "127.0.0.1",
             "--dbpath", dbpath, "--cacheSizeMB", "64"] + self.extra_args,
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self._fail_start("tigerdoc exited at start")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self._fail_start("tigerdoc did not listen within 20 s")

    def _fail_start(self, what):
        # No test will stop a server that never started: remove it and its
        # directory here, keeping its log in the error.
        output = self.output()
        self.stop()
        raise RuntimeError(what + ":\n" + output)

    def output(self):
        self.log.flush()
        with open(os.path.join(self.dir, "server.log"), "rb") as f:
            return f.read().decode("utf-8", "replace")[-4000:]

    def stop_expecting_clean_exit(self):
        """Stops the server and removes its directory (also when the checks
        fail); then fails with the server's log if it had died before, or
        with its exit status if it did not exit with 0."""
        alive = self.proc is not None and self.proc.poll() is None
        output = "" if alive else self.output()
        code = self.stop()
        assert alive, "tigerdoc died during the tests:\n" + output
        assert code == 0, "tigerdoc exited with status %d" % code

    def stop(self):
        """Idempotent: stops the server if it runs and removes its directory."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        code = self.proc.returncode if self.proc else 0
        shutil.rmtree(self.dir, ignore_errors=True)
        return code
