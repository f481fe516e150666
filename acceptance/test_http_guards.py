"""The daemon's HTTP guards, attacked as a program on the machine (a
model's cell, say) without the token would: a web page's rebound name, and
thousands of connections that never finish a request or were refused.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import unittest
import urllib.error
import urllib.request

from harness import Albedo, binary

# The descriptors the daemon gets in the slow-connections test. The attack
# first sends more requests without the token than that, holding each
# connection, then opens as many again that never finish their head.
DAEMON_FILES = 1024
REFUSED = DAEMON_FILES + 100
ATTACK = REFUSED + DAEMON_FILES


class FewFilesAlbedo(Albedo):
    """A daemon started with at most DAEMON_FILES file descriptors."""

    def _start(self, *, not_pid=None) -> None:
        def few_files():
            resource.setrlimit(resource.RLIMIT_NOFILE, (DAEMON_FILES, DAEMON_FILES))

        subprocess.run(
            [str(binary()), "sessions"], cwd=self.workspace, env=self.env(),
            capture_output=True, timeout=60, check=True, preexec_fn=few_files,
        )
        self.connection = self._read_connection(not_pid=not_pid)


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class HttpGuardTest(unittest.TestCase):
    def test_a_rebound_name_is_refused_before_the_token(self):
        with Albedo() as app:
            port = app.connection["port"]
            for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.1:1"):
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/sessions",
                    headers={"Host": host, "Authorization": f"Bearer {app.connection['token']}"},
                )
                with self.assertRaises(urllib.error.HTTPError) as caught:
                    urllib.request.urlopen(request, timeout=30)
                body = json.loads(caught.exception.read())
                self.assertEqual(caught.exception.code, 403, host)
                self.assertEqual(body["code"], "forbidden", host)
                self.assertIn("ALBEDO_ALLOWED_HOSTS", body["error"])
            for host in (f"localhost:{port}", f"LOCALHOST:{port}"):
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/health",
                    headers={"Host": host, "Authorization": f"Bearer {app.connection['token']}"},
                )
                with urllib.request.urlopen(request, timeout=30) as answer:
                    self.assertEqual(answer.status, 200, host)

    def test_slow_connections_do_not_crowd_out_the_token(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard < ATTACK + 256:
            self.fail(f"this test opens {ATTACK} sockets; the hard limit of open files is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, ATTACK + 256), hard))
        self.addCleanup(resource.setrlimit, resource.RLIMIT_NOFILE, (soft, hard))
        with FewFilesAlbedo() as app:
            port, pid = app.connection["port"], app.connection["pid"]
            held = []
            try:
                # None reads what comes back.
                for i in range(ATTACK):
                    s = socket.socket()
                    held.append(s)
                    s.settimeout(30)
                    s.connect(("127.0.0.1", port))
                    if i < REFUSED:
                        s.sendall(f"GET /sessions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                    else:
                        s.sendall(b"GET /sessions HTTP/1.1\r\nHost: ")
                with app.api("/health") as answer:
                    self.assertEqual(answer.status, 200)
                self.assertLess(open_files(pid), DAEMON_FILES, "the daemon's descriptors ran out")
                with app.api("/sessions") as answer:
                    self.assertEqual(answer.status, 200)
            finally:
                for s in held:
                    s.close()


if __name__ == "__main__":
    unittest.main()
