"""Parley's controller for irctest, the IRC servers' conformance suite.

irctest (https://github.com/progval/irctest) is not part of Parley: scripts/irctest.sh
fetches it into a folder of its own and runs it with this file on its path:

    pytest --controller parley_controller ...

Each test starts `parley serve --irc-port PORT --irc-guests` on a fresh data folder;
`registerUser` makes an account through Parley's own shell, as a person would.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional, Set, Type

from irctest.basecontrollers import BaseServerController, DirectoryBasedController
from irctest.runner import NotImplementedByController
from irctest.specifications import Capabilities

PARLEY = os.environ.get("PARLEY_BIN", "parley")

# The suite's IRC operator: an account that is one of the server's admins, made once
# into a data folder each test starts from a copy of.
OPER_NAME, OPER_PASSWORD = "operuser", "operpassword"
_template: Optional[Path] = None


def _serve(data: Path, port: int, hostname: str, stdout) -> subprocess.Popen:  # type: ignore[no-untyped-def]
    return subprocess.Popen(
        [
            PARLEY, "serve",
            "--host", hostname,
            "--port", "0",
            "--irc-port", str(port),
            "--irc-guests",
            # The names every irctest controller gives its server.
            "--irc-server-name", "My.Little.Server",
            "--irc-server-info", "test server",
            "--admin", "@" + OPER_NAME,
            "--data", str(data),
            # The suite's accounts have passwords of 3 to 6 bytes, and it registers many.
            "--min-password-length", "3",
            "--max-registrations", "0",
            # The server's own flood control (10 lines a second, the rest waiting their
            # turn): the suite passes under it. PARLEY_IRC_LINE_RATE overrides it.
            *(["--irc-line-rate", os.environ["PARLEY_IRC_LINE_RATE"]] if "PARLEY_IRC_LINE_RATE" in os.environ else []),
            "--log-level", "warning",
        ],
        stdout=stdout,
        env={**os.environ, "PARLEY_BCRYPT_COST": "4"},
        # irctest stops a server by its process group: one of its own.
        start_new_session=True,
    )


def _read_ws_url(stdout_path: Path, proc: subprocess.Popen) -> str:  # type: ignore[type-arg]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("parley serve exited: " + stdout_path.read_text())
        found = re.search(r"listening on (ws://\S+)", stdout_path.read_text())
        if found:
            return found.group(1)
        time.sleep(0.05)
    raise RuntimeError("parley serve did not say where it listens")


def _register(ws_url: str, scratch: Path, username: str, password: str) -> None:
    """Registers through Parley's shell, as a person would: the handle is the nick."""
    script = f"/register {username}@example.com --handle {username} --password {password}\n"
    subprocess.run(
        [PARLEY, "--server", ws_url, "--data", tempfile.mkdtemp(dir=scratch)],
        input=script.encode(),
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=120,
    )


def _template_data(hostname: str) -> Path:
    """A data folder holding the operator's account (made on first use)."""
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="parley-irctest-template-"))
        log = folder / "stdout"
        with log.open("w") as stdout:
            proc = _serve(folder / "data", 0, hostname, stdout)
            try:
                _register(_read_ws_url(log, proc), folder, OPER_NAME, OPER_PASSWORD)
            finally:
                proc.terminate()
                proc.wait(timeout=60)
        _template = folder / "data"
    return _template


class ParleyController(BaseServerController, DirectoryBasedController):
    software_name = "Parley"
    supported_sasl_mechanisms: Set[str] = {"PLAIN"}
    supports_sts = False
    capabilities = frozenset(
        [
            Capabilities.ECHO_MESSAGE,
            Capabilities.MESSAGE_TAGS,
            Capabilities.SERVER_TIME,
            Capabilities.ACCOUNT_TAG,
            Capabilities.EXTENDED_JOIN,
            Capabilities.AWAY_NOTIFY,
            Capabilities.MULTI_PREFIX,
            Capabilities.BATCH,
            Capabilities.LABELED_RESPONSE,
        ]
    )

    def run(
        self,
        hostname: str,
        port: int,
        *,
        password: Optional[str],
        ssl: bool,
        run_services: bool,
        faketime: Optional[str],
        websocket_hostname: Optional[str],
        websocket_port: Optional[int],
    ) -> None:
        if password is not None:
            # PASS is an account's password in Parley, not a password for the server.
            raise NotImplementedByController("server password")
        if ssl:
            raise NotImplementedByController("TLS")
        if websocket_hostname is not None or websocket_port is not None:
            raise NotImplementedByController("IRC over WebSocket")
        assert self.proc is None
        self.port = port
        self.hostname = hostname
        self.create_config()
        assert self.directory
        shutil.copytree(_template_data(hostname), self.directory / "data")
        self.stdout_path = self.directory / "stdout"
        self.stdout = self.stdout_path.open("w")
        self.proc = _serve(self.directory / "data", port, hostname, self.stdout)
        self.ws_url = _read_ws_url(self.stdout_path, self.proc)

    def registerUser(self, case, username: str, password: Optional[str] = None) -> None:  # type: ignore[no-untyped-def]
        assert self.directory
        _register(self.ws_url, self.directory, username, password or "password-" + username)

    def wait_for_services(self) -> None:
        """Accounts are Parley's own: there are no separate services to wait for."""
        self.wait_for_port()

    def kill(self) -> None:
        super().kill()
        if getattr(self, "stdout", None):
            self.stdout.close()


def get_irctest_controller_class() -> Type[ParleyController]:
    return ParleyController
