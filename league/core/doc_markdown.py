"""Markdown for the site's own guides and the engines' rule texts, rendered by markdown-it-py.

CommonMark with raw HTML off (markup in the text is shown as text), plus pipe tables. On top of the library:
headings get ids (so the table of contents and ``#anchor`` links work), code blocks and tables get the site's
classes (a code block wraps, a wide table scrolls inside its box), and links to files of the repository become site
pages or plain text: a reader of the site never sees, nor follows, a path like ``docs/protocol.md``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

# Repository documents that the site shows as a page of its own (by file name, wherever the link points).
SITE_PAGES = {"first-bot.md": "/first-bot/", "search.md": "/first-bot/search/"}
# Links the site can follow: its own absolute paths, anchors on the page, and the web.
_SITE_LINK = re.compile(r"^(/(?!/)|#|https?://)")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def site_href(href: str) -> str | None:
    """Where a link in our Markdown should go on the site, or None when it names a repository file (shown as text)."""
    path, _, anchor = href.partition("#")
    name = path.rsplit("/", 1)[-1]
    if name in SITE_PAGES:
        return SITE_PAGES[name] + (f"#{anchor}" if anchor else "")
    if _SITE_LINK.match(href) and not path.endswith(".md"):
        return href
    return None


def _heading_ids(state: StateCore) -> None:
    """``id`` on every heading, from its text (as GitHub does, in short); repeated titles get ``-2``, ``-3``."""
    seen: dict[str, int] = {}
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            slug = _slug(tokens[i + 1].content) or "section"
            seen[slug] = seen.get(slug, 0) + 1
            token.attrSet("id", slug if seen[slug] == 1 else f"{slug}-{seen[slug]}")


def _site_links(state: StateCore) -> None:
    """Rewrite each link for the site; drop the link (keep its text) where it would point at a repository file."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        kept: list[Token] = []
        dropped: list[bool] = []  # one entry per open link: was its link_open dropped?
        for child in token.children:
            if child.type == "link_open":
                href = site_href(str(child.attrGet("href") or ""))
                dropped.append(href is None)
                if href is None:
                    continue
                child.attrSet("href", href)
            elif child.type == "link_close" and dropped.pop():
                continue
            kept.append(child)
        token.children = kept


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    language = token.info.strip().split(" ", 1)[0]
    css = f' class="language-{escapeHtml(language)}"' if language else ""
    return f'<pre class="doc"><code{css}>{escapeHtml(token.content)}</code></pre>\n'


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.core.ruler.push("heading_ids", _heading_ids)
    md.core.ruler.push("site_links", _site_links)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_fence)
    md.add_render_rule("table_open", lambda *_: '<div class="table-scroll"><table class="doc">\n')
    md.add_render_rule("table_close", lambda *_: "</table></div>\n")
    return md


_MD = _build()


def render_markdown(text: str) -> SafeString:
    """HTML for our Markdown. Raw HTML is escaped (comments too, so they are cut first) and ``javascript:`` and other
    unsafe links are refused by markdown-it's own link check."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    html: str = _MD.render(text)
    return mark_safe(html)  # markdown-it escapes all text; html=False passes no markup through
