"""Experiments the app runs as jobs: real models trained and attacked, one typed result each.

Each module here trains or simulates something real -- a model on a bundled dataset, with
and without a privacy mechanism -- attacks it, and returns one frozen result holding the
per-record scores, the truth and the settings, for the theory of :mod:`mipcore` (e.g.
:mod:`mipcore.score_audit`) to read. They take an explicit seed (same seed, same result),
report ``progress(fraction, message)`` as :func:`appkit.jobs.run` passes it, never download
anything, never import Streamlit and never cache: a page runs them through ``appkit``'s jobs.
"""
