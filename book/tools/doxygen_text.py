"""Text that goes into the book's generated Markdown, made safe for Doxygen (Python 3 standard library)."""
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
