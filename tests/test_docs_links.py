"""The project stands alone: every relative link in its Markdown reaches a file (and a heading), every repository path
its docs, docstrings and comments cite exists, every section they cite by name is there, and nothing refers to a
document outside the repository (the design contracts are in docs/design.md, each game's rules in its RULES.md)."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Documents that once lived beside the project and that a clone never has. Spelt in pieces, so that this file does
# not mention them itself.
OUTSIDE = re.compile("|".join([r"\b(?:DESIGN|STYLE)\.md\b", "SANDBOX" + "-NOTES", r"\bshared" + "/", r"\bseeds" + "/"]))

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.M)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
# A document and a section of it named in quotes: `docs/operations.md, "Processes"`, `RULES.md "A turn" 2`.
SECTION_CITATION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md),? \"([^\"]+)\"")


@cache
def tracked_files() -> tuple[Path, ...]:
    """The repository's files: what git tracks (a clone's contents), never the virtualenv or generated files."""
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return tuple(ROOT / name for name in listing.decode().split("\0") if name and (ROOT / name).is_file())


def _tracked(suffix: str) -> list[Path]:
    return [path for path in tracked_files() if path.suffix == suffix]


@cache
def _cited_path() -> re.Pattern[str]:
    """A path from one of the repository's top-level folders to a file with an extension or to a folder (a trailing
    slash): `league/play/matches.py`, `docs/`, `games/<id>/` (a placeholder ends the path at its folder). Not
    `parlour/random`, a bot's name, nor `/static/league/`, a URL."""
    tops = sorted({part[0] for path in tracked_files() if len(part := path.relative_to(ROOT).parts) > 1})
    return re.compile(rf"(?<![\w./-])(?:{'|'.join(map(re.escape, tops))})/(?:[\w.-]+/)*(?:[\w-]+(?:\.[\w-]+)+)?")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# ----- reading Markdown -----------------------------------------------------------------------------------------------


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """Numbered lines outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def headings(text: str) -> list[str]:
    return [match.group(1) for _, line in prose_lines(text) if (match := HEADING.match(line))]


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    for heading in headings(text):
        base = anchor = slug(heading)
        count = 0
        while anchor in found:  # GitHub numbers repeated headings: x, x-1, x-2
            count += 1
            anchor = f"{base}-{count}"
        found.add(anchor)
    return found


def _normal(text: str) -> str:
    """A section name as citations write it: no markup, no section number ("9. Live pages"), one space, lower case."""
    text = " ".join(text.replace("`", "").replace("*", "").split()).lower()
    return re.sub(r"^\d+(\.\d+)*\.?\s+", "", text).rstrip(".:")


def section_names(text: str) -> list[str]:
    """What a citation may name as a section: a heading, or the bold words that open an entry (`- **Streams** ...`)."""
    prose = "\n".join(line for _, line in prose_lines(text))
    return [_normal(name) for name in headings(text) + BOLD.findall(prose)]


@cache
def _sections_of(path: Path) -> tuple[str, ...]:
    return tuple(section_names(path.read_text()))


def links(text: str) -> Iterator[tuple[int, str]]:
    """Each link target of a Markdown text, inline or by reference, outside code."""
    for number, line in prose_lines(text):
        bare = INLINE_CODE.sub("", line)
        for match in LINK.finditer(bare):
            yield number, match.group(1)
        for match in REFERENCE.finditer(bare):
            yield number, match.group(1)


# ----- reading Python -------------------------------------------------------------------------------------------------


@cache
def python_prose(source: str) -> tuple[tuple[int, str], ...]:
    """The comments and docstrings of a module, each with the line it starts on (kept: two checks read them)."""
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                found.append((node.body[0].lineno, docstring))
    return tuple(found)


# ----- the checks: each returns what it finds wrong -------------------------------------------------------------------


def broken_links(path: Path, text: str) -> list[str]:
    problems = []
    for number, target in links(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            continue  # another site, a mail address, or a page of the site itself (league/authors/guides/)
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        where = f"{_rel(path)}:{number}: ({target})"
        if not resolved.is_relative_to(ROOT):
            problems.append(f"{where} leads out of the repository")
        elif not resolved.exists():
            problems.append(f"{where} is no file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text()):
            problems.append(f"{where} names no heading of {_rel(resolved)}")
    return problems


def _missing_paths(path: Path, number: int, text: str) -> list[str]:
    problems = []
    for cited in _cited_path().findall(text):
        cited = cited.rstrip(".,")
        if not (ROOT / cited).exists():
            problems.append(f"{_rel(path)}:{number}: `{cited}` does not exist")
    return problems


def missing_paths(path: Path, text: str) -> list[str]:
    """Repository paths cited in a Markdown file's text and code spans (not its code blocks, whose commands may make
    files), or in a Python file's comments and docstrings."""
    if not _cited_path().search(text):
        return []  # (reading a module's comments and docstrings takes time: only when there may be something)
    pieces = prose_lines(text) if path.suffix == ".md" else python_prose(text)
    return [problem for number, piece in pieces for problem in _missing_paths(path, number, piece)]


def _citation_target(path: Path, cited: str) -> Path | None:
    """The file a section citation names: a repository path, or a bare `RULES.md` inside a game's folder."""
    if "/" in cited:
        return ROOT / cited
    parts = path.relative_to(ROOT).parts
    if cited == "RULES.md" and parts[0] == "games" and len(parts) > 2:
        return ROOT / "games" / parts[1] / "RULES.md"
    return path.parent / cited if (path.parent / cited).exists() else None


def missing_sections(path: Path, text: str) -> list[str]:
    """`docs/live.md, "Streams"`: the named section is a heading, or an entry's bold opening, of that document."""
    if not SECTION_CITATION.search(text):
        return []
    pieces = [(1, text)] if path.suffix == ".md" else python_prose(text)
    problems = []
    for first, piece in pieces:
        for match in SECTION_CITATION.finditer(piece):
            cited, section = match.groups()
            number = first + piece.count("\n", 0, match.start())
            target = _citation_target(path, cited)
            if target is None or not target.exists():
                continue  # not a document of ours (missing_paths reports a missing repository path)
            if not any(name.startswith(_normal(section)) for name in _sections_of(target)):
                problems.append(f"{_rel(path)}:{number}: {cited} has no section {section!r}")
    return problems


def outside_references(path: Path, text: str) -> list[str]:
    return [
        f"{_rel(path)}:{number}: {line.strip()[:100]}"
        for number, line in enumerate(text.splitlines(), 1)
        if OUTSIDE.search(line)
    ]


# ----- the tests -----------------------------------------------------------------------------------------------------


def _texts(*suffixes: str) -> Iterator[tuple[Path, str]]:
    for path in tracked_files():
        if not suffixes or path.suffix in suffixes:
            try:
                yield path, path.read_text()
            except UnicodeDecodeError:
                continue  # an image or another binary file


def test_the_repository_has_the_documents_these_checks_read() -> None:
    names = {_rel(path) for path in tracked_files()}
    assert {"README.md", "docs/design.md", "docs/architecture.md", "games/ten/RULES.md"} <= names
    assert len(_tracked(".md")) > 20 and len(_tracked(".py")) > 300


def test_every_relative_link_in_the_markdown_reaches_a_file_and_its_heading() -> None:
    assert [problem for path, text in _texts(".md") for problem in broken_links(path, text)] == []


def test_every_repository_path_the_docs_and_the_code_cite_exists() -> None:
    assert [problem for path, text in _texts(".md", ".py") for problem in missing_paths(path, text)] == []


def test_every_section_cited_by_name_is_in_its_document() -> None:
    assert [problem for path, text in _texts(".md", ".py") for problem in missing_sections(path, text)] == []


def test_no_file_refers_to_documents_outside_the_repository() -> None:
    assert [problem for path, text in _texts() for problem in outside_references(path, text)] == []


def test_the_readme_maps_every_top_level_folder_and_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text()
    folders = {part[0] for path in tracked_files() if len(part := path.relative_to(ROOT).parts) > 1}
    assert set(re.findall(r"^- `([^`/]+)/`", readme, re.M)) == folders
    pages = {path.name for path in tracked_files() if path.parent == ROOT / "docs" and path.suffix == ".md"}
    assert set(re.findall(r"\]\(docs/([\w-]+\.md)\)", readme)) == pages


def test_each_check_reports_a_planted_fault() -> None:
    """A page planted in docs/ (never written: the checks take the text) with one fault of each kind, and the good
    forms beside them, which must pass."""
    page = ROOT / "docs" / "planted.md"
    text = (
        "# Planted\n\n"
        "[gone](no-such-page.md) [out](../../elsewhere.md) [bad heading](design.md#no-such-heading) "
        "[good](design.md#layout-and-the-direction-of-imports) [site](/bots/new/) [web](https://example.org/x.md)\n\n"
        'See `league/no_such_module.py` and `docs/design.md`, (docs/live.md, "No such section"), (docs/live.md,\n'
        '"Streams") and (docs/operations.md, "Processes").\n\n'
        "```\n[in code](ignored.md) `league/ignored.py`\n```\n"
        "Once in " + "DESIGN" + ".md.\n"
    )
    assert broken_links(page, text) == [
        "docs/planted.md:3: (no-such-page.md) is no file",
        "docs/planted.md:3: (../../elsewhere.md) leads out of the repository",
        "docs/planted.md:3: (design.md#no-such-heading) names no heading of docs/design.md",
    ]
    assert missing_paths(page, text) == ["docs/planted.md:5: `league/no_such_module.py` does not exist"]
    assert missing_sections(page, text) == ["docs/planted.md:5: docs/live.md has no section 'No such section'"]
    assert outside_references(page, text) == ["docs/planted.md:11: Once in " + "DESIGN" + ".md."]

    module = ROOT / "games" / "ten" / "planted.py"
    source = '"""The cards (RULES.md "Components"; RULES.md "No such rule").\n\nSee games/ten/gone.py."""\n'
    source += "# docs/gone.md\n"
    assert missing_paths(module, source) == [
        "games/ten/planted.py:4: `docs/gone.md` does not exist",
        "games/ten/planted.py:1: `games/ten/gone.py` does not exist",
    ]
    assert missing_sections(module, source) == ["games/ten/planted.py:1: RULES.md has no section 'No such rule'"]
