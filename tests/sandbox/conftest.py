import pytest


@pytest.fixture(autouse=True)
def _reset_sandbox_after_each_test(request):
    """Every sandbox test leaves the server as it found it (clock, faults, sizes)."""
    yield
    if "sandbox" in request.fixturenames:
        request.getfixturevalue("sandbox").reset()
