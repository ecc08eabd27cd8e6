#!/usr/bin/env python3
"""Draws PLY frames from `powder run` as particle-density pictures, standard library only.

    scripts/ply_view.py OUT.pgm FRAME.ply [FRAME.ply ...]

For each frame, two orthographic views of a 2 × 1 × 1 m domain (the shipped scenes' own), one
above the other: the side (x right, z up) and the top (x right, y up). Each particle darkens its
pixel, so dense snow is dark and loose crumbs are grey dots. Convert the PGM with any image tool,
e.g. `convert OUT.pgm OUT.png`.
"""
import struct
import sys

WIDTH, HEIGHT = 600, 300


def load(path):
    """Particle positions of a powder PLY: 7 floats (x y z vx vy vz jp) and a uint per vertex."""
    data = open(path, "rb").read()
    start = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:start].decode()
    count = int(next(l for l in header.splitlines() if l.startswith("element vertex")).split()[2])
    return [struct.unpack_from("<7fI", data, start + 32 * k)[:3] for k in range(count)]


def view(points, u, v):
    """Rows of grey levels: axis u (index, lo, hi) across, axis v up."""
    image = [[255] * WIDTH for _ in range(HEIGHT)]
    (ui, ulo, uhi), (vi, vlo, vhi) = u, v
    for p in points:
        x = int((p[ui] - ulo) / (uhi - ulo) * WIDTH)
        y = HEIGHT - 1 - int((p[vi] - vlo) / (vhi - vlo) * HEIGHT)
        if 0 <= x < WIDTH and 0 <= y < HEIGHT:
            image[y][x] = max(0, image[y][x] - 60)
    return image


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = []
    for path in sys.argv[2:]:
        points = load(path)
        rows += view(points, (0, 0.0, 2.0), (2, 0.0, 1.0)) + [[0] * WIDTH] * 3
        rows += view(points, (0, 0.0, 2.0), (1, 0.0, 1.0)) + [[0] * WIDTH] * 6
    with open(sys.argv[1], "w") as out:
        out.write(f"P2\n{WIDTH} {len(rows)}\n255\n")
        for row in rows:
            out.write(" ".join(map(str, row)) + "\n")


if __name__ == "__main__":
    main()
