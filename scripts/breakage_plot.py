#!/usr/bin/env python3
"""Draws the breakage sweep (study.tsv from scripts/breakage_study.sh) as one SVG.

    scripts/breakage_plot.py STUDY_TSV OUT_SVG [TITLE]

Four columns, one per swept parameter (θs, θc, ξ, impact speed), two rows: chunks (pieces of at
least 0.5 % of the mass) and the largest piece's share, each with one line for the snowball into
the wall and one for the two snowballs. Standard library only, so it runs wherever the study does.
"""
import math
import sys

PARAMS = [
    ("theta_s", "critical stretch θs", True),
    ("theta_c", "critical compression θc", True),
    ("xi", "hardening ξ", False),
    ("speed", "impact speed (m/s, each ball)", False),
]
ROWS = [("chunks", "chunks (≥ 0.5 % of the mass)"), ("largest", "largest piece (% of the mass)")]
SCENES = [("wall", "snowball into the wall", "#1f5fa8"), ("pair", "two snowballs", "#c0392b")]
REFERENCE = {"theta_s": 0.0075, "theta_c": 0.025, "xi": 10.0, "speed": None}


def read(path):
    data = {}
    for line in open(path, encoding="utf-8"):
        cols = line.rstrip("\n").split("\t")
        if len(cols) < 4 or " " not in cols[0] or cols[1].startswith("FAILED"):
            continue
        scene, setting = cols[0].split(" ", 1)
        name, value = setting.split("=")
        point = {"chunks": float(cols[2]), "largest": float(cols[3])}
        data.setdefault((scene, name), []).append((float(value), point))
    for points in data.values():
        points.sort()
    return data


def svg(data, title):
    pw, ph, ml, mt, gap = 230, 170, 60, 60, 40
    width = ml + len(PARAMS) * (pw + gap)
    height = mt + len(ROWS) * (ph + gap + 20) + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{ml}" y="22" font-size="14">{title}</text>',
    ]
    for i, (scene, label, colour) in enumerate(SCENES):
        x = ml + i * 220
        out.append(f'<line x1="{x}" y1="40" x2="{x + 20}" y2="40" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{x + 25}" y="44">{label}</text>')
    for r, (row, row_label) in enumerate(ROWS):
        for c, (param, param_label, log) in enumerate(PARAMS):
            x0 = ml + c * (pw + gap)
            y0 = mt + r * (ph + gap + 20)
            series = [(s, colour, data.get((s, param), [])) for s, _, colour in SCENES]
            xs = [v for _, _, pts in series for v, _ in pts]
            if not xs:
                continue
            ys = [p[row] for _, _, pts in series for _, p in pts]
            fx = math.log10 if log else (lambda v: v)
            lo, hi = fx(min(xs)), fx(max(xs))
            hi = hi if hi > lo else lo + 1
            ytop = 100.0 if row == "largest" else max(5.0, max(ys) * 1.1)

            def px(v):
                return x0 + (fx(v) - lo) / (hi - lo) * pw

            def py(v):
                return y0 + ph - v / ytop * ph

            out.append(f'<rect x="{x0}" y="{y0}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
            if row == "chunks":
                # The target: at least five chunks.
                out.append(f'<line x1="{x0}" y1="{py(5)}" x2="{x0 + pw}" y2="{py(5)}" stroke="#999" '
                           f'stroke-dasharray="4 3"/>')
            else:
                out.append(f'<line x1="{x0}" y1="{py(80)}" x2="{x0 + pw}" y2="{py(80)}" stroke="#999" '
                           f'stroke-dasharray="4 3"/>')
            ref = REFERENCE[param]
            if ref is not None and min(xs) <= ref <= max(xs):
                out.append(f'<line x1="{px(ref)}" y1="{y0}" x2="{px(ref)}" y2="{y0 + ph}" stroke="#bbb"/>')
            for tick in (0, ytop / 2, ytop):
                out.append(f'<text x="{x0 - 5}" y="{py(tick) + 4}" text-anchor="end">{tick:.0f}</text>')
            for v in sorted(set(xs)):
                out.append(f'<text x="{px(v)}" y="{y0 + ph + 14}" text-anchor="middle">{v:g}</text>')
            out.append(f'<text x="{x0 + pw / 2}" y="{y0 + ph + 30}" text-anchor="middle">{param_label}</text>')
            if c == 0:
                out.append(f'<text x="{x0 - 40}" y="{y0 + ph / 2}" transform="rotate(-90 {x0 - 40} '
                           f'{y0 + ph / 2})" text-anchor="middle">{row_label}</text>')
            for _, colour, pts in series:
                if not pts:
                    continue
                path = " ".join(f"{px(v):.1f},{py(p[row]):.1f}" for v, p in pts)
                out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
                for v, p in pts:
                    out.append(f'<circle cx="{px(v):.1f}" cy="{py(p[row]):.1f}" r="3" fill="{colour}"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 3:
        sys.exit(f"usage: {sys.argv[0]} STUDY_TSV OUT_SVG [TITLE]")
    title = sys.argv[3] if len(sys.argv) > 3 else "How the snow breaks"
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(svg(read(sys.argv[1]), title))


if __name__ == "__main__":
    main()
