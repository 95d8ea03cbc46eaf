#!/usr/bin/env python3
"""Render every page of the built book in headless Chromium and fail on what a reader would see wrong.

For each HTML page of the site, at a window 1280 px wide (the book's own pages also at 1440 px), after
MathJax has typeset the page and with every folded block (<details>) opened:
  - a MathJax error (a TeX parse error or a processing error);
  - an image that did not load;
  - raw markup in the text: \\f$ or \\f[ (a formula Doxygen did not see), triple backticks, @ref or
    \\ref, \\snippet, \\image, \\includedoc, a template marker, a <details> or <summary> tag shown as
    text; a backtick in a caption;
  - a folded block that Doxygen broke: a <details> without its <summary> first, or with nothing
    else in it (its content landed after it);
  - content cut off: an element that reaches past the right edge of the text column without sitting
    in a box that scrolls, or a page that scrolls sideways;
  - a table wider than the text column (one that needs its own scroll bar to be read), and a number
    in a table cell broken over two lines;
  - a line wrapped twice: a line of a listing, or of program output, that the browser breaks over two
    lines (the program has wrapped its output already; source lines are meant as written);
  - program output (a verbatim block, <pre>) wider than the column: the programs print 100 columns,
    which the book's style fits at 1280 px;
  - a title in the side menu that the menu cuts off;
  - a character drawn as a box: one that no installed font has (drawn, it looks exactly like a
    character no font can have, U+0378), e.g. Chinese titles without a CJK font;
  - text in a figure smaller than 11 px as drawn at the column's width (from the SVG's smallest
    font-size and the ratio of the width shown to the width drawn).
A listing wider than the column scrolls in its own box: not an error, but noted on the book's own
pages. Screenshots of the book's pages at 1280 px go to --screenshots, to look at.

Chromium is driven through the DevTools protocol over a pipe (--remote-debugging-pipe): no network
port, no extra package, Python 3 standard library only. Exit status 0 when every page passes, 1 with
one line per problem otherwise, 2 when Chromium cannot be started.
"""
import argparse
import base64
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

MIN_FIGURE_TEXT_PX = 11.0
WIDTHS = (1280, 1440)
PAGE_TIMEOUT_S = 60

# Installed before any script of the page runs: MathJax 2 calls AuthorInit before its own
# configuration, so these hooks see every error it reports.
MATHJAX_HOOK = r"""
window.__bookMathErrors = [];
window.MathJax = {AuthorInit: function () {
  MathJax.Hub.Register.MessageHook("TeX Jax - parse error", function (m) {
    window.__bookMathErrors.push("TeX parse error: " + String(m[1]) + " in " + String(m[2]).slice(0, 80)); });
  MathJax.Hub.Register.MessageHook("Math Processing Error", function (m) {
    window.__bookMathErrors.push("Math processing error: " + String(m[2] && m[2].message || m[2])); });
}};
"""

# Runs in the page once it has loaded; returns what the Python side checks.
PAGE_CHECK = r"""
(async () => {
  if (window.MathJax && MathJax.Hub && MathJax.Hub.Queue) {
    await new Promise(resolve => MathJax.Hub.Queue(resolve));
  }
  await new Promise(resolve => setTimeout(resolve, 50));
  const MIN_PX = __MIN_PX__;
  const problems = [...(window.__bookMathErrors || [])];
  const figureInfo = [];
  document.querySelectorAll('.MathJax_Error, merror, [data-mjx-error]').forEach(
      e => problems.push('MathJax error shown: ' + e.textContent.trim().slice(0, 80)));
  // Images still on their way (a busy machine) are waited for, up to a few seconds, before judging them.
  const pending = [...document.images].filter(img => !img.complete).map(
      img => new Promise(resolve => { img.addEventListener('load', resolve); img.addEventListener('error', resolve); }));
  await Promise.race([Promise.all(pending), new Promise(resolve => setTimeout(resolve, 5000))]);
  for (const img of document.images) {
    if (!img.complete || img.naturalWidth === 0) problems.push('image did not load: ' + img.getAttribute('src'));
  }
  const contents = document.querySelector('div.contents') || document.body;
  // Folded blocks: each one whole (its summary first, its content inside), then opened, so that what
  // a reader sees on opening it is checked too; those that were closed are closed again at the end.
  const closed = [...contents.querySelectorAll('details:not([open])')];
  for (const d of contents.querySelectorAll('details')) {
    const first = d.firstElementChild;
    const summary = (first && first.tagName === 'SUMMARY') ? first : null;
    const label = (summary ? summary.textContent : d.textContent).trim().replace(/\s+/g, ' ').slice(0, 60);
    if (!summary) problems.push('a folded block without its <summary> first: "' + label + '"');
    else if (![...d.childNodes].some(n => n !== summary && (n.nodeType === 1 || n.textContent.trim())))
      problems.push('a folded block with nothing in it (Doxygen put its content after it): "' + label + '"');
    if (d.parentElement && d.parentElement.tagName === 'P') {
      problems.push('a folded block inside a paragraph: "' + label + '"');
    }
    d.open = true;
  }
  await new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const codeLike = el => el.closest('pre, code, div.fragment, script, style, .MathJax_SVG, .MathJax_Preview');
  const raw = [/\\f\$/, /\\f\[/, /```/, /@ref\b/, /\\ref\b/, /\\snippet\b/, /\\image\b/, /\\includedoc\b/,
               /\\tryit\b/, /GENERATED_CONTENT/, /<\/?(details|summary)\b/];
  const walker = document.createTreeWalker(contents, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement || codeLike(node.parentElement)) continue;
    for (const pattern of raw) {
      if (pattern.test(node.textContent)) {
        problems.push('raw markup ' + pattern.source + ' in the text: "' + node.textContent.trim().slice(0, 80) + '"');
      }
    }
  }
  document.querySelectorAll('.caption, .table-caption').forEach(c => {
    if (c.textContent.includes('`')) problems.push('backtick in a caption: "' + c.textContent.trim().slice(0, 80) + '"');
  });
  // The page scrolls in #doc-content (the side menu stays put), or in the document itself.
  for (const box of [document.documentElement, document.getElementById('doc-content')]) {
    if (box && box.scrollWidth > box.clientWidth + 1) {
      problems.push('the page scrolls sideways: ' + box.scrollWidth + ' px of content in ' + box.clientWidth + ' px');
    }
  }
  const columnRight = contents.getBoundingClientRect().right;
  const scrolls = el => { const s = getComputedStyle(el); return s.overflowX === 'auto' || s.overflowX === 'scroll'; };
  const reported = new Set();
  for (const el of contents.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= columnRight + 1) continue;
    let boxed = false;
    for (let a = el.parentElement; a && a !== contents.parentElement; a = a.parentElement) {
      if (scrolls(a) && a.getBoundingClientRect().right <= columnRight + 1) { boxed = true; break; }
    }
    if (boxed) continue;
    let outer = el;  // report the outermost element that sticks out, once
    while (outer.parentElement && outer.parentElement !== contents &&
           outer.parentElement.getBoundingClientRect().right > columnRight + 1) outer = outer.parentElement;
    if (reported.has(outer)) continue;
    reported.add(outer);
    problems.push('cut off on the right: <' + outer.tagName.toLowerCase() + (outer.className ? ' class="' + outer.className + '"' : '') +
                  '> reaches ' + Math.round(outer.getBoundingClientRect().right) + ' px, the column ends at ' + Math.round(columnRight) +
                  ' px ("' + outer.textContent.trim().slice(0, 60) + '")');
  }
  // How many lines the browser drew an element's text on: the distinct tops of its line boxes.
  const drawnLines = el => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set();
    for (const r of range.getClientRects()) if (r.height > 0 && r.width > 0) tops.add(Math.round(r.top));
    return tops.size;
  };
  const wraps = el => !/^(pre|nowrap)$/.test(getComputedStyle(el).whiteSpace);
  const firstRow = table => [...table.rows[0].cells].map(c => c.textContent.trim()).join(' | ');
  const excerpt = el => '"' + (el.rows ? firstRow(el) : el.textContent)  // a table by its first row
      .trim().replace(/\s+/g, ' ').slice(0, 60) + '"';
  // Tables: within the column, and no number over two lines.
  const NUMBER = /^[-+~<>≈±]?\s?\d[\d,.]*(e[-+]?\d+)?(\s?[x×]\s?\d[\d,.]*)*(\s?(%|×|x|[A-Za-zµ/]{1,8}))?$/;
  for (const table of contents.querySelectorAll('table.markdownTable, table.doxtable')) {
    // Its cells as laid out (whichever box scrolls, the table or its body) against what is in view.
    const r = table.getBoundingClientRect();
    const cells = [...table.querySelectorAll('td, th')];
    if (r.width === 0 || !cells.length) continue;
    const needs = Math.max(...cells.map(c => c.getBoundingClientRect().right)) - r.left;
    const shown = Math.min(table.clientWidth || r.width, columnRight - r.left);
    if (needs > shown + 1) {
      problems.push('table wider than the column: ' + Math.round(needs) + ' px of table in ' + Math.round(shown) +
                    ' px (' + excerpt(table) + ')');
    }
    for (const cell of table.querySelectorAll('td, th')) {
      const text = cell.textContent.trim();
      if (NUMBER.test(text) && drawnLines(cell) > 1) {
        problems.push('a number broken over two lines in a table: "' + text + '" (' + excerpt(table) + ')');
      }
    }
  }
  // Lines wrapped a second time: each line of a listing, each line of program output, on one line.
  for (const line of contents.querySelectorAll('div.fragment div.line')) {
    if (wraps(line) && drawnLines(line) > 1) problems.push('a listing line wrapped by the page: ' + excerpt(line));
  }
  for (const pre of contents.querySelectorAll('pre')) {
    if (pre.getBoundingClientRect().width === 0) continue;
    const written = pre.textContent.replace(/\n+$/, '').split('\n').length;
    if (wraps(pre)) {
      const drawn = drawnLines(pre);
      if (drawn > written) {
        problems.push('program output wrapped by the page: ' + written + ' lines drawn as ' + drawn +
                      ' (' + excerpt(pre) + ')');
      }
    }
    if (pre.scrollWidth > pre.clientWidth + 1) {
      problems.push('program output wider than the column: ' + pre.scrollWidth + ' px of lines in ' + pre.clientWidth +
                    ' px; the longest line has ' + Math.max(...pre.textContent.split('\n').map(l => l.length)) +
                    ' columns (' + excerpt(pre) + ')');
    }
  }
  // The side menu: every title whole.
  const tree = document.getElementById('nav-tree');
  if (tree && tree.getBoundingClientRect().width > 0) {
    const right = tree.getBoundingClientRect().right;
    for (const label of tree.querySelectorAll('.label')) {
      const r = label.getBoundingClientRect();
      if (r.width > 0 && (r.right > right + 1 || label.scrollWidth > label.clientWidth + 1)) {
        problems.push('the side menu cuts the title ' + excerpt(label));
      }
    }
  }
  // Characters drawn as boxes: on a canvas, in the font of the text around them, a character no
  // installed font has looks exactly like U+0378 (a code point no font has).
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 48;
  const pen = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (ch, family) => {
    pen.clearRect(0, 0, 48, 48);
    pen.font = '32px ' + family;
    pen.fillText(ch, 6, 38);
    return pen.getImageData(0, 0, 48, 48).data.join(',');
  };
  const boxes = new Map(), tried = new Set(), missing = new Map();
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, svg, math, .MathJax_SVG, .MathJax_Preview')) continue;
    const family = getComputedStyle(parent).fontFamily;
    for (const ch of node.textContent) {
      if (ch.codePointAt(0) < 0x80 || /\s/.test(ch) || tried.has(ch + family)) continue;
      tried.add(ch + family);
      if (!boxes.has(family)) boxes.set(family, draw('\u0378', family));
      if (draw(ch, family) === boxes.get(family) && !missing.has(ch)) missing.set(ch, excerpt(parent));
    }
  }
  if (missing.size) {  // one line per page: the characters, their code points, where the first one is
    const chars = [...missing.keys()];
    problems.push('no installed font has ' + chars.join('') + ' (' + chars.map(
        ch => 'U+' + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')).join(' ') +
        '): drawn as boxes, e.g. in ' + missing.get(chars[0]));
  }
  // Figures: loaded, not cropped, text at least MIN px as shown, and no two labels on top of each other.
  const figures = [...contents.querySelectorAll('object[type="image/svg+xml"], img')].filter(
      f => /\.svg$/.test(f.getAttribute('data') || f.getAttribute('src') || ''));
  for (const figure of figures) {
    const name = figure.getAttribute('data') || figure.getAttribute('src');
    const svgDoc = figure.tagName === 'OBJECT' ? figure.contentDocument : null;
    if (figure.tagName === 'IMG') {
      const scale = figure.getBoundingClientRect().width / (figure.naturalWidth || 1);
      figureInfo.push({src: name, scale: scale});
      continue;
    }
    if (!svgDoc || !svgDoc.documentElement || svgDoc.documentElement.tagName.toLowerCase() !== 'svg') {
      problems.push('figure did not load: ' + name);
      continue;
    }
    const svg = svgDoc.documentElement;
    const shown = figure.getBoundingClientRect();
    const drawn = svg.getBoundingClientRect();
    if (drawn.width > shown.width + 1 || drawn.height > shown.height + 1) {
      problems.push('figure cropped: ' + name + ' is drawn ' + Math.round(drawn.width) + ' x ' + Math.round(drawn.height) +
                    ' px in a ' + Math.round(shown.width) + ' x ' + Math.round(shown.height) + ' px box');
    }
    const labels = [];
    let small = false;
    for (const text of svg.querySelectorAll('text')) {
      if (!text.textContent.trim()) continue;
      const ctm = text.getScreenCTM();
      const px = parseFloat(svgDoc.defaultView.getComputedStyle(text).fontSize) * Math.hypot(ctm.a, ctm.b);
      if (px < MIN_PX - 0.05 && !small) {
        small = true;  // one line per figure
        problems.push('text too small in ' + name + ': "' + text.textContent.trim().slice(0, 40) + '" is ' + px.toFixed(1) + ' px');
      }
      if (Math.abs(ctm.b) < 1e-6) labels.push([text, text.getBoundingClientRect()]);
    }
    let overlaps = 0;
    for (let i = 0; i < labels.length && overlaps < 3; ++i) {
      for (let j = i + 1; j < labels.length && overlaps < 3; ++j) {
        const a = labels[i][1], b = labels[j][1];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 2) {
          ++overlaps;
          problems.push('labels overlap in ' + name + ': "' + labels[i][0].textContent.trim().slice(0, 30) + '" and "' +
                        labels[j][0].textContent.trim().slice(0, 30) + '"');
        }
      }
    }
  }
  // Listings that scroll sideways hide part of their lines until scrolled: not an error, but noted.
  const scrolling = [...contents.querySelectorAll('div.fragment')].filter(
      el => el.scrollWidth > el.clientWidth + 1 && scrolls(el)).map(
      el => '<' + el.tagName.toLowerCase() + '> "' + el.textContent.trim().slice(0, 50) + '" scrolls: ' +
            el.scrollWidth + ' px of content in ' + el.clientWidth + ' px');
  for (const d of closed) d.open = false;
  const scroller = document.getElementById('doc-content');
  const height = Math.max(document.documentElement.scrollHeight, scroller ? scroller.scrollHeight + scroller.offsetTop : 0);
  return {problems: problems, figures: figureInfo, height: height, scrolling: scrolling};
})()
"""


class Browser:
    """Chromium with the DevTools protocol on fds 3 (commands in) and 4 (replies out)."""

    def __init__(self, chromium):
        self.profile = tempfile.TemporaryDirectory(prefix="book-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire():  # in the child: the pipe ends become fds 3 and 4, whatever numbers they had
            commands, replies = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(commands, 3)
            os.dup2(replies, 4)

        args = [chromium, "--headless=new", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--allow-file-access-from-files",
                f"--user-data-dir={self.profile.name}", "--force-device-scale-factor=1", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run its sandbox as root
        self.process = subprocess.Popen(args, pass_fds=(3, 4, to_child_r, from_child_w), preexec_fn=wire,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no reply from Chromium")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=PAGE_TIMEOUT_S):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session, timeout=PAGE_TIMEOUT_S):
        deadline = time.monotonic() + timeout
        while True:
            for k, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[: k + 1]
                    return event
            self.events.append(self._read_message(deadline))

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.profile.cleanup()


class Tab:
    def __init__(self, browser):
        self.browser = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Network.enable")
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": MATHJAX_HOOK})

    def call(self, method, params=None):
        return self.browser.send(method, params, self.session)

    def open(self, url, width, math=True):
        # A page without formulas does not need MathJax: not loading it saves most of the time per page.
        self.call("Network.setBlockedURLs", {"urls": [] if math else ["*/mathjax/*"]})
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        self.browser.events.clear()
        self.call("Page.navigate", {"url": url})
        self.browser.wait_event("Page.loadEventFired", self.session)
        result = self.call("Runtime.evaluate", {"expression": PAGE_CHECK.replace("__MIN_PX__", str(MIN_FIGURE_TEXT_PX)), "awaitPromise": True, "returnByValue": True,
                                                "timeout": PAGE_TIMEOUT_S * 1000})
        if "exceptionDetails" in result:
            raise RuntimeError(f"the page check failed: {result['exceptionDetails'].get('text')}")
        return result["result"]["value"]

    def screenshot(self, path, width, height):
        # A window as tall as the content, so that the scrolled part is laid out and captured too.
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        time.sleep(0.3)
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
        path.write_bytes(base64.b64decode(data["data"]))


def smallest_font(svg_path):
    """The smallest font-size in an SVG (its root's size counts for text that sets none)."""
    text = svg_path.read_text(encoding="utf-8", errors="replace")
    sizes = [float(s) for s in re.findall(r'font-size="([0-9.]+)', text)]
    sizes += [float(s) for s in re.findall(r"font-size:\s*([0-9.]+)px", text)]
    return min(sizes) if sizes else 16.0


def has_formulas(page):
    """Doxygen writes a formula as \\( ... \\) or \\[ ... \\] for MathJax to typeset."""
    return re.search(r"\\[(\[]", page.read_text(encoding="utf-8", errors="replace")) is not None


def book_pages(order_file):
    """The file names of the book's own pages (from the Markdown pages), not the API reference."""
    stems = [line.strip() for line in order_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {("readme" if stem == "README" else stem) + ".html" for stem in stems}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", required=True, help="the Chromium (or Chrome) executable")
    parser.add_argument("--html", required=True, type=pathlib.Path, help="the built site (build/book/html)")
    parser.add_argument("--order", required=True, type=pathlib.Path,
                        help="the book's pages in order (config/book_order.txt): checked at every width, photographed")
    parser.add_argument("--screenshots", type=pathlib.Path, help="where to save 1280 px screenshots of the book's pages")
    parser.add_argument("--pages", nargs="*", help="only these pages (file names), for a quick look")
    args = parser.parse_args()

    every = sorted(args.html.glob("*.html"))
    if args.pages:
        every = [p for p in every if p.name in args.pages]
    ours = book_pages(args.order)
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    try:
        browser = Browser(args.chromium)
        tab = Tab(browser)
    except (OSError, RuntimeError, TimeoutError) as error:
        print(f"browser_check.py: error: cannot drive Chromium ({args.chromium}): {error}")
        return 2

    problems, notes, checked, started = [], [], 0, time.monotonic()
    try:
        for page in every:
            for width in WIDTHS if page.name in ours else WIDTHS[:1]:
                try:
                    found = tab.open(page.resolve().as_uri(), width, has_formulas(page))
                except (RuntimeError, TimeoutError) as error:
                    problems.append(f"{page.name} at {width} px: {error}")
                    continue
                checked += 1
                for problem in found["problems"]:
                    problems.append(f"{page.name} at {width} px: {problem}")
                if page.name in ours:
                    notes += [f"{page.name} at {width} px: {box}" for box in found["scrolling"]]
                for figure in found["figures"]:  # <img> figures: the SVG's smallest font, scaled as shown
                    svg = args.html / figure["src"]
                    if svg.is_file() and smallest_font(svg) * figure["scale"] < MIN_FIGURE_TEXT_PX - 0.05:
                        problems.append(f"{page.name} at {width} px: text in {figure['src']} is "
                                        f"{smallest_font(svg) * figure['scale']:.1f} px as shown: under "
                                        f"{MIN_FIGURE_TEXT_PX:.0f} px")
                if args.screenshots and page.name in ours and width == WIDTHS[0]:
                    tab.screenshot(args.screenshots / f"{page.stem}.png", width, min(int(found["height"]), 30000))
    finally:
        browser.close()

    for note in notes:
        print(f"browser_check.py: note: {note}")
    for problem in problems:
        print(f"browser_check.py: {problem}")
    seconds = time.monotonic() - started
    if problems:
        print(f"browser_check.py: {len(problems)} problem(s) in {checked} page view(s) ({seconds:.0f} s)")
        return 1
    print(f"browser_check.py: {checked} page view(s) of {len(every)} pages passed ({seconds:.0f} s)"
          + (f"; screenshots in {args.screenshots}" if args.screenshots else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
