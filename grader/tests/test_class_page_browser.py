#!/usr/bin/env python3
"""The class page as a browser draws it: the page of the fixture class (class_page_fixture/, made-up
values), with pseudonyms and with names, the page of a class of hostile names, and the pages of the
classes graded on a GPU and kept in held_classes/, each rendered in
headless Chromium at 1280 and 1440 px by the book's own check (book/tools/browser_check.py: content cut
off, tables wider than the column, numbers or lines broken in two, characters no font has), plus: no
script ran, the charts were drawn. A copy of the page with a planted over-wide line must be reported,
so the check is known to see this page's layout. Exit 77 (skipped) where no Chromium is installed.

    test_class_page_browser.py [--chromium PATH] [--screenshots DIR]"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "book" / "tools"))

import browser_check  # noqa: E402
import test_class_page  # noqa: E402
from grading import class_page  # noqa: E402

# The classes graded on a GPU (held_classes/: their reports as grade wrote them, feedback and all),
# drawn again from their reports.
HELD = sorted(p for p in (HERE / "held_classes").iterdir() if p.is_dir())
CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
SCRIPTS_RAN = "window.pwned === undefined && document.querySelectorAll('svg.chart rect.bar').length"


def pages(tmp: Path):
    """(label, class.html) of each class page to check."""
    out = test_class_page.copy_fixture(tmp)
    class_page.finish_class(out)
    named = test_class_page.copy_fixture(tmp / "named")
    class_page.finish_class(named, with_names=True)
    failures = []
    test_class_page.check_hostile(tmp, failures)
    if failures:
        raise SystemExit("\n".join(f"FAIL: {f}" for f in failures))
    planted = tmp / "planted.html"
    planted.write_text((out / "class.html").read_text(encoding="utf-8").replace(
        "</h1>", "</h1><pre>" + "x" * 400 + "</pre>", 1), encoding="utf-8")
    held = []
    for folder in HELD:
        copy = tmp / "held" / folder.name
        shutil.copytree(folder, copy)
        class_page.finish_class(copy)
        held.append((f"held class {folder.name}", copy / "class.html"))
    return [("fixture", out / "class.html"), ("fixture, with names", named / "class.html"),
            ("hostile names", tmp / "hostile" / "class.html")] + held, planted


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chromium", help="the Chromium (or Chrome) executable (default: the first on PATH)")
    parser.add_argument("--screenshots", type=Path, help="where to save 1280 px screenshots of the pages")
    args = parser.parse_args()
    chromium = args.chromium or next((found for name in CHROMIUMS if (found := shutil.which(name))), None)
    if not chromium:
        print("SKIP: no Chromium or Chrome installed (scripts/install-dependencies --docs installs it)")
        return 77
    failures = []
    with tempfile.TemporaryDirectory(prefix="class-page-browser-") as tmp:
        tmp = Path(tmp)
        for sub in ("named", "other"):
            (tmp / sub).mkdir()
        checked, planted = pages(tmp)
        try:
            browser = browser_check.Browser(chromium)
            tab = browser_check.Tab(browser)
        except (OSError, RuntimeError, TimeoutError) as error:
            print(f"SKIP: cannot drive Chromium ({chromium}): {error}")
            return 77
        try:
            for label, page in checked:
                for width in browser_check.WIDTHS:
                    found = tab.open(page.resolve().as_uri(), width, math=False)
                    failures += [f"{label} at {width} px: {p}" for p in found["problems"]]
                    bars = tab.call("Runtime.evaluate", {"expression": SCRIPTS_RAN, "returnByValue": True})
                    value = bars["result"].get("value")
                    if value is False:
                        failures.append(f"{label} at {width} px: a script on the page ran")
                    elif not value:
                        failures.append(f"{label} at {width} px: no bar of a chart was drawn")
                if args.screenshots:
                    args.screenshots.mkdir(parents=True, exist_ok=True)
                    height = min(int(found["height"]), 30000)
                    tab.screenshot(args.screenshots / f"{label.replace(' ', '_').replace(',', '')}.png", 1280, height)
            found = tab.open(planted.resolve().as_uri(), 1280, math=False)
            if not any("wider than the column" in p or "cut off" in p for p in found["problems"]):
                failures.append(f"a planted over-wide line was not reported: {found['problems']}")
        finally:
            browser.close()
    return test_class_page.report("test_class_page_browser", failures)


if __name__ == "__main__":
    sys.exit(main())
