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
        self.stdout_path = self.directory / "stdout"
        self.stdout = self.stdout_path.open("w")
        self.proc = self.execute(
            [
                PARLEY, "serve",
                "--host", hostname,
                "--port", "0",
                "--irc-port", str(port),
                "--irc-guests",
                "--data", str(self.directory / "data"),
                # The suite's accounts have 6-byte passwords, and it registers many.
                "--min-password-length", "6",
                "--max-registrations", "0",
                # The suite writes lines as fast as it can; flood limits are tested elsewhere.
                "--irc-line-rate", "0",
                "--log-level", "warning",
            ],
            stdout=self.stdout,
            env={**os.environ, "PARLEY_BCRYPT_COST": "4"},
        )
        self.ws_url = self._read_ws_url()

    def _read_ws_url(self) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.check_is_alive()
            text = self.stdout_path.read_text()
            found = re.search(r"listening on (ws://\S+)", text)
            if found:
                return found.group(1)
            time.sleep(0.05)
        raise RuntimeError("parley serve did not say where it listens")

    def registerUser(self, case, username: str, password: Optional[str] = None) -> None:  # type: ignore[no-untyped-def]
        """Registers through Parley's shell: the handle is the nick."""
        assert self.directory
        script = f"/register {username}@example.com --handle {username} --password {password or 'password-' + username}\n"
        subprocess.run(
            [PARLEY, "--server", self.ws_url, "--data", tempfile.mkdtemp(dir=self.directory)],
            input=script.encode(),
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=120,
        )

    def wait_for_services(self) -> None:
        """Accounts are Parley's own: there are no separate services to wait for."""
        self.wait_for_port()

    def kill(self) -> None:
        super().kill()
        if getattr(self, "stdout", None):
            self.stdout.close()


def get_irctest_controller_class() -> Type[ParleyController]:
    return ParleyController
