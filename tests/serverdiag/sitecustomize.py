"""Loaded at start-up by every Python process of a browser test's server (its PYTHONPATH
starts here): SIGUSR1 dumps every thread's stack to stderr, the server's log, so a test that
waited in vain can say where the server was (``browsertools.Server.stacks``)."""

import faulthandler
import signal

faulthandler.register(signal.SIGUSR1, all_threads=True)
