"""References to sections of the docs cannot rot: every ``rules.md §N`` (or
``§N.M``) in the code, tests, benchmarks and docs names a heading that exists in
docs/rules.md, every ``protocol.md §N`` one of docs/protocol.md, every bare
``§N`` inside a doc one of that doc's own headings, and nothing cites the
numbering of another rules document (``RULES.md §N``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: where references are looked for
SCANNED = ("src", "tests", "bench", "docs", "README.md", "ARCHITECTURE.md")
SUFFIXES = {".py", ".md", ".js", ".ts", ".html", ".css", ".txt", ".toml", ".yml", ".yaml"}
SKIPPED_DIRS = {"__pycache__", "node_modules"}

_NUMBER = r"\d+(?:\.\d+)*"
#: a heading that opens a numbered section: "## 6. Before play", "### 6.1 The Emperor"
_HEADING = re.compile(rf"^#{{1,6}}\s+({_NUMBER})\.?\s", re.MULTILINE)
#: one section, or a range of them: "§6.1", "§6–7"
_SECTION = re.compile(rf"§\s*({_NUMBER})(?:\s*[–-]\s*({_NUMBER}))?")
#: "rules.md §3", "docs/rules.md §8.1, §8.2", "rules.md` §2 and §9"
_REFERENCE = re.compile(
    rf"\b(rules|protocol)\.md[`*)\]]*\s*((?:§\s*{_NUMBER}(?:\s*[–-]\s*{_NUMBER})?"
    rf"(?:\s*(?:,|;|and|or|&)\s*(?=§))?)+)")
#: the numbering of a rules document that is not docs/rules.md
_FOREIGN = re.compile(r"\bRULES(?:\.md)?\s*§")


def sections(doc: Path) -> set[str]:
    """The section numbers of ``doc``'s headings."""
    return set(_HEADING.findall(doc.read_text(encoding="utf-8")))


def problems(text: str, known: dict[str, set[str]], own: str | None = None) -> list[str]:
    """What is wrong with the section references in ``text``: each cited number
    that is not a heading of the document cited (``known`` maps "rules" and
    "protocol" to their section numbers), and each citation of a foreign
    numbering.  ``own`` names the document ``text`` is, if it is one of them:
    then a bare ``§N`` cites its own sections."""
    out: list[str] = []
    for m in _FOREIGN.finditer(text):
        out.append(f"cites another document's numbering: {text[m.start():m.end() + 8]!r}")
    covered: list[tuple[int, int]] = []
    for m in _REFERENCE.finditer(text):
        doc = m.group(1)
        covered.append(m.span())
        for first, last in _SECTION.findall(m.group(2)):
            out += [f"{doc}.md §{n} does not exist" for n in (first, last)
                    if n and n not in known[doc]]
    if own is not None:
        for m in _SECTION.finditer(text):
            if any(a <= m.start() < b for a, b in covered):
                continue
            out += [f"§{n} is not a section of {own}.md" for n in m.groups()
                    if n and n not in known[own]]
    return out


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [p for p in sorted(path.rglob("*"))
                      if p.is_file() and p.suffix in SUFFIXES
                      and not SKIPPED_DIRS & set(p.relative_to(ROOT).parts)
                      and not any(part.endswith(".egg-info") for part in p.parts)]
    return [p for p in files if p != Path(__file__).resolve()]


KNOWN = {"rules": sections(DOCS / "rules.md"), "protocol": sections(DOCS / "protocol.md")}


def test_the_docs_have_numbered_sections() -> None:
    assert {"1", "2", "3", "4", "5", "6", "6.1", "6.7", "7", "8", "9", "10"} <= KNOWN["rules"]
    assert {"1", "2", "4.3"} <= KNOWN["protocol"]


def test_every_section_reference_exists() -> None:
    found: list[str] = []
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        own = {DOCS / "rules.md": "rules", DOCS / "protocol.md": "protocol"}.get(path)
        found += [f"{path.relative_to(ROOT)}: {p}" for p in problems(text, KNOWN, own)]
    assert not found, "\n".join(found)


def test_the_scan_finds_the_references() -> None:
    text = (ROOT / "src" / "baohuang" / "engine" / "plays.py").read_text(encoding="utf-8")
    assert _REFERENCE.search(text), "plays.py cites docs/rules.md §3"


@pytest.mark.parametrize(("text", "bad"), [
    ("beating (docs/rules.md §3)", []),
    ("scores (docs/rules.md §8.1, §8.2) and tribute", []),
    ("see [rules.md §2](rules.md#2-cards) and `docs/rules.md` §6.1", []),
    ("托管 (docs/rules.md §99)", ["rules.md §99 does not exist"]),
    ("scores (docs/rules.md §8.1, §8.9)", ["rules.md §8.9 does not exist"]),
    ("a range (docs/rules.md §6–77)", ["rules.md §77 does not exist"]),
    ("an error code (docs/protocol.md §4.3)", []),
    ("an error code (docs/protocol.md §4.9)", ["protocol.md §4.9 does not exist"]),
    ("the default policy of RULES.md §7.", ["another document's numbering"]),
    ("on 托管, RULES §7)", ["another document's numbering"]),
])
def test_problems(text: str, bad: list[str]) -> None:
    found = problems(text, KNOWN)
    assert len(found) == len(bad) and all(b in f for b, f in zip(bad, found, strict=True)), found


def test_a_doc_cites_its_own_sections() -> None:
    assert problems("as in §6.1 and §12", KNOWN, own="rules") == []
    assert problems("as in §14", KNOWN, own="rules") == ["§14 is not a section of rules.md"]
    assert problems("see docs/rules.md §2 and §5", KNOWN, own="protocol") == []


def test_the_protocol_lists_every_client_message_in_one_table() -> None:
    """docs/protocol.md §4.1 is one Markdown table (no paragraph splitting its rows, which
    would stop the later rows from showing as a table) with a row for every message kind
    the server decodes, and no other."""
    from baohuang.server.wire.protocol import CLIENT_TYPES

    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("### 4.1"):text.index("### 4.2")]
    lines = section.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("| type"))
    end = next(i for i in range(first, len(lines)) if not lines[i].startswith("|"))
    rows = [line.split("`")[1] for line in lines[first + 2:end]]
    assert sorted(rows) == sorted(CLIENT_TYPES)
    assert not [line for line in lines[end:] if line.startswith("| `")]


def _rows(section: str) -> dict[str, str]:
    """A §4 table's rows by the message kind in their first cell."""
    lines = section.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("| type"))
    end = next(i for i in range(first, len(lines)) if not lines[i].startswith("|"))
    return {line.split("`")[1]: line for line in lines[first + 2:end]}


def _missing_fields(union: Any, rows: dict[str, str]) -> list[str]:
    """``kind.field`` for each field of each Struct of ``union`` (and of the Structs
    its fields hold) that its row does not name, as `field` or "field"."""
    import typing

    import msgspec

    def fields(cls: Any, prefix: str) -> list[tuple[str, Any]]:
        out = []
        for field in msgspec.structs.fields(cls):
            out.append((prefix + field.encode_name, field.type))
            for inner in (field.type, *typing.get_args(field.type)):
                if isinstance(inner, type) and issubclass(inner, msgspec.Struct):
                    out += fields(inner, prefix)
        return out

    missing = []
    for cls in typing.get_args(union):
        kind = str(cls.__struct_config__.tag)
        row = rows.get(kind, "")
        if not row:
            missing.append(kind)
        for name, _ in fields(cls, ""):
            if f"`{name}`" not in row and f'"{name}"' not in row:
                missing.append(f"{kind}.{name}")
    return missing


def test_the_protocol_names_every_field_of_every_message() -> None:
    """docs/protocol.md §4.1 names each field of each client message (wire/protocol.py's
    ``ClientMessage``), and §4.2 has a row for each kind of server message
    (``ServerMessage``) naming each of its fields, those of the objects in it too."""
    from baohuang.server.wire.protocol import SERVER_TYPES, ClientMessage, ServerMessage

    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    client = _rows(text[text.index("### 4.1"):text.index("### 4.2")])
    server = _rows(text[text.index("### 4.2"):text.index("### 4.3")])
    assert _missing_fields(ClientMessage, client) == []
    assert sorted(server) == sorted(SERVER_TYPES)
    assert _missing_fields(ServerMessage, server) == []
