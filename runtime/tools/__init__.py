"""Tools over traced functions and graphs: `rt.explain`, checking (`check=True`), pictures of
graphs (Graphviz) and `rt.profile`."""
