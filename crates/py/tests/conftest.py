import signal

import pytest


@pytest.fixture(autouse=True)
def sigint_raises_keyboard_interrupt():
    # The Ctrl-C tests raise SIGINT and expect KeyboardInterrupt. A process started in the
    # background without job control inherits SIGINT ignored, and Python then installs no
    # handler, so the signal would be dropped and an endless launch would never stop.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
