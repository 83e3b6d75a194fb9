"""The slider, then 40 Markdown paragraphs and 4 metrics that all follow the slider."""

from floor_common import live_block, slider

live_block(slider())
