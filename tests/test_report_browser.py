"""The report as a reader meets it: the HTML page opened in headless Chromium at a desktop and
a narrow window, and the figures' colours, order, sizes and fonts, on offline demo logs."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval
from matplotlib.colors import to_hex
from matplotlib.text import Text

import selfdx.analysis.interview.report as interview_report
import selfdx.analysis.mentalbench.report as mentalbench_report
import selfdx.analysis.safe_psych.report as safe_psych_report
from selfdx.analysis import figures
from selfdx.analysis.report import build_report

# Each strategy has one model the other lacks: a colour taken from the drawing order would
# move between the panels of one figure.
SAFE_PSYCH = [
    ("full_info_abstention_aware", "selfdx/eager"),
    ("full_info_abstention_aware", "selfdx/keyword"),
    ("sequential_info_abstention_aware", "selfdx/keyword"),
    ("sequential_info_abstention_aware", "selfdx/cautious"),
]
MENTALBENCH = ["selfdx/first-option", "selfdx/eager"]
INTERVIEW = [
    ("interview", "selfdx/kg-interviewer"),
    ("full", "selfdx/kg-interviewer"),
    ("initial", "selfdx/opening-guess"),
]
WIDTHS = (1280, 700)
# Written into a copy of the page: what the page measures once every image has loaded.
MEASURE = """<script>
window.addEventListener('load', function () {
  var root = document.documentElement;
  var wide = [];
  document.querySelectorAll('body *').forEach(function (e) {
    if (e.getBoundingClientRect().right > root.clientWidth + 0.5 && !e.closest('.scroll')) {
      wide.push(e.tagName + ' ' + (e.textContent || '').slice(0, 60));
    }
  });
  var found = {
    scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
    innerWidth: window.innerWidth, tables: document.querySelectorAll('table').length,
    images: Array.prototype.map.call(document.images, function (i) { return i.naturalWidth; }),
    wide: wide.slice(0, 5)
  };
  // the interview's Risk section: its heading, then the table that follows it
  var heading = Array.prototype.filter.call(document.querySelectorAll('h3'), function (h) {
    return h.textContent.trim() === 'Risk';
  })[0];
  var next = heading ? heading.nextElementSibling : null;
  while (next && next.tagName !== 'TABLE' && !next.querySelector('table')) {
    next = next.nextElementSibling;
  }
  var table = next ? (next.tagName === 'TABLE' ? next : next.querySelector('table')) : null;
  found.risk = table ? {
    height: table.getBoundingClientRect().height,
    columns: Array.prototype.map.call(table.querySelectorAll('th'), function (c) {
      return c.textContent.trim();
    })
  } : null;
  var out = document.createElement('pre');
  out.id = 'selfdx-measured';
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>"""


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory) -> Path:
    """Small runs of all three benchmarks on the demo data, two or more models each."""
    folder = tmp_path_factory.mktemp("browser-logs")
    runs = [
        (
            "selfdx/safe_psych",
            model,
            {"strategy": strategy},
            {"grader": "selfdx/rules-judge"},
            8,
        )
        for strategy, model in SAFE_PSYCH
    ]
    runs += [("selfdx/mentalbench", model, {"data": "demo"}, {}, 12) for model in MENTALBENCH]
    runs += [
        ("selfdx/interview", model, {"data": "demo", "types": "1,2", "mode": mode}, {}, 3)
        for mode, model in INTERVIEW
    ]
    for task, model, args, roles, limit in runs:
        (log,) = eval(
            task,
            task_args=args,
            model=model,
            model_roles=roles,
            limit=limit,
            display="none",
            log_dir=str(folder),
        )
        assert log.status == "success", (task, model, log.error)
    return folder


@pytest.fixture(scope="module")
def drawn(log_dir, tmp_path_factory):
    """The report, with what every figure drew read back from matplotlib as it was saved."""
    records: dict[str, dict] = {}
    real_save = figures.save

    def recording_save(fig, out_dir, name, title, caption):
        written = real_save(fig, out_dir, name, title, caption)  # drawn: ticks and text exist
        records[name] = {
            "panels": [_legend_colours(ax) for ax in fig.axes],
            "bars": [
                {
                    c.get_label(): [p.get_height() for p in c.patches]
                    for c in ax.containers
                    if hasattr(c, "patches")
                }
                for ax in fig.axes
            ],
            "fonts": [
                (t.get_text(), t.get_fontsize())
                for t in fig.findobj(Text)
                if t.get_visible() and t.get_text().strip()
            ],
            "figsize": tuple(fig.get_size_inches()),
            "png": _png_inches(written.path),
        }
        return written

    out = tmp_path_factory.mktemp("browser-report")
    with pytest.MonkeyPatch.context() as patch:
        for module in (safe_psych_report, mentalbench_report, interview_report):
            patch.setattr(module, "save", recording_save)
        build_report(log_dir, out, progress=False)
    return out, records


def _legend_colours(ax) -> dict[str, str]:
    """Legend label -> the colour its artist was drawn in, for one panel."""
    found = {}
    for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
        artist = handle
        if hasattr(handle, "patches"):  # bars
            artist = handle.patches[0]
        elif hasattr(handle, "lines"):  # error bars: the data line
            artist = handle.lines[0]
        colour = artist.get_color() if hasattr(artist, "get_color") else artist.get_facecolor()
        if hasattr(artist, "get_markerfacecolor") and artist.get_linestyle() in ("None", ""):
            colour = artist.get_markerfacecolor()
        found[label] = to_hex(colour)
    return found


def _png_inches(path: Path) -> tuple[float, float]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width / figures.DPI, height / figures.DPI


def test_a_model_keeps_its_colour_in_every_panel_and_figure(drawn):
    """Every legend label is drawn in one colour across the whole report: in every panel of a
    figure, and in every figure of every section (selfdx/eager runs in Safe-Psych and in
    MentalBench, each section with other models beside it)."""
    _, records = drawn
    seen: dict[tuple[str, str], dict[str, set[str]]] = {}  # ("all", label) -> colour -> where
    for name, record in records.items():
        section = "all"
        for index, panel in enumerate(record["panels"]):
            for label, colour in panel.items():
                where = seen.setdefault((section, label), {})
                where.setdefault(colour, set()).add(f"{name}[{index}]")
    changing = {key: places for key, places in seen.items() if len(places) > 1}
    assert not changing, changing
    # keyword is drawn in both scatter panels, each with another model, and in the curves
    keyword = next(iter(seen[("all", "selfdx/keyword")].values()))
    assert {"safe_psych_abstention_scatter[0]", "safe_psych_abstention_scatter[1]"} <= keyword
    assert "safe_psych_cumulative[0]" in keyword
    models = ["selfdx/cautious", "selfdx/eager", "selfdx/keyword"]
    colours = [next(iter(seen[("all", m)])) for m in models]
    assert len(set(colours)) == len(models)
    eager = seen[("all", "selfdx/eager")]
    assert len(eager) == 1 and any(w.startswith("mentalbench") for w in next(iter(eager.values())))
    assert any(w.startswith("safe_psych") for w in next(iter(eager.values())))


def test_model_styles_are_deterministic_and_cycle_markers():
    labels = [f"model-{i:02d}" for i in range(12)]
    styles = figures.model_styles(labels)
    assert styles == figures.model_styles(reversed(labels))
    assert styles == figures.model_styles(labels + labels[:3])
    assert len({(s.colour, s.marker, s.hatch) for s in styles.values()}) == len(labels)
    past = styles[labels[len(figures.MODEL_COLOURS)]]
    assert past.colour == figures.MODEL_COLOURS[0] and past.hatch  # colours repeat, hatched


def test_shared_styles_hold_across_sections():
    """Two sections that each style only their own models agree inside one shared scope."""
    safe, bench = ["selfdx/cautious", "selfdx/eager"], ["selfdx/eager", "selfdx/first-option"]
    assert figures.model_styles(safe)["selfdx/eager"] != figures.model_styles(bench)["selfdx/eager"]
    with figures.shared_model_styles(safe + bench):
        first, second = figures.model_styles(safe), figures.model_styles(bench + ["other"])
    assert first["selfdx/eager"] == second["selfdx/eager"]
    assert len({style.colour for style in (*first.values(), *second.values())}) == 4
    assert figures.model_styles(bench)["selfdx/eager"].colour == figures.MODEL_COLOURS[0]  # gone


def test_bars_comparing_models_are_sorted(drawn):
    _, records = drawn
    correct = records["mentalbench_error_shares"]["bars"][0]["correct"]
    on_time = records["safe_psych_timing"]["bars"][0]["on time"]
    assert correct == sorted(correct, reverse=True) and len(correct) == len(MENTALBENCH)
    assert on_time == sorted(on_time, reverse=True)


def test_figures_are_legible_at_paper_width(drawn):
    """Every text is 8 pt or more at the size the figure is drawn, and the saved file is that
    size (a label outside the figure would widen it): a column (3.3 in) or the page (7 in)."""
    _, records = drawn
    assert len(records) >= 10
    for name, record in records.items():
        small = [(text, size) for text, size in record["fonts"] if size < figures.FONT_SIZE]
        assert not small, (name, small)
        width, height = record["figsize"]
        assert width in (figures.COLUMN_WIDTH, figures.PAGE_WIDTH), name
        saved_width, saved_height = record["png"]
        assert saved_width <= width + 0.3, (name, saved_width)
        assert saved_height <= 9, (name, saved_height)


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("needs Debian's chromium (apt-get install chromium): not on PATH")
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_page_fits_the_window_and_shows_everything(drawn, tmp_path, width):
    out, _ = drawn
    chromium = _chromium()
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("</body>") == 1
    copy = tmp_path / "measured.html"
    copy.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    command = [
        chromium,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--window-size={width},900",
        "--virtual-time-budget=10000",
        "--dump-dom",
        copy.as_uri(),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"chromium did not finish within 60 s at width {width}")
    match = re.search(r'<pre id="selfdx-measured">(.*?)</pre>', done.stdout, re.S)
    assert match, f"no measurement (rc {done.returncode}): {done.stderr[-2000:]}"
    found = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))

    assert found["innerWidth"] == width
    assert found["scrollWidth"] <= found["clientWidth"] <= found["innerWidth"], found
    assert found["wide"] == [], found["wide"]
    markdown = (out / "report.md").read_text(encoding="utf-8")
    tables = len(re.findall(r"^\|(?:---\|)+$", markdown, re.M))
    images = len(re.findall(r"^!\[[^\]]*\]\([^)]+\.png\)$", markdown, re.M))
    assert tables > 10 and images >= 10
    assert found["tables"] == tables
    assert len(found["images"]) == images
    assert all(natural > 0 for natural in found["images"]), found["images"]
    # the interview's Risk section is on the page, with what the interviewer did with the risk
    assert found["risk"] is not None and found["risk"]["height"] > 0, found.get("risk")
    # (a measure no case of these three runs applies to, such as risk_responded, has no column)
    assert {"risk_asked", "risk_level_found", "risk_handled", "risk_not_alarmed"} <= set(
        found["risk"]["columns"]
    ), found["risk"]["columns"]
