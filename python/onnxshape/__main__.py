"""python3 -m onnxshape ARGS: the onnxshape command line, run as the tool itself.

The tool is a separate program (src/cli), so this replaces the process with it
(arguments, exit status and output are the tool's). Where it is, first match wins,
as the library is found (_lib.py): the one a wheel bundles (onnxshape/bin/onnxshape),
the one make install put in the prefix's bin (named by _location.py), the source
tree's build/onnxshape. The `onnxshape` script a wheel installs calls main() too.
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional


def candidates() -> List[str]:
    here = os.path.dirname(os.path.abspath(__file__))
    found = [os.path.join(here, "bin", "onnxshape")]
    try:
        from . import _location  # type: ignore[attr-defined]  # only in make install's layout

        cli = getattr(_location, "CLI", "")
        if cli:
            found.append(os.path.normpath(os.path.join(here, cli)))
    except ImportError:
        pass
    found.append(os.path.join(os.path.dirname(os.path.dirname(here)), "build", "onnxshape"))
    return found


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    tried = []
    for path in candidates():
        if os.path.isfile(path) and os.access(path, os.X_OK):
            try:
                os.execv(path, ["onnxshape", *args])
            except OSError as e:
                tried.append(f"{path} ({e.strerror})")
        else:
            tried.append(f"{path} (not found)")
    print("onnxshape: the command-line tool is not installed with this package; tried: " + "; ".join(tried),
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
