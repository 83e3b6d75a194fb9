"""Text that comes from a URL, an upload or a user is shown as text, never as Markdown or HTML.

Streamlit renders Markdown in ``st.markdown``, ``st.warning``, ``st.error``, captions, widget
labels and more: a link ``[Official notice](https://…)`` or an image ``![](https://…)`` put
into one of them from a crafted share link or a CSV header would become a working link or a
fetched image inside the app's own messages. :func:`plain` escapes every character Markdown,
Streamlit's directives (``:red[…]``, ``:material/…:``) or LaTeX (``$…$``) could act on, so the
text shows exactly as typed. Use it on every user-derived piece of a sentence; the sentence
around it may still use Markdown.
"""

from __future__ import annotations

import re

__all__ = ["plain", "quote"]

# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of
# them is simpler and safer than deciding which ones matter in which position.
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
# GitHub-flavoured Markdown also turns bare "https://…", "www.…" and e-mail addresses into
# links, escaped or not: a zero-width space inside each pattern keeps them plain text.
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)")
_ZWSP = "\u200b"


def plain(text: object, *, max_chars: int = 200) -> str:
    """``text`` as a Markdown-inert string: punctuation escaped, line breaks and control
    characters replaced by spaces, cut to ``max_chars`` characters (with "…").

    >>> plain("[click](https://example.com)").replace("\\u200b", "")
    '\\\\[click\\\\]\\\\(https\\\\:\\\\/\\\\/example\\\\.com\\\\)'
    """
    s = _CONTROL.sub(" ", str(text))
    if len(s) > max_chars:
        s = s[: max_chars - 1] + "…"
    return _PUNCT.sub(r"\\\1", _AUTOLINK.sub(_ZWSP, s))


def quote(text: object, *, max_chars: int = 200) -> str:
    """:func:`plain` text between typographic quotes, for “the link set …” sentences."""
    return f"“{plain(text, max_chars=max_chars)}”"
