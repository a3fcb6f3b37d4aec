"""Set-up every test shares."""

import signal

# A suite started in the background by a non-interactive shell (`bash .ci/run &`) inherits SIGINT ignored, and so
# would every program a test starts: a test that stops one with Ctrl-C would wait for ever. A handler of our own
# is reset to the default in the programs the tests start, as an ignored signal is not.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
