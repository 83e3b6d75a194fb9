"""Lessons and experiments: what a page shows, computed as one typed result.

Each module here answers one page's question with a function that returns a frozen,
typed result holding every number the page quotes (verdicts as structured values, never
sentences). The theory they build on lives in the top-level :mod:`mipcore` modules, one
per concept of the papers; the figures that draw these results live in
:mod:`mipcore.plots`. Nothing here imports Streamlit or caches.
"""
