"""Text that goes into the book's generated Markdown, made safe for Doxygen (Python 3 standard library)."""
import html
import re


def escape(text):
    """@text safe in a Doxygen Markdown page or table cell: no column breaks, commands, HTML tags,
    emphasis, link requests ("::name" asks Doxygen for a link), and no dashes turned into en or em dashes
    ("--n" stays "--n")."""
    text = str(text)
    for old, new in (("\\", "\\\\"), ("&", "&amp;"), ("|", "\\|"), ("<", "&lt;"), (">", "&gt;"), ("@", "\\@"),
                     ("#", "\\#"), ("*", "\\*"), ("`", "'"), ("::", "\\::"), ("$", "\\$")):
        text = text.replace(old, new)
    return re.sub(r"-{2,3}", lambda m: "\\" + m.group(0), text)


# A folded block (<details>) as Doxygen 1.9.4 passes it on: each tag inside \htmlonly. Given as they are,
# Doxygen closes the <details> before the Markdown inside it. In a page, each tag is a \htmlonly[block]
# line of its own (book/tools/page_filter.py turns the pages' plain <details> lines into those). A
# generated fragment is read by \includedoc, which takes no [block] and runs the fragment into the
# paragraph around it: there plain \htmlonly (folded()), whose <details> the browser lets end that
# paragraph.
def details_start(summary, is_open=False, block=True):
    """The \\htmlonly that opens a folded block whose summary is @summary (plain words, `code` spans)."""
    return (f"\\htmlonly{'[block]' if block else ''}<details{' open' if is_open else ''}>"
            f"<summary>{summary_html(summary)}</summary>\\endhtmlonly")


def details_end(block=True):
    return f"\\htmlonly{'[block]' if block else ''}</details>\\endhtmlonly"


def summary_html(text):
    """A summary's words as HTML: escaped, with `code` spans as <code>."""
    parts = str(text).strip().split("`")
    if len(parts) % 2 == 0:
        raise ValueError(f"an unpaired backtick in the summary '{text}'")
    return "".join(f"<code>{html.escape(p, quote=False)}</code>" if i % 2 else html.escape(p, quote=False)
                   for i, p in enumerate(parts))


def folded(summary, body, is_open=False):
    """@body (Markdown: tables, <div> paragraphs, images) folded away under @summary, in a generated
    fragment that a page includes with \\includedoc."""
    return f"\n{details_start(summary, is_open, block=False)}\n\n{body.strip()}\n\n{details_end(block=False)}\n"
