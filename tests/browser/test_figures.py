"""The viewer's cost, measured in Chromium on a long replay (a full four-player Love Letter match of heuristic bots):
the page weight (HTML + JS + CSS, and the frames JSON apart) and the time to first frame. The figures are printed
and written to artifacts/viewer-figures.json; the bounds asserted are generous, to catch a regression by an order
of magnitude, not noise."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import LAPTOP, SCREENSHOTS, Tab
from tests.browser.recorded import record_match

FIGURES = SCREENSHOTS.parent / "viewer-figures.json"


def _kind(response: Any) -> str | None:
    kind = response.request.resource_type
    if kind in ("document", "script", "stylesheet"):
        return kind
    if "/frames/" in response.url:
        return "frames"
    return None


def test_a_long_replay_is_light_and_its_first_frame_is_quick(open_tab: Callable[..., Tab]) -> None:
    match = record_match("love_letter", seed=8, names=["heuristic"] * 4)
    moves = len(match.replay["moves"])
    tab = open_tab(viewport=LAPTOP)
    sizes: dict[str, list[int]] = {"document": [], "script": [], "stylesheet": [], "frames": []}
    gzipped: dict[str, int] = dict.fromkeys(sizes, 0)
    bodies: list[tuple[str, Any]] = []
    tab.page.on("response", lambda response: bodies.append((_kind(response), response)) if _kind(response) else None)

    tab.goto(f"/matches/{match.pk}/")
    tab.page.wait_for_selector("[data-parlour-viewer][data-ready='1']")
    first_frame_ms = tab.page.evaluate("performance.getEntriesByName('pv-first-frame')[0].startTime")
    dom_ready_ms = tab.page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
    for kind, response in bodies:
        body = response.body()
        sizes[kind].append(len(body))
        gzipped[kind] += len(gzip.compress(body, 6))
    # Stepping through the whole match: the cost of drawing one step.
    step_ms = tab.page.evaluate(
        """() => { const v = window.parlourViewer; const t = performance.now();
                   for (let i = 0; i <= v.last; i += 1) v.go(i, { writeHash: false });
                   return (performance.now() - t) / (v.last + 1); }"""
    )
    figures = {
        "replay": f"love_letter, 4 players, {moves} moves",
        "html_bytes": sum(sizes["document"]),
        "js_bytes": sum(sizes["script"]),
        "js_files": len(sizes["script"]),
        "css_bytes": sum(sizes["stylesheet"]),
        "page_weight_bytes": sum(sizes["document"]) + sum(sizes["script"]) + sum(sizes["stylesheet"]),
        "page_weight_gzip_bytes": gzipped["document"] + gzipped["script"] + gzipped["stylesheet"],
        "frames_json_bytes": sum(sizes["frames"]),
        "frames_json_gzip_bytes": gzipped["frames"],
        "dom_content_loaded_ms": round(dom_ready_ms, 1),
        "first_frame_ms": round(first_frame_ms, 1),
        "draw_one_step_ms": round(step_ms, 2),
    }
    Path(FIGURES).parent.mkdir(parents=True, exist_ok=True)
    Path(FIGURES).write_text(json.dumps(figures, indent=2) + "\n")
    print("\nviewer figures:", json.dumps(figures, indent=2))

    assert moves >= 100, "a long replay"
    assert figures["js_files"] == 8  # the shell's six modules, the game's renderer and the site's menu: no framework
    assert figures["page_weight_bytes"] < 150_000
    assert figures["first_frame_ms"] < 3_000
    assert figures["draw_one_step_ms"] < 50
    tab.assert_no_errors()
