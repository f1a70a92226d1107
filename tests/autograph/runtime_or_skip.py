"""`rt`: the runtime, or a clean skip of the whole test module when it cannot import yet."""

import pytest

try:
    import runtime as rt
    from runtime import autograph_backend  # noqa: F401 - registers the backend
except Exception as e:  # noqa: BLE001 - any import failure means "runtime not ready"
    pytest.skip(f"runtime is not importable yet ({type(e).__name__}: {e})", allow_module_level=True)

__all__ = ["rt"]
