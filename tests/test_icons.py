"""Tests for mipcore.plots.icons: the icon array (people as icons, or a grid of cells for
1 000 and 10 000 people), its PNG files and the one-page HTML summary of "What does ε mean for
the people in my data?".

The chart draws its table (told apart by colour and shape; filled = called a member); a large
picture is a few rectangles, not one mark per person; bad counts are refused. The HTML summary
parses, holds the sentences, the URL and the SVG figures, stays small, and a crafted string
cannot add markup to it. The PNG files are rendered without a browser (vl-convert).
"""

from __future__ import annotations

import struct
import sys
from html.parser import HTMLParser

import pytest

from mipcore.plots import style
from mipcore.plots.icons import (
    IconPicture,
    IconView,
    icon_array_vega,
    picture_chart,
    picture_png,
    picture_svg,
    summary_html,
)

# --------------------------------------------------------------------------- the figure


def test_icon_chart_draws_its_table():
    chart, table = icon_array_vega(37, 63, 20, 5, view=IconView.NAMING, title="t")
    assert len(table) == 100 and list(table.person) == list(range(1, 101))
    assert table.member.sum() == 37 and (table.member & table.called_member).sum() == 20
    assert (~table.member & table.called_member).sum() == 5
    people = chart.datasets["people"]
    assert len(people) == 100 and len(set(zip(people.x, people.y, strict=True))) == 100
    enc = chart.spec["layer"][0]["encoding"]
    # told apart by colour AND shape; filled = called a member, outline = not
    assert enc["shape"]["scale"]["range"] == ["circle", "circle", "square", "square"]
    assert enc["fill"]["scale"]["range"][1] == "#ffffff" and enc["fill"]["scale"]["range"][3]
    assert enc["stroke"]["scale"]["range"][0] == style.MIP.colour
    assert all(w.startswith("Person ") for w in people.who)


@pytest.mark.parametrize("people", [1_000, 10_000])
def test_large_pictures_are_a_grid_of_few_marks(people):
    members = people // 100
    chart, table = icon_array_vega(members, people - members, 2, 99, view=IconView.NAMING)
    assert len(table) == people
    runs = chart.datasets["runs"]
    cells = ((runs.x2 - runs.x) * (runs.y2 - runs.y)).groupby(runs.group, sort=False).sum()
    expected = table.group.value_counts()
    assert {g: int(cells[g]) for g in cells.index} == {g: int(expected[g]) for g in cells.index}
    assert len(runs) <= 12  # at most three rectangles per group, whatever the population


def test_icon_chart_refuses_bad_counts():
    for args in [(-1, 10, 0, 0), (5, 5, 6, 0), (5, 5, 0, 6), (0, 0, 0, 0), (1.5, 3, 0, 0)]:
        with pytest.raises(ValueError):
            icon_array_vega(*args)


# --------------------------------------------------------------------------- HTML summary


class _Doc(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.script_chars = 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.script_chars += len(data)
        else:
            self.text.append(data)


def _parse(doc: str) -> _Doc:
    p = _Doc()
    p.feed(doc)
    p.close()
    return p


@pytest.fixture(scope="module")
def figure() -> str:
    return picture_svg(IconPicture(100, 9_900, 2, 99, IconView.NAMING, "Whom"))


def test_summary_html_is_standalone_small_and_holds_everything(figure):
    sentences = ["If 1 in 100 people is in the data, … right at most 2.7 % — up from 1 %.", "B"]
    url = "https://mip.example/what_eps_means?prior=1&eps=2"
    doc = summary_html(
        title="What ε = 2 means",
        sentences=sentences,
        url=url,
        figures=(figure, figure),
        table_header=["ε", "in words"],
        table_rows=[["1", "a & b"]],
        notes=("Sources.",),
    )
    p = _parse(doc)
    text = "".join(p.text)
    for s in sentences:
        assert s in text
    assert "a & b" in text and "Sources." in text and "What ε = 2 means" in text
    links = [a for tag, a in p.tags if tag == "a"]
    assert links == [{"href": url}] and url in text
    ids = [a.get("id") for tag, a in p.tags if tag == "figure"]
    assert ids == ["mip-figure-1", "mip-figure-2"]
    assert [t for t, _ in p.tags].count("svg") == 2
    assert not [t for t, _ in p.tags if t == "script"]  # no script at all: opens offline
    assert len(doc.encode("utf-8")) < 1_000_000  # was 4.8 MB with plotly.js inline


def test_summary_html_refuses_a_figure_that_is_not_a_plain_svg():
    for bad in ("<div>x</div>", "<svg><script>alert(1)</script></svg>", '<svg onload="x()"/>'):
        with pytest.raises(ValueError, match="figures"):
            summary_html(title="T", sentences=[], url="", figures=(bad,))


@pytest.mark.parametrize(
    "crafted",
    [
        'https://x/?a="><script>alert(1)</script>',
        "https://x/?q=<img src=x onerror=alert(1)>",
        "javascript:alert(1)",
        "</code></p><script>alert(1)</script>",
    ],
)
def test_crafted_strings_cannot_add_markup(crafted):
    doc = summary_html(
        title=crafted,
        sentences=[crafted],
        url=crafted,
        table_header=[crafted],
        table_rows=[[crafted]],
    )
    p = _parse(doc)
    assert [t for t, _ in p.tags if t in ("script", "img", "iframe")] == []
    for _, attrs in p.tags:
        assert not any(k.startswith("on") for k in attrs)
    hrefs = [a.get("href") for t, a in p.tags if t == "a"]
    if crafted.startswith("https://"):
        assert hrefs == [crafted]  # the exact URL, as an attribute value
    else:
        assert hrefs == []  # only http(s) URLs become links
    assert crafted in "".join(p.text)  # shown as text


def test_summary_html_without_url_or_figures():
    p = _parse(summary_html(title="T", sentences=["S"], url=""))
    assert "(this page with its default settings)" in "".join(p.text)
    assert [t for t, _ in p.tags if t == "script"] == []


# --------------------------------------------------------------------------- PNG files

PICTURES = (
    IconPicture(50, 50, 37, 13, IconView.ACCURACY, "Who"),
    IconPicture(500, 500, 100, 5, IconView.NAMING, "Whom"),
)


def test_png_needs_vl_convert_and_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # import vl_convert -> ImportError
    with pytest.raises(ValueError, match="vl-convert"):
        picture_png(PICTURES[0])


@pytest.mark.slow
def test_png_files_are_rendered_without_a_browser():
    for p in PICTURES:
        png = picture_png(p)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
        plot_height = picture_chart(p).spec["height"]
        # the plot 640 px wide at scale 2, plus the padding, the title and the legend
        assert 1280 <= width <= 1280 + 100
        assert 2 * plot_height < height <= 2 * plot_height + 2 * 200
