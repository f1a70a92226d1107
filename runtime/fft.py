"""rt.fft: numpy.fft's one-axis transforms on tensors, with numpy's names, signatures and
results (the ops are defined in runtime/ops/fft_ops.py)."""

from runtime.ops.fft_ops import fft, ifft, irfft, rfft  # noqa: F401 - the public namespace

__all__ = ["fft", "ifft", "irfft", "rfft"]
