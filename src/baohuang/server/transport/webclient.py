"""The web client over HTTP, made to load fast on a phone's network and to install as
an app.

* ``/s/BUILD/…``: the static files under a versioned folder, BUILD a hash of every
  file's name and bytes (so a changed file has a new address), cached for a year
  (``Cache-Control: public, max-age=31536000, immutable``); another BUILD is not found.
* ``/`` (and ``/index.html``): the page, ``index.html`` with every file of the client
  it names moved under ``/s/BUILD/`` and the client's version in its
  ``<meta name="baohuang-version">``; revalidated at each load (``no-cache`` and an
  ``ETag``: 304 while unchanged).
* ``/sw.js``: the service worker (``static/sw.js``), its first line ``self.BUILD =
  {…}`` naming the version, the folder and the files it keeps for loading offline; a
  new build is a new worker, which replaces the old one and its cache.  Revalidated.
* any other path: the static file of that name (scripts and older pages that name
  ``/api.js`` and such), revalidated.

All of it is gzip'd for a browser that accepts it (Starlette's ``GZipMiddleware``).
Neither the API (JSON that may carry a session's token next to what a request sent) nor
the WebSocket go through this application.

The build follows the files: a page load that finds one changed (by its size or
modification time) hashes them again, so that a developer's edit shows at the next
reload.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     root = Path(tmp)
...     _ = (root / "index.html").write_text('<script src="app.js"></script>')
...     _ = (root / "app.js").write_text("import './i18n.js';")
...     _ = (root / "i18n.js").write_text("export default {};")
...     build = StaticBuild(root)
...     first = build.current()
...     _ = (root / "i18n.js").write_text("export default {zh: 1};")
...     os.utime(root / "i18n.js", ns=(1, 1))
...     second = build.current()
>>> first.files
('app.js', 'i18n.js')
>>> first.page.decode() == f'<script src="/s/{first.build}/app.js"></script>'
True
>>> first.build != second.build
True
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route, Router
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ... import __version__

__all__ = ["IMMUTABLE", "REVALIDATE", "Build", "StaticBuild", "web_client"]

#: a versioned file's: kept by every cache for a year, never asked for again
IMMUTABLE: Final = "public, max-age=31536000, immutable"
#: the page's, the service worker's and an unversioned file's: asked again (a 304 while
#: unchanged) at every use
REVALIDATE: Final = "no-cache"
#: the files that are not kept under the versioned folder: the page and the worker are
#: served by their own routes, at fixed addresses
UNVERSIONED: Final = frozenset(("index.html", "sw.js"))
#: an attribute of index.html naming a file of the client by a relative address
_LOCAL_URL = re.compile(r'\b(href|src)="([A-Za-z0-9_][A-Za-z0-9_./-]*)"')
_VERSION_META = re.compile(r'(<meta name="baohuang-version" content=")[^"]*(")')


@dataclass(frozen=True, slots=True)
class Build:
    """One state of the static files: its hash ``build``, the client's ``version`` (the
    package's version and the hash), the files under the versioned folder, the page and
    the service worker as served, and their ETags."""

    build: str
    version: str
    files: tuple[str, ...]
    page: bytes
    page_etag: str
    worker: bytes
    worker_etag: str

    @property
    def base(self) -> str:
        """The versioned folder's address, ``/s/BUILD/``."""
        return f"/s/{self.build}/"


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


class StaticBuild:
    """The static folder's current :class:`Build`, hashed again when a file changed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._build: Build | None = None

    def _scan(self) -> tuple[tuple[str, int, int], ...]:
        found = []
        for path in sorted(self.root.rglob("*")):
            name = path.relative_to(self.root).as_posix()
            if path.is_file() and not any(part.startswith(".") for part in name.split("/")):
                stat = path.stat()
                found.append((name, stat.st_size, stat.st_mtime_ns))
        return tuple(found)

    def current(self) -> Build:
        """The build of the files as they are now."""
        signature = self._scan()
        if self._build is None or signature != self._signature:
            self._build = self._make(tuple(name for name, _, _ in signature))
            self._signature = signature
        return self._build

    @property
    def last(self) -> Build:
        """The build the last page load saw (without looking at the files again)."""
        return self._build or self.current()

    def _make(self, names: tuple[str, ...]) -> Build:
        digest = hashlib.sha256()
        for name in names:
            digest.update(name.encode() + b"\0")
            digest.update(hashlib.sha256((self.root / name).read_bytes()).digest())
        build = digest.hexdigest()[:16]
        version = f"{__version__}+{build[:8]}"
        files = tuple(name for name in names if name not in UNVERSIONED)
        known = frozenset(files)

        def versioned(match: re.Match[str]) -> str:
            attr, name = match.group(1), match.group(2)
            return f'{attr}="/s/{build}/{name}"' if name in known else match.group(0)

        index = self.root / "index.html"
        html = index.read_text(encoding="utf-8") if index.is_file() else ""
        html = _VERSION_META.sub(lambda m: m.group(1) + version + m.group(2),
                                 _LOCAL_URL.sub(versioned, html))
        page = html.encode()
        worker_file = self.root / "sw.js"
        head = {"version": version, "base": f"/s/{build}/", "files": list(files)}
        worker = (f"self.BUILD = {json.dumps(head, ensure_ascii=False)};\n".encode()
                  + (worker_file.read_bytes() if worker_file.is_file() else b""))
        return Build(build, version, files, page, _etag(page), worker, _etag(worker))


class CachedStaticFiles(StaticFiles):
    """Starlette's static files with a ``Cache-Control`` of their own."""

    def __init__(self, *, directory: Path, cache_control: str) -> None:
        super().__init__(directory=directory)
        self.cache_control = cache_control

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result,
                      scope: Scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        return response


class _Versioned:
    """The static files under ``/s/BUILD/``: found for the current BUILD only."""

    def __init__(self, builds: StaticBuild) -> None:
        self.builds = builds
        self.files = CachedStaticFiles(directory=builds.root, cache_control=IMMUTABLE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        build = self.builds.last
        name = scope.get("path_params", {}).get("build")
        if name != build.build or scope["path"].rsplit("/", 1)[-1] in UNVERSIONED:
            await Response("Not Found", status_code=404, media_type="text/plain")(
                scope, receive, send)
            return
        await self.files(scope, receive, send)


def _revalidated(request: Request, body: bytes, etag: str, media_type: str) -> Response:
    headers = {"ETag": etag, "Cache-Control": REVALIDATE}
    if etag in [tag.strip() for tag in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def web_client(static_dir: Path) -> ASGIApp:
    """The application that serves the web client of ``static_dir`` (mounted at ``/``
    after the API's routes and the WebSocket's)."""
    builds = StaticBuild(static_dir)

    async def page(request: Request) -> Response:
        build = builds.current()
        return _revalidated(request, build.page, build.page_etag, "text/html")

    async def worker(request: Request) -> Response:
        build = builds.current()
        return _revalidated(request, build.worker, build.worker_etag, "text/javascript")

    router = Router(routes=[
        Route("/", page, methods=["GET", "HEAD"]),
        Route("/index.html", page, methods=["GET", "HEAD"]),
        Route("/sw.js", worker, methods=["GET", "HEAD"]),
        Mount("/s/{build}", app=_Versioned(builds)),
        Mount("/", app=CachedStaticFiles(directory=static_dir, cache_control=REVALIDATE)),
    ])
    return GZipMiddleware(router)
