"""Calls into the Go library: Ctrl-C cancels them, the GIL is released
while they run, threads fit at once, and cycles do not leak."""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import covpipe
import covpipe.sklearn as cs
from conftest import spd_data


def long_fit():
    """A fit of minutes: 3000 matrices of 8×8, nine candidates, five folds."""
    X, y = spd_data(1000, d=8, classes=3, seed=4)
    return cs.SteinSRC(sigma=[3.5, 4, 5], lambda_ratio=[0.01, 0.05, 0.1], folds=5), X, y


def test_keyboard_interrupt_cancels_a_fit_within_a_second():
    clf, X, y = long_fit()
    sent = {}

    def interrupt():
        sent["at"] = time.monotonic()
        os.kill(os.getpid(), signal.SIGINT)

    # A shell that starts a job in the background ignores SIGINT for it,
    # and Python then keeps ignoring it: install Python's own handler, as
    # an interactive session has it.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            clf.fit(X, y)
        returned = time.monotonic()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert returned - sent["at"] < 1.0, "the fit returned %.2f s after SIGINT" % (returned - sent["at"])
    assert not hasattr(clf, "model_")


def test_token_cancels_from_another_thread():
    clf, X, y = long_fit()
    with covpipe.Token() as tok:
        threading.Timer(0.3, tok.cancel).start()
        with pytest.raises(covpipe.Cancelled):
            covpipe.fit(X, [str(v) for v in y], "rsr", params=clf._options(), folds=5, token=tok)


def test_gil_is_released_during_calls():
    # A Python thread runs while another is inside a Go call: were the GIL
    # held, the main thread could not count until the call had returned.
    clf, X, y = long_fit()
    state = {"inside": False}
    tok = covpipe.Token()

    def fit():
        state["inside"] = True
        try:
            covpipe.fit(X, [str(v) for v in y], "rsr", params=clf._options(), folds=5, token=tok)
        except covpipe.Cancelled:
            pass
        state["inside"] = False

    t = threading.Thread(target=fit)
    t.start()
    while not state["inside"]:
        time.sleep(0.01)
    time.sleep(0.2)  # well inside the foreign call
    count = 0
    for _ in range(200000):
        count += 1
    still_inside = state["inside"]
    tok.cancel()
    t.join()
    tok.close()
    assert count == 200000 and still_inside


def test_two_threads_fit_as_sequential_fits():
    sets = [spd_data(15, d=5, seed=s) for s in (1, 2)]
    make = lambda: cs.SteinSRC(sigma=[2, 3], lambda_ratio=[0.05, 0.1], folds=3)
    sequential = [make().fit(X, y).predict_scores(X) for X, y in sets]
    out = [None, None]

    def run(k):
        X, y = sets[k]
        out[k] = make().fit(X, y).predict_scores(X)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(out, sequential):
        assert np.array_equal(a.label, b.label)
        assert a.score.tobytes() == b.score.tobytes() and a.sci.tobytes() == b.sci.tobytes()


# Run in a fresh interpreter: after the other tests' large fits, the Go
# runtime returns their freed memory to the system and takes it back as
# later calls allocate, which looks like growth to an RSS measure.
MEMORY_CYCLES = """
import os
import covpipe.sklearn as cs
from conftest import spd_data

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

X, y = spd_data(20, d=5)

def cycle():
    clf = cs.SteinSRC(sigma=2).fit(X, y)
    clf.predict(X)
    clf.predict_scores(X)
    clf.predict_proba(X)
    clf.decision_function(X)

for _ in range(20):
    cycle()
before = rss()
for _ in range(100):
    cycle()
print(before, rss())
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_fit_predict_cycles_do_not_grow_memory():
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(here), here]))
    out = subprocess.run([sys.executable, "-c", MEMORY_CYCLES], env=env, check=True, capture_output=True, text=True)
    before, after = map(int, out.stdout.split())
    assert after < 1.1 * before, "RSS grew from %d to %d bytes over 100 cycles" % (before, after)
