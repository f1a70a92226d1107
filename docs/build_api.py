"""Builds the API reference (HTML, from the docstrings, by pdoc) of the public API: `runtime`
(what `import runtime as rt` offers, and its public modules) and `autograph`.

    pip install -e ".[docs]"
    python docs/build_api.py build/api      # then open build/api/index.html

A warning while building (a docstring pdoc cannot read, a module that fails to import) is an
error: the script lists the warnings and exits with status 1.
"""

import argparse
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPECS = ("runtime", "autograph")


def build(output: pathlib.Path) -> list[str]:
    """Writes the reference into `output`; returns the warnings raised while building."""
    import pdoc

    sys.path.insert(0, str(ROOT))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.render.configure(docformat="markdown", footer_text="tracegraph")
        pdoc.pdoc(*SPECS, output_directory=output)
    return [f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}" for w in caught]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=pathlib.Path, nargs="?", default=ROOT / "build" / "api",
                        help="directory to write the HTML into (default: build/api)")
    args = parser.parse_args(argv)
    problems = build(args.output)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"API reference: {args.output / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
