"""The runtime's core: dtypes, tensors, conversion of values to tensors, graphs, the tracing
context, source locations, generated code and file access. It imports nothing of the runtime
above it (the op library, the executors and the tools provide what it needs when they load);
its public names are re-exported by `runtime` (`rt.constant`, `rt.Tensor`, ...)."""
