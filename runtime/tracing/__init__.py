"""Tracing: `rt.function` (its options, argument binding, call paths, trace cache, retrace
policy, capture guards, signatures), running a Python function on placeholders into a graph
(`trace`), concrete functions, `rt.cond` / `rt.while_loop` (`staged_control_flow`), calls and
inlining of traced functions, Python's builtins over graph tensors, outside state, and the
runtime's registration as autograph's backend."""
