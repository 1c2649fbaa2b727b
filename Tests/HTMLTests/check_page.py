#!/usr/bin/env python3
"""Test oracle for the html sink: parses a page with html5lib (the HTML5 parsing algorithm, as browsers do)
and prints what the Swift tests check, as JSON:

  errors    html5lib's parse errors (a well-formed page has none)
  sections  per <section class="day">: id, the heading's text, entry titles, whether it says "No events"
  external  every reference that would make a request elsewhere: src, a stylesheet's href, <use> href,
            url(...) in <style> or style="" that is http:, https:, protocol-relative or not a #fragment
  ids       duplicated id attributes
  strip     the strip's links (href) in order, and strip_cells: every cell of the strip (link or not)
  scripts   number of <script> elements
  title     the <title> text
  legend    the legend of sources: each item's text and its --c colour (None: the page's accent)
  sections  also carry "entries": per entry its title, its --c colour and its source text (class "src")

Usage: python3 check_page.py PAGE.html
"""
import json
import re
import sys

import html5lib

URL_IN_CSS = re.compile(r"url\(\s*['\"]?([^'\")]*)", re.I)


def text(el):
    return "".join(el.itertext()).strip()


def classes(el):
    return (el.get("class") or "").split()


def colour(el):
    m = re.search(r"--c:([^;]+)", el.get("style") or "")
    return m.group(1).strip() if m else None


def main(path):
    parser = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False)
    with open(path, "rb") as f:
        root = parser.parse(f, transport_encoding="utf-8")
    errors = ["line %d col %d: %s %s" % (pos[0], pos[1], code, data) for pos, code, data in parser.errors]
    external = []

    def outside(url):
        u = url.strip().lower()
        return u.startswith("http:") or u.startswith("https:") or u.startswith("//") or not (u.startswith("#") or u.startswith("data:"))

    ids = {}
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.split("}")[-1]
        for name, value in el.attrib.items():
            local = name.split("}")[-1]
            if local == "src" and value:
                external.append("%s src=%s" % (tag, value))
            if local == "href" and tag in ("link", "use", "image", "script"):
                if tag != "use" or outside(value):
                    external.append("%s href=%s" % (tag, value))
            if local == "style":
                for m in URL_IN_CSS.finditer(value):
                    if outside(m.group(1)):
                        external.append("style url(%s)" % m.group(1))
            if local == "id":
                ids[value] = ids.get(value, 0) + 1
        if tag == "style":
            css = el.text or ""
            for m in URL_IN_CSS.finditer(css):
                if outside(m.group(1)):
                    external.append("<style> url(%s)" % m.group(1))
            if "@import" in css:
                external.append("<style> @import")

    sections = []
    for sec in root.iter("section"):
        if "day" not in classes(sec):
            continue
        head = sec.find(".//h2")
        titles = [text(h) for h in sec.iter("h3") if "title" in classes(h)]
        empty = any("empty" in classes(p) and text(p) == "No events" for p in sec.iter("p"))
        weather = [el.get("aria-label") for el in sec.iter() if isinstance(el.tag, str)
                   and el.tag.split("}")[-1] == "svg" and "wxi" in classes(el)]
        entries = []
        for li in sec.iter("li"):
            if "entry" not in classes(li):
                continue
            title = next((text(h) for h in li.iter("h3") if "title" in classes(h)), None)
            source = next((text(p) for p in li.iter("p") if "src" in classes(p)), None)
            entries.append({"title": title, "color": colour(li), "source": source})
        sections.append({"id": sec.get("id"), "heading": text(head) if head is not None else None,
                         "titles": titles, "empty": empty, "weather": weather, "entries": entries})

    strip = []
    strip_cells = 0
    for table in root.iter("table"):
        if "strip" in classes(table):
            strip = [a.get("href") for a in table.iter("a")]
            strip_cells = sum(1 for _ in table.iter("td"))

    legend = []
    for ul in root.iter("ul"):
        if "legend" in classes(ul):
            legend = [{"text": text(li), "color": colour(li), "label": ul.get("aria-label")} for li in ul.iter("li")]
    title = next((text(t) for t in root.iter("title")), None)

    html = root if root.tag.split("}")[-1] == "html" else root.find(".//html")
    print(json.dumps({
        "errors": errors,
        "sections": sections,
        "external": external,
        "ids": sorted(k for k, v in ids.items() if v > 1),
        "strip": strip,
        "strip_cells": strip_cells,
        "legend": legend,
        "title": title,
        "scripts": sum(1 for _ in root.iter("script")),
        "lang": html.get("lang") if html is not None else None,
        "h1": [text(h) for h in root.iter("h1")],
    }, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1])
