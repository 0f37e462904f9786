"""The page's HTTP side: Starlette routes over ``api.Service``, served by uvicorn.

Routes (JSON in and out; every error is ``{"error": "one message"}`` with a 4xx status, a bug
a 500 with the same shape, and the server goes on):

- ``GET /api/games``: the registry (presets, rules options, advisor options, play settings).
- ``POST /api/games/{game}/advise``: ``{"rules", "overrides", "options"}`` -> every option
  ranked (value, regret, ties), as ``jaxsolve advise`` ranks them.
- ``POST /api/games/{game}/values``: ``{"rules", "overrides", "questions": [options, ...]}``
  -> one answer per question (value, options) in one request.
- ``POST /api/games/{game}/play``: ``{"rules", "overrides", "settings": {"seed", ...}}`` -> a
  new game in play; ``GET /api/play/{id}``, ``POST /api/play/{id}/move`` (``{"throw": dice or
  null}`` or ``{"choice": rank or name}``), ``POST /api/play/{id}/undo``,
  ``GET /api/play/{id}/review``.
- ``POST /api/games/{game}/status``: ``{"rules", "overrides"}`` -> whether the table those rules
  need is solved already (``where``: memory, disk or null) and else ``estimate_seconds``;
  ``POST /api/games/{game}/warm``: solve and cache it ahead of the first question (a job).
- ``GET /api/play/{id}/distribution``: the final score's distribution under optimal play (the
  rules of that game; the category games).
- ``GET /api/play/{id}/win``: in a game against computer opponents (``settings.opponents``), your
  probability to finish first at this decision, each option's by its label, or why it is not
  offered (a job of its own: the board does not wait for it).
- ``GET /api/warming``: the tables ``serve`` solves at start (every game's default preset, one
  after the other): each one's state (waiting, solving with its progress, ready, failed), how
  many are ready, the time left of the one being solved at its rate so far, and the memory the
  kept tables take (``Service.warming``).
- ``GET /api/jobs/{id}``: a request still being worked on (answered ``202`` with its job id):
  elapsed seconds, the solution store's notes, ``progress`` (``{done, total, label,
  eta_seconds}``: the layers the solve's progress bars have done of all, the layer, the
  seconds left at the rate so far; null until a bar reports), ``joined`` (the job whose solve of the
  same rules it waits for) and ``about`` (the game and rules whose table it needs); then the
  answer. Every request is a job on a pool of threads (``jobs``). A job nobody asks about for
  ``jobs.ABANDON`` seconds is cancelled; asked for then, it is answered ``410``.
- ``GET /``: the page (``static/``).

Only this computer's pages talk to it (a local server is reachable from any page the browser
shows, and by DNS rebinding from any site; see ``Guard``): a request must name the server in its
``Host`` header (the address it listens on with its port; ``localhost`` too for a loopback
address), else ``421``; a request that says it comes from another page (``Origin``) is refused
with ``403``; a request that changes state (``POST``) must send ``Content-Type:
application/json`` (what a cross-site form or a plain ``fetch`` without preflight cannot send),
else ``415``; no answer carries CORS headers. Bodies are bounded in size and nesting.

A solve that runs out of memory (``MemoryError``, or XLA's ``RESOURCE_EXHAUSTED``) is answered
``507 Insufficient Storage`` with one message: the request is well formed (a 4xx would blame
it), the server cannot hold what it needs on this computer and goes on serving (a 5xx other
than 500, which means a bug); smaller rules or a bigger machine answer it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import json
import logging
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from jaxsolve.errors import JaxsolveError
from jaxsolve.web.api import ApiError, Job, Service, plain
from jaxsolve.web.jobs import Abandoned

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1 << 20
MAX_DEPTH = 32  # JSON nesting a request may have (the API's bodies need 4)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"), (b"referrer-policy", b"no-referrer")]
log = logging.getLogger("jaxsolve.web")


@dataclass
class Hosts:
    """The ``Host`` header values the server answers: ``name:port`` for each of ``names`` (a
    bracketed IPv6 address, ``[::1]``; the bare name too on port 80), any IP address with the
    port where ``any_address`` (a server on every interface is reached by this computer's
    addresses), and every value where ``anything`` (``--allow-host '*'``)."""

    port: int | None = None
    names: set[str] = field(default_factory=set)
    any_address: bool = False
    anything: bool = False

    @classmethod
    def bound(cls, host: str, port: int, allow: Iterable[str] = ()) -> Hosts:
        """The hosts of a server listening on ``host``:``port`` (the port it got), with the
        names in ``allow`` (``*``: any)."""
        hosts = cls(port=port)
        name = host.strip("[]").lower()
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            address = None
        hosts.names.add(f"[{address}]" if address is not None and address.version == 6 else name)
        if name == "localhost" or (address is not None and (address.is_loopback or address.is_unspecified)):
            hosts.names.update({"localhost", "127.0.0.1", "[::1]"} if address is None or address.is_unspecified else {"localhost"})
        hosts.any_address = address is not None and address.is_unspecified
        for extra in allow:
            extra = extra.strip().lower()
            if extra == "*":
                hosts.anything = True
            elif extra:
                hosts.names.add(extra)
        return hosts

    def accepts(self, value: str) -> bool:
        if self.anything:
            return True
        if self.port is None:
            return False
        value = value.strip().lower()
        name, sep, port = value.rpartition(":")
        if not sep or name.endswith(":") or (name.startswith("[") != name.endswith("]")):
            name, port = value, ""  # no port (or a bare IPv6 address, which a browser never sends)
        if port != str(self.port) and not (port == "" and self.port == 80):
            return False
        if name in self.names:
            return True
        if self.any_address:
            try:
                ipaddress.ip_address(name.strip("[]") if name.startswith("[") else name)
            except ValueError:
                return False
            return True
        return False


class Guard:
    """ASGI middleware: the checks of the module's doc (``Host``, ``Origin``, ``Content-Type``)
    before any route, and headers that keep the page out of other sites' frames and its JSON
    from being read as anything else. The hosts are ``app.state.hosts`` (``make_server`` sets
    them once the socket is bound; none answer before)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refused = self.refusal(scope)
        if refused is not None:
            message, status = refused
            return await error(message, status)(scope, receive, send)

        async def send_with_headers(event):
            if event["type"] == "http.response.start":
                event = {**event, "headers": [*event.get("headers", []), *HEADERS]}
            await send(event)

        return await self.app(scope, receive, send_with_headers)

    @staticmethod
    def refusal(scope) -> tuple[str, int] | None:
        headers: dict[bytes, bytes] = {}
        for k, v in scope.get("headers", []):
            headers.setdefault(k.lower(), v)
        host = headers.get(b"host", b"").decode("latin-1")
        app = scope.get("app")
        hosts: Hosts = getattr(getattr(app, "state", None), "hosts", None) or Hosts()
        if not hosts.accepts(host):
            shown = repr(host[:80]) if host else "none"
            return f"this server does not answer for the host {shown} (only a page this computer opened from its own address may ask; see jaxsolve serve --help)", 421
        origin = headers.get(b"origin")
        if origin is not None:
            text = origin.decode("latin-1")
            if text.strip().lower() != f"http://{host.strip().lower()}":
                return f"requests from another page ({text[:80]!r}) are refused", 403
        if scope["method"] not in SAFE_METHODS:
            kind = headers.get(b"content-type", b"").decode("latin-1")
            media = kind.split(";", 1)[0].strip().lower()
            has_body = headers.get(b"content-length", b"0").strip() not in (b"", b"0") or b"transfer-encoding" in headers
            if (kind or has_body) and media != "application/json":
                return f"a {scope['method']} request must send Content-Type: application/json (got {kind[:60] or 'none'})", 415
        return None


class Json(JSONResponse):
    """JSON with NaN and infinities as null (``api.plain``)."""

    def render(self, content) -> bytes:
        return json.dumps(plain(content), allow_nan=False, separators=(",", ":")).encode("utf-8")


def error(message: str, status: int = 400) -> Json:
    return Json({"error": message}, status_code=status)


async def read_body(request: Request) -> dict:
    """The request's JSON object; at most ``MAX_BODY`` bytes (a larger ``Content-Length`` is
    refused before reading, a longer stream as soon as it passes the limit) and ``MAX_DEPTH``
    levels of nesting."""
    too_large = ApiError(f"the request body is larger than {MAX_BODY >> 10} KiB", 413)
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.strip().isdigit()):
            raise ApiError(f"malformed Content-Length {length[:40]!r}")
        if int(length) > MAX_BODY:
            raise too_large
    parts, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        parts.append(chunk)
    raw = b"".join(parts)
    if not raw.strip():
        return {}
    too_deep = ApiError(f"the JSON in the request body is nested more than {MAX_DEPTH} levels deep")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, or a number of more than 4,300 digits
        raise ApiError(f"malformed JSON in the request body ({getattr(exc, 'msg', exc)})") from None
    except RecursionError:
        raise too_deep from None
    if not isinstance(body, dict):
        raise ApiError("the request body must be a JSON object")
    if _depth(body) > MAX_DEPTH:
        raise too_deep
    return body


def _depth(value) -> int:
    """Nesting depth of parsed JSON (a scalar 0, ``[]`` or ``{}`` 1), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                return deepest
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def outcome(job: Job) -> Response:
    """A finished job's answer, or its error as one message."""
    try:
        return Json(job.future.result())
    except ApiError as exc:
        return error(str(exc), exc.status)
    except JaxsolveError as exc:
        return error(str(exc), 400)
    except MemoryError:
        return error("out of memory on this computer; try smaller rules", 507)
    except (Abandoned, concurrent.futures.CancelledError):
        return error("this request was cancelled: nobody asked for its answer for a while; ask again", 410)
    except Exception as exc:  # a bug: say so, keep serving (but XLA's out of memory is none)
        if type(exc).__name__ in ("JaxRuntimeError", "XlaRuntimeError") and "RESOURCE_EXHAUSTED" in str(exc):
            return error("out of memory on the device; try smaller rules", 507)
        log.error("request failed:\n%s", "".join(traceback.format_exception(exc)))
        return error(f"internal error: {type(exc).__name__}: {exc}", 500)


def _retrieved(future: asyncio.Future) -> None:
    """Take a finished job's error off the future that awaited it: the answer is ``outcome``'s
    (a poll of the job), not a "never retrieved" traceback in the server's log."""
    if not future.cancelled():
        future.exception()


class _Handlers:
    """The page's request handlers over one ``Service``."""

    def __init__(self, service: Service):
        self.service = service

    async def answer(self, what: str, make) -> Response:
        """Check the request (``make()`` returns the work and what orders its job,
        ``Service.order``), run the work as a job on the pool and answer within
        ``Service.wait`` seconds, or with ``202`` and the job to poll."""
        try:
            work, order = await make()
            job = self.service.submit(what, work, **order)
        except ApiError as exc:
            return error(str(exc), exc.status)
        except JaxsolveError as exc:
            return error(str(exc), 400)
        waited = asyncio.wrap_future(job.future)
        waited.add_done_callback(_retrieved)
        try:
            await asyncio.wait_for(asyncio.shield(waited), self.service.wait)
        except asyncio.TimeoutError:
            return Json({**job.info(), "pending": True}, status_code=202)
        except asyncio.CancelledError:
            if not job.future.cancelled():  # this request was cancelled, not its job
                raise
        except Exception:  # noqa: BLE001  the job's own error is answered by outcome()
            pass
        return outcome(job)

    async def games(self, request: Request) -> Response:
        return Json(self.service.catalog())

    def game_route(self, kind: str):
        calls = {"advise": self.service.advise_call, "values": self.service.values_call, "play": self.service.new_game_call, "status": self.service.status_call, "warm": self.service.warm_call}

        async def handler(request: Request) -> Response:
            name = request.path_params["game"]

            async def make():
                body = await read_body(request)
                work = calls[kind](name, body)
                return work, self.service.order(kind, name, body)

            return await self.answer(f"{kind} {name}", make)

        return handler

    def play_route(self, kind: str):
        async def handler(request: Request) -> Response:
            pid = request.path_params["pid"]

            async def make():
                if kind == "move":
                    return self.service.move_call(pid, await read_body(request)), self.service.order(kind, pid, None)
                self.service.known(pid)  # 404 at once for an unknown game
                calls = {"undo": self.service.undo_call, "state": self.service.state_call, "review": self.service.review_call, "distribution": self.service.distribution_call, "win": self.service.win_call}
                return calls[kind](pid), self.service.order(kind, pid, None)

            return await self.answer(f"{kind} {pid}", make)

        return handler

    async def job(self, request: Request) -> Response:
        try:
            j = self.service.job(request.path_params["jid"])
        except ApiError as exc:
            return error(str(exc), exc.status)
        if not j.future.done():
            return Json({**j.info(), "pending": True}, status_code=202)
        return outcome(j)

    async def warming(self, request: Request) -> Response:
        return Json(self.service.warming())

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def http_error(self, request: Request, exc: HTTPException) -> Response:
        message = {404: f"nothing at {request.url.path}", 405: f"{request.method} is not allowed at {request.url.path}"}.get(exc.status_code, str(exc.detail))
        return error(message, exc.status_code)

    async def crash(self, request: Request, exc: Exception) -> Response:
        log.error("request failed:\n%s", "".join(traceback.format_exception(exc)))
        return error(f"internal error: {type(exc).__name__}: {exc}", 500)


def build_app(service: Service | None = None) -> Starlette:
    """The Starlette application over ``service`` (a new ``Service`` by default)."""
    service = service or Service()
    h = _Handlers(service)
    routes = [
        Route("/", h.index),
        Route("/api/games", h.games),
        *(Route(f"/api/games/{{game}}/{kind}", h.game_route(kind), methods=["POST"]) for kind in ("advise", "values", "play", "status", "warm")),
        Route("/api/play/{pid}", h.play_route("state")),
        Route("/api/play/{pid}/move", h.play_route("move"), methods=["POST"]),
        Route("/api/play/{pid}/undo", h.play_route("undo"), methods=["POST"]),
        Route("/api/play/{pid}/review", h.play_route("review")),
        Route("/api/play/{pid}/distribution", h.play_route("distribution")),
        Route("/api/play/{pid}/win", h.play_route("win")),
        Route("/api/warming", h.warming),
        Route("/api/jobs/{jid}", h.job),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers: dict[Any, Callable[..., Any]] = {HTTPException: h.http_error, Exception: h.crash}
    app = Starlette(routes=routes, exception_handlers=handlers, middleware=[Middleware(Guard)])
    app.state.service = service
    app.state.hosts = None
    return app


def make_server(app, host: str = "127.0.0.1", port: int = 0, sock=None, allow_hosts: Iterable[str] = ()):
    """A uvicorn server for ``app`` (quiet: warnings only) and the socket it will serve on
    (bound here, so that a port in use is an error before anything starts and port 0 picks a
    free one); ``app`` answers the ``Host`` values of that address (``Hosts.bound``, with the
    names in ``allow_hosts``)."""
    import socket

    import uvicorn

    if sock is None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Connections accepted from it inherit TCP_NODELAY: a keep-alive answer written in two
        # parts (head, body) then goes out at once, not after the client's delayed ACK (~40 ms).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise JaxsolveError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        except (OverflowError, socket.gaierror) as exc:
            sock.close()
            raise JaxsolveError(f"cannot listen on {host}:{port}: {exc}") from None
        sock.listen(128)
    app.state.hosts = Hosts.bound(host, sock.getsockname()[1], allow_hosts)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
    return uvicorn.Server(config), sock
