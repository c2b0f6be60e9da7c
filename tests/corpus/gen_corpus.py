#!/usr/bin/env python3
"""Generates the ONNX backend node-test corpus (the ONNX project's own test models and
their input/output data) into a directory, once: later runs reuse it.

This is a test oracle, not part of onnxshape. Debian 12's numpy 1.24 removed the
aliases (numpy.float, ...) that onnx 1.12's generators still use; put them back first.
"""
import os
import sys
import warnings

import numpy

warnings.filterwarnings("ignore")
for alias, typ in (("float", float), ("int", int), ("bool", bool), ("object", object),
                   ("complex", complex), ("str", str)):
    if alias not in numpy.__dict__:
        setattr(numpy, alias, typ)

from onnx.backend.test.cmd_tools import main  # noqa: E402

out = sys.argv[1]
stamp = os.path.join(out, ".complete")
if os.path.exists(stamp):
    sys.exit(0)
sys.argv = ["generate-data", "generate-data", "-o", out]
main()
open(stamp, "w").close()
