"""Experiments the app runs: models, games and toy data -- trained, played or sampled, and
attacked or measured -- with one small typed result each.

``trained_model`` (a digits classifier trained without and with DP-SGD, attacked by a loss
threshold and LiRA), ``covariance`` (Figure 2: the covariance experiment, its plan, runs and
the paper's claims), ``statistic_release`` (a user's statistic released by Algorithm 1 and by
the Laplace mechanism), ``figure1`` (Figure 1's curves and the paper's claims judged for every
even n), ``certificate_gap`` (the exact best attack beside the certificates of Theorems 4, 5
and 9), ``canary_game`` (the membership game with a canary, played in seeded chunks),
``reference_sweep`` (WERM on toy data attacked on its training and reference sets, swept over
its weight), ``mace_synthetic`` (MACE on toy laws with an exact advantage).

A result holds a handful of fields -- what was run and what came out -- and computes the rest
on demand (scipy's ``BinomTestResult`` is the model), for the theory of :mod:`mipcore` to read
and a page to quote. Each experiment takes an explicit seed (same seed, same result), reports
``progress(fraction, message)`` where it runs long (as :func:`appkit.jobs.run` passes it),
never downloads anything, never imports Streamlit and never caches: a page runs it through
``appkit``'s cache or jobs.
"""
