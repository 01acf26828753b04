"""The browser tests' fixtures, from :mod:`web.support` (its asserts rewritten by
pytest, as a test module's are)."""

import pytest

pytest.register_assert_rewrite("web.support")

from web.support import (  # noqa: E402, F401  (the fixtures)
    browser,
    page,
    patient_server,
    paused_server,
    server,
)
