#!/usr/bin/env python3
"""Doxygen input filter: blank the `//! [name]` snippet-marker lines of a source file.

A marker line is also a Doxygen comment (`//!`), so without this filter Doxygen would take "[name]"
as the documentation of the declaration that follows it. Blanking (not deleting) keeps line numbers.
Doxygen reads snippets from the unfiltered file, so the book's listings still find their markers.
"""
import re
import sys

MARKER = re.compile(r"^\s*//!\s*\[[^\]]+\]\s*$")

with open(sys.argv[1], encoding="utf-8") as source:
    for line in source:
        sys.stdout.write("\n" if MARKER.match(line) else line)
