"""The Kaggle API stand-in the submit and ladder tests talk to (tests/kaggle_stand_in.py): one a test module."""

import pytest

from tests.kaggle_stand_in import KaggleStandIn, PortBusy


@pytest.fixture(scope="module")
def stand_in():
    server = KaggleStandIn()
    try:
        server.start()
    except PortBusy as error:
        pytest.skip(str(error))
    yield server
    server.stop()
