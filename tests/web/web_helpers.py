"""A page server for the tests: the Starlette app on a free loopback port, in a thread."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request


class Running:
    """``jaxsolve serve`` in this process (``url``; ``get``/``post`` return (status, JSON))."""

    def __init__(self, service):
        from jaxsolve.web.server import build_app, make_server

        self.service = service
        self.server, sock = make_server(build_app(service), "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the page server did not start")
            time.sleep(0.02)

    def request(self, method: str, path: str, body=None, raw: bytes | None = None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def get(self, path: str):
        return self.request("GET", path)

    def post(self, path: str, body=None, raw: bytes | None = None):
        return self.request("POST", path, body, raw)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.service.close()
