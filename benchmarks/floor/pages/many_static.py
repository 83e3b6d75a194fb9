"""The slider, then 40 Markdown paragraphs and 4 metrics that never change (sent on every run)."""

from floor_common import slider, static_block

slider()
static_block()
