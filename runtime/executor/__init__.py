"""Running graphs: `codegen` compiles a graph to Python source over numpy (the fast path);
`interpreter` walks a graph op by op (the reference the compiled code is tested against)."""
