"""The web client over HTTP, on a phone's network: a real uvicorn serving the client's
files gzip'd when the browser asks, each under a versioned address cached for a year,
the page revalidated at each load (a 304 while unchanged), a changed file at a new
address; the page preloads every module of the client at once; the web app manifest
names the app, its landscape full screen and its icons."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_support import LOOSE_CONFIG

from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread
from baohuang.web import STATIC_DIR

YEAR = "public, max-age=31536000, immutable"
#: what the page names: its stylesheet, script, preloaded modules, manifest and icons
LOCAL = re.compile(r'\b(?:href|src)="(/[^"#]*)"')


@pytest.fixture
def client_dir(tmp_path: Path) -> Path:
    """A copy of the client's files, which a test may change."""
    copy = tmp_path / "static"
    shutil.copytree(STATIC_DIR, copy)
    return copy


@pytest.fixture
def server(tmp_path: Path, client_dir: Path) -> Iterator[ServerThread]:
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'web.db'}", **LOOSE_CONFIG)
    with ServerThread(config, client_dir) as running:
        yield running


def named_by_page(page: str) -> list[str]:
    return LOCAL.findall(page)


def test_every_file_of_the_page_is_gzipped_for_a_browser_that_asks(
        server: ServerThread) -> None:
    with httpx.Client(base_url=server.url, headers={"Accept-Encoding": "gzip"}) as http:
        page = http.get("/")
        assert page.headers["content-encoding"] == "gzip"
        files = named_by_page(page.text)
        assert len(files) >= 25, files
        saved = total = 0
        for path in files:
            raw = http.get(path)          # (httpx undoes the gzip: .content is the file)
            assert raw.status_code == 200, path
            plain = httpx.get(server.url + path, headers={"Accept-Encoding": "identity"})
            assert "content-encoding" not in plain.headers, path
            assert raw.content == plain.content, path
            if path.endswith(".png"):     # (compressed already)
                assert "content-encoding" not in raw.headers, path
                continue
            assert "accept-encoding" in raw.headers["vary"].lower(), path
            if len(plain.content) >= 500:
                assert raw.headers["content-encoding"] == "gzip", path
                sent = int(raw.headers["content-length"])
                assert sent < len(plain.content) * 0.6, (path, sent, len(plain.content))
                saved += len(plain.content) - sent
            total += len(plain.content)
        # most of the client's bytes stay at home
        assert saved > total / 2, (saved, total)
        # the API is not compressed: its JSON may carry a session's token next to what a
        # request sent (a compression oracle)
        rules = http.get("/api/rules")
        assert rules.status_code == 200 and "content-encoding" not in rules.headers


def test_versioned_files_are_kept_for_a_year_and_the_page_is_revalidated(
        server: ServerThread) -> None:
    with httpx.Client(base_url=server.url) as http:
        page = http.get("/")
        assert page.headers["cache-control"] == "no-cache"
        etag = page.headers["etag"]
        again = http.get("/", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
        builds = set()
        for path in named_by_page(page.text):
            versioned = re.fullmatch(r"/s/([0-9a-f]{16})/(.+)", path)
            assert versioned is not None, path
            build, name = versioned.groups()
            builds.add(build)
            answer = http.get(path)
            assert answer.headers["cache-control"] == YEAR, path
            # the same file at its plain name (for scripts that import it by name) is
            # revalidated, never kept
            assert http.get("/" + name).headers["cache-control"] == "no-cache", name
        assert len(builds) == 1
        worker = http.get("/sw.js")
        assert worker.headers["cache-control"] == "no-cache"
        assert worker.headers["content-type"].startswith("text/javascript")
        assert http.get("/sw.js", headers={"If-None-Match": worker.headers["etag"]}
                        ).status_code == 304
        # another build's folder has nothing
        assert http.get("/s/0123456789abcdef/app.js").status_code == 404


def test_a_changed_file_gets_a_new_address(server: ServerThread, client_dir: Path) -> None:
    with httpx.Client(base_url=server.url) as http:
        before = http.get("/")
        assert http.get("/").text == before.text              # stable while nothing changes
        old = named_by_page(before.text)
        old_css = next(p for p in old if p.endswith("/style.css"))
        css = client_dir / "style.css"
        css.write_text(css.read_text() + "\n.changed { color: red; }\n")
        after = http.get("/", headers={"If-None-Match": before.headers["etag"]})
        assert after.status_code == 200 and after.headers["etag"] != before.headers["etag"]
        new = named_by_page(after.text)
        new_css = next(p for p in new if p.endswith("/style.css"))
        assert new_css != old_css
        assert ".changed" in http.get(new_css).text
        assert http.get(old_css).status_code == 404
        # the service worker is a new one too, naming the new folder
        assert new_css.rsplit("/", 1)[0] + "/" in http.get("/sw.js").text


def test_the_manifest_names_an_installable_landscape_app(server: ServerThread) -> None:
    with httpx.Client(base_url=server.url) as http:
        page = http.get("/").text
        href = re.search(r'<link rel="manifest" href="([^"]+)"', page)
        assert href is not None
        answer = http.get(href.group(1))
        assert answer.headers["content-type"] == "application/manifest+json"
        manifest = json.loads(answer.content)
        assert manifest["name"] == "保皇" and manifest["short_name"]
        assert manifest["display"] in ("fullscreen", "standalone")
        assert manifest["orientation"] == "landscape"
        assert manifest["start_url"] == "/" and manifest["theme_color"].startswith("#")
        sizes = set()
        for icon in manifest["icons"]:
            url = httpx.URL(server.url + href.group(1)).join(icon["src"])
            body = http.get(url).content
            if icon["type"] == "image/png":
                # a real PNG of the size it claims
                assert body[:8] == b"\x89PNG\r\n\x1a\n"
                width, height = struct.unpack(">II", body[16:24])
                assert icon["sizes"] == f"{width}x{height}"
                sizes.add(width)
        assert {192, 512} <= sizes
        assert re.search(r'<meta name="description" content="[^"]{20,}">', page)


IMPORT = re.compile(r"""\b(?:import|export)\b[^'";]*?\bfrom\s*'(\.[^']+)'|\bimport\s*'(\.[^']+)'""")


def imports_of(module: Path) -> set[Path]:
    text = module.read_text(encoding="utf-8")
    return {(module.parent / (a or b)).resolve() for a, b in IMPORT.findall(text)}


def test_the_page_preloads_every_module_the_client_imports() -> None:
    """index.html names every module app.js imports, directly or not, for the browser to
    fetch at once: a module added to the client must be added there too."""
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    preloaded = {(STATIC_DIR / href).resolve()
                 for href in re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)}
    entry = (STATIC_DIR / "app.js").resolve()
    seen: set[Path] = set()
    todo = [entry]
    while todo:
        module = todo.pop()
        for found in imports_of(module) - seen:
            seen.add(found)
            todo.append(found)
    assert len(seen) >= 22
    missing = sorted(p.relative_to(STATIC_DIR).as_posix() for p in seen - preloaded)
    stale = sorted(p.relative_to(STATIC_DIR).as_posix() for p in preloaded - seen)
    assert missing == [] and stale == [], (f"index.html: add <link rel=\"modulepreload\"> "
                                           f"for {missing}, remove {stale}")


def test_gzip_is_what_the_browser_gets(server: ServerThread) -> None:
    """The bytes on the wire are gzip's (read without httpx's decoding)."""
    with httpx.Client(base_url=server.url) as http:
        path = next(p for p in named_by_page(http.get("/").text) if p.endswith("/table.js"))
        with http.stream("GET", path, headers={"Accept-Encoding": "gzip"}) as answer:
            wire = b"".join(answer.iter_raw())
        assert gzip.decompress(wire) == (STATIC_DIR / "table.js").read_bytes()
