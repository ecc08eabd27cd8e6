#!/usr/bin/env python3
"""Centre of mass (equal-mass particles) of powder PLY frames: one line per file, "file x y z"."""
import struct
import sys


def com(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode("ascii")
    count = int(next(l.split()[2] for l in header.splitlines() if l.startswith("element vertex")))
    stride = 4 * sum(1 for l in header.splitlines() if l.startswith("property"))
    sx = sy = sz = 0.0
    for i in range(count):
        x, y, z = struct.unpack_from("<3f", data, end + i * stride)
        sx, sy, sz = sx + x, sy + y, sz + z
    return sx / count, sy / count, sz / count


for path in sys.argv[1:]:
    print(path, "%.5f %.5f %.5f" % com(path))
