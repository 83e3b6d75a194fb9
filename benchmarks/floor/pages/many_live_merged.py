"""The same text as many_live, written as 4 Markdown elements (10 paragraphs each) and one
Markdown table in place of the 4 metrics: what merging elements saves."""

from floor_common import live_block_merged, slider

live_block_merged(slider())
