"""Fixtures for the autograph tests: the fake backend, registered for one test."""

import pytest
from fake_backend import FakeBackend

import autograph


@pytest.fixture
def fake():
    backend = FakeBackend()
    autograph.register_backend(backend)
    yield backend
    autograph.unregister_backend(backend)
