#!/usr/bin/env python3
"""Draws docs/architecture.svg: one substep on the sorted path (the default), read from the code.

    scripts/architecture_diagram.py [OUT_SVG]    (default: docs/architecture.svg)

Top: the stages of the substep in order (the clock, the sort, the P2G stage, grid_update_blocks,
g2p), each pass coloured by its owner (shared: shaders/mpm/NAME.wgsl; explicit:
shaders/mpm/explicit/NAME.wgsl). Below: one row per pass, in the order a substep records them, with
its dispatch shape, CPU twin and when it runs, and which buffers it reads (R), writes (W) or both
(RW).

Nothing is typed in by hand that the code says:

- the passes' files, owners, shapes, bindings and twins are the `pass!(...)` rows of
  src/sim/passes.rs;
- the order is that of src/sim/explicit/substep.rs (the clock's passes, the P2G stage's
  dispatches), src/sim/sort/bins.rs (SORT_PASSES, SPARSE_CELL_PASSES, the sorted path's stage
  names), src/sim/sort/reorder.rs and reorder_clock.rs (the reorder's passes, rounds, interval), src/sim/path.rs and
  src/sim/solver/ (default_p2g: which P2G kernel runs on which device);
- reads and writes come from the WGSL: each pass's module (the libraries src/sim/shaders.rs lists,
  then its own file) is scanned from its entry point through the functions it calls, and a
  binding counts as written where it is assigned, given to an atomic that changes it (read too
  where the atomic's result is used), or passed by pointer to a function. The bindings found this
  way must be exactly the table's (which tests/wgsl.rs checks against naga's analysis), or the
  script stops.

Standard library only. Run it after changing the pass table or a pass's WGSL; check the result
with `convert docs/architecture.svg /tmp/arch.png`.
"""
import glob
import os
import re
import sys
from html import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def fail(message):
    sys.exit(f"architecture_diagram.py: {message}")


# ---------------------------------------------------------------- the Rust side


PASS_ROW = re.compile(
    r'pass!\((\w+),\s*"([^"]+)",\s*"(\w+)",\s*(\w+),\s*(.+?),\s*&\[([\d,\s]*)\],\s*'
    r'(None|Some\("([^"]+)"\))\)((?:\.\w+\([^)]*\))*),'
)


def read_passes():
    """The rows of PASSES in src/sim/passes.rs, by MpmPass variant."""
    passes = {}
    for m in PASS_ROW.finditer(read("src/sim/passes.rs")):
        variant, folder, name, owner, shape, bindings, _, twin, flags = m.groups()
        passes[variant] = {
            "variant": variant,
            "name": name,
            "file": f"{folder}/{name}.wgsl",
            "owner": owner,
            "shape": shape.strip(),
            "bindings": {(0, int(b)) for b in bindings.replace(" ", "").split(",") if b},
            "twin": twin,
            "flags": re.findall(r"\.(\w+)\(", flags),
        }
    declared = re.search(r"pub const PASSES: \[PassInfo; (\d+)\]", read("src/sim/passes.rs"))
    if not declared or int(declared.group(1)) != len(passes):
        fail(f"parsed {len(passes)} pass! rows, src/sim/passes.rs declares {declared and declared.group(1)}")
    for p in passes.values():
        if "writes_args" in p["flags"]:
            p["bindings"].add((1, 0))
    return passes


def variant_named(passes, name):
    found = [v for v, p in passes.items() if p["name"] == name]
    if len(found) != 1:
        fail(f"no pass named {name} in src/sim/passes.rs")
    return found[0]


def variants_in(text):
    return re.findall(r"MpmPass::(\w+)", text)


def body_of(text, head):
    """The text from `head` to the end of its braced or bracketed block."""
    start = text.find(head)
    if start < 0:
        fail(f"{head!r} not found")
    # A function's body is its first brace; a constant's value follows its `=` (its type may hold
    # brackets, as may a function's parameters).
    after = start + len(head)
    i = text.find("{", after) if head.startswith(("fn ", "pub fn ")) else text.find("=", after) + 1
    i = min(j for j in (text.find("{", i), text.find("[", i)) if j >= 0)
    closing = {"{": "}", "[": "]"}[text[i]]
    depth = 0
    for j in range(i, len(text)):
        if text[j] == text[i]:
            depth += 1
        elif text[j] == closing:
            depth -= 1
            if depth == 0:
                return text[i : j + 1]
    fail(f"unbalanced block after {head!r}")


def solver_source():
    return "\n".join(read(os.path.relpath(p, ROOT)) for p in sorted(glob.glob(os.path.join(ROOT, "src/sim/solver/*.rs"))))


def read_order(passes):
    """The sorted path's substep as the code records it: [(stage, [(variant, note)])]."""
    bins = read("src/sim/sort/bins.rs")
    substep = read("src/sim/explicit/substep.rs")
    reorder = read("src/sim/sort/reorder.rs")
    reorder_clock = read("src/sim/sort/reorder_clock.rs")
    passes_rs = read("src/sim/passes.rs")
    stage_names = re.search(r'SolverPath::Sorted => \["(\w+)", "(\w+)", "(\w+)", "(\w+)"\]', read("src/sim/path.rs"))
    if not stage_names or stage_names.groups()[0] != "sort":
        fail("SolverPath::stage_names's sorted row not found in src/sim/path.rs")
    sort_passes = variants_in(body_of(bins, "pub const SORT_PASSES"))
    sparse_only = set(variants_in(body_of(bins, "pub const SPARSE_CELL_PASSES")))
    clock = variants_in(body_of(substep, "fn clock_runs"))
    p2g_stage = body_of(substep, "fn sorted_p2g_dispatches")
    gather = re.search(r"MpmPass::P2gGather => vec!\[(.*?)\],", p2g_stage)
    if not gather:
        fail("sorted_p2g_dispatches's p2g_gather arm not found in src/sim/explicit/substep.rs")
    gather = variants_in(gather.group(1))
    kernels = variants_in(body_of(passes_rs, "pub const SORTED_P2G"))
    reorder_passes = variants_in(body_of(reorder, "pub fn dispatches"))
    rounds = int(re.search(r"pub const ROUNDS: u32 = (\d+);", reorder_clock).group(1))
    interval = int(re.search(r"pub const DEFAULT_INTERVAL: u32 = (\d+);", reorder_clock).group(1))
    default = re.search(
        r"DeviceType::Cpu \{\s*MpmPass::(\w+)\s*\} else \{\s*MpmPass::(\w+)\s*\}", body_of(solver_source(), "fn default_p2g")
    )
    if not default:
        fail("default_p2g's choice not found in src/sim/solver/")
    cpu_default, gpu_default = default.groups()
    if "SolverPath::Sorted" not in body_of(solver_source(), "fn default_path"):
        fail("default_path in src/sim/solver/ no longer names the sorted path")

    def p2g_note(kernel):
        where = {gpu_default: "default on GPUs", cpu_default: "default on CPU adapters"}.get(kernel, "on request")
        subgroups = re.search(r"pass!\(" + kernel + r",[^\n]*\.subgroups\(\)", passes_rs)
        return where + (", needs subgroups" if subgroups else "")

    # One of the kernels runs (p2g_gather after p2g_sources); the dispatches are sorted_p2g_dispatches's.
    p2g_rows = []
    for n, kernel in enumerate(kernels):
        run = gather if kernel == gather[-1] else [kernel]
        for k, v in enumerate(run):
            note = ("" if n == 0 else "or: ") + p2g_note(kernel) if k == 0 else "… then its gather"
            p2g_rows.append((v, note))
    # With several pages the grid is cleared whole ahead of the sort (record_substep).
    if not re.search(r"if paged \{ Stage::sort\(pages\)\.after\(first, clear\) \}", substep):
        fail("record_substep no longer clears a paged grid ahead of the sort (src/sim/explicit/substep.rs)")
    sort_rows = [("GridClear", "several pages only, once")]
    sort_rows += [(v, "sparse grid only" if v in sparse_only else "") for v in sort_passes]
    sort_rows += [(v, f"1st and every {interval}th substep, {rounds} rounds") for v in reorder_passes]
    return [
        ("clock", [(v, "") for v in clock]),
        ("sort", sort_rows),
        ("P2G", p2g_rows),
        (stage_names.group(3), [(variant_named(passes, stage_names.group(3)), "")]),
        (stage_names.group(4), [(variant_named(passes, stage_names.group(4)), "")]),
    ], {"cpu": cpu_default, "gpu": gpu_default, "kernels": kernels, "gather": gather}


# ---------------------------------------------------------------- the WGSL side


def read_binding_names():
    """{(group, binding): name} of the bindings the MPM passes declare."""
    names = {}
    sources = [read("shaders/mpm/types.wgsl")] + [read(f"shaders/{f}") for f in ("mpm/bin_dispatch.wgsl", "mpm/explicit/clock_gate.wgsl")]
    for text in sources:
        for g, b, name in re.findall(r"@group\((\d+)\)\s*@binding\((\d+)\)\s*var(?:<[^>]*>)?\s+(\w+)", text):
            names[(int(g), int(b))] = name
    return names


def libraries():
    text = read("src/sim/shaders.rs")
    particle = re.search(r'pub const PARTICLE: [^=]*= \("([^"]+)"', text).group(1)
    rest = re.findall(r'\("(mpm/[\w/]+\.wgsl)", include_str!', body_of(text, "pub const LIBRARIES"))
    return [particle] + rest


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def functions(text):
    """{name: body} of every function of a WGSL module."""
    found = {}
    for m in re.finditer(r"\bfn\s+(\w+)\s*\(", text):
        i = text.find("{", m.end())
        depth = 0
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                found[m.group(1)] = text[i : j + 1]
                break
    return found


WRITING_ATOMIC = re.compile(r"atomic(Store|Add|Sub|Max|Min|And|Or|Xor|Exchange|CompareExchangeWeak)$")


def accesses(body, name):
    """('R' | 'W' | 'RW') for each use of global `name` in `body` (not as a member, `x.name`)."""
    for m in re.finditer(r"(?<![\w.])" + name + r"\b", body):
        before = body[: m.start()].rstrip()
        if before.endswith("&") and not before.endswith("&&"):
            call = re.search(r"(\w+)\s*\(\s*&$", before)
            if call and call.group(1) == "arrayLength":
                yield ""  # its length only: used, neither read nor written
            elif call and call.group(1) == "atomicLoad":
                yield "R"
            elif call and WRITING_ATOMIC.match(call.group(1)):
                # An atomic that changes the value: a write, and a read where its result is used
                # (the call is not a statement of its own).
                statement = before[: call.start()].rstrip().endswith((";", "{", "}"))
                yield "W" if call.group(1) == "atomicStore" or statement else "RW"
            else:
                yield "RW"  # a pointer handed to a function that may store through it
            continue
        # The place named: name, then [..] and .member as far as they go.
        j = m.end()
        while True:
            k = j
            while k < len(body) and body[k].isspace():
                k += 1
            if k < len(body) and body[k] == "[":
                depth = 0
                for k2 in range(k, len(body)):
                    depth += {"[": 1, "]": -1}.get(body[k2], 0)
                    if depth == 0:
                        break
                j = k2 + 1
            elif k < len(body) and body[k] == "." and re.match(r"\.\w", body[k : k + 2]):
                j = re.match(r"\.\w+", body[k:]).end() + k
            else:
                break
        after = body[j:].lstrip()
        if re.match(r"=(?!=)", after):
            yield "W"
        elif re.match(r"([-+*/%&|^]|<<|>>)=|\+\+|--", after):
            yield "RW"
        else:
            yield "R"


def analyse(p, names):
    """The bindings pass `p` reads and writes, found from its entry point."""
    module = strip_comments("\n".join(read(f"shaders/{f}") for f in libraries() + [p["file"]]))
    funcs = functions(module)
    if p["name"] not in funcs:
        fail(f"entry point {p['name']} not found in {p['file']}")
    reached, todo = set(), [p["name"]]
    while todo:
        f = todo.pop()
        if f in reached:
            continue
        reached.add(f)
        todo += [c for c in re.findall(r"\b(\w+)\s*\(", funcs[f]) if c in funcs and c not in reached]
    mode = {}
    for f in reached:
        for key, name in names.items():
            for a in accesses(funcs[f], name):
                mode[key] = "".join(sorted(set(mode.get(key, "") + a), key="RW".index))
    if set(mode) != p["bindings"]:
        fail(
            f"{p['name']}: the WGSL reaches bindings {sorted(mode)}, the table says {sorted(p['bindings'])} "
            "(tests/wgsl.rs checks the table against naga; this script's scan disagrees with it)"
        )
    return mode


# ---------------------------------------------------------------- drawing


# Columns of the access table: a label and the bindings it stands for (see types.wgsl).
def columns(names):
    by_name = {v: k for k, v in names.items()}
    groups = [
        ("particle streams", ["particle_position", "particle_velocity", "particle_affine", "particle_deformation", "particle_plastic", "particle_stress"]),
        ("particle_id", ["particle_id"]),
        ("reorder_scratch", ["reorder_scratch"]),
        ("particle_order", ["particle_order"]),
        ("bin_header", ["bin_header"]),
        ("block_bins", ["block_bins"]),
        ("block_lists", ["block_lists"]),
        ("cell_bins", ["cell_bins"]),
        ("block_slots", ["block_slots"]),
        ("scatter_sources", ["scatter_sources"]),
        ("grid_fixed", ["grid_fixed"]),
        ("grid_velocity", ["grid_velocity"]),
        ("colliders", ["colliders", "collider_surfaces", "colliders_end"]),
        ("status", ["status"]),
        ("clock", ["clock"]),
        ("indirect args", ["dispatch_args"]),
    ]
    listed = {n for _, ns in groups for n in ns} | {"params", "pick_ray"}
    if listed != set(by_name):
        fail(f"bindings without a column (or gone): {sorted(set(by_name) ^ listed)}")
    return [(label, [by_name[n] for n in ns]) for label, ns in groups]


OWNER_FILL = {"Shared": "#dcebf7", "Explicit": "#fbe3cf"}
OWNER_STROKE = {"Shared": "#2f6d9e", "Explicit": "#b5651d"}
MODE_FILL = {"R": "#e8f1e4", "W": "#f6d5d1", "RW": "#efd9ef"}
FONT = "DejaVu Sans, Verdana, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, monospace"


def shape_text(shape):
    if shape.startswith("Threads(Items::"):
        items = shape[len("Threads(Items::") : -1]
        return {"Particles": "1/particle", "GridWords": "1/grid word", "Nodes": "1/node", "BinClear": "a fixed count",
                "CellOffsets": "8/pool block"}.get(items, items)
    return {"Single": "1 thread", "OCCUPIED": "occupied blocks", "TOUCHED": "touched blocks"}.get(
        shape, "8/occupied block" if "OFFSETS_ARGS" in shape else shape
    )


class Svg:
    def __init__(self):
        self.parts = []

    def rect(self, x, y, w, h, fill, stroke="none", rx=0, dash=None, sw=1):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"{d}/>')

    def text(self, x, y, s, size=12, anchor="start", weight="normal", family=FONT, fill="#222", rotate=None, style=""):
        t = f' transform="rotate({rotate} {x} {y})"' if rotate is not None else ""
        st = f' font-style="{style}"' if style else ""
        self.parts.append(
            f'<text x="{x}" y="{y}" font-family="{family}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}"{st}{t}>{escape(s)}</text>'
        )

    def line(self, x1, y1, x2, y2, stroke="#555", sw=1):
        self.parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}" stroke-width="{sw}"/>')


def draw(order, defaults, passes, names):
    cols = columns(names)
    rows = []  # (stage, pass, note, mode by column)
    for stage, entries in order:
        for variant, note in entries:
            p = passes[variant]
            folder = {"Shared": "mpm/", "Explicit": "mpm/explicit/"}[p["owner"]]
            if p["file"] != f"{folder}{p['name']}.wgsl":
                fail(f"{p['name']} lies in {p['file']}, not in its owner's folder shaders/{folder}")
            mode = analyse(p, names)
            by_col = []
            for _, keys in cols:
                m = "".join(sorted({c for k in keys for c in mode.get(k, "")}, key="RW".index))
                by_col.append(m)
            rows.append((stage, p, note, by_col))

    # Geometry: the stage flow on top, the legend, then the table (a heading row per stage).
    margin, row_h, col_w = 20, 21, 46
    x_pass, x_shape, x_twin, x_note, x_cols = margin + 8, margin + 162, margin + 280, margin + 400, margin + 640
    width = x_cols + col_w * len(cols) + margin
    flow_top, flow_h = 62, 112
    legend_y = flow_top + flow_h + 56
    head_y = legend_y + 30
    table_top = head_y + 78
    stage_count = len(order)
    height = table_top + row_h * (len(rows) + stage_count) + 96

    svg = Svg()
    svg.rect(0, 0, width, height, "white")
    svg.text(margin, 28, "One substep on the sorted path (the default)", size=19, weight="bold")
    svg.text(
        margin, 47,
        "Made by scripts/architecture_diagram.py from the pass table (src/sim/passes.rs), the code that records the passes, and the WGSL.",
        size=11.5, fill="#555",
    )

    # Stage flow: one box per stage, its passes inside as chips coloured by owner, and the Rust
    # that records it.
    recorded_by = {
        "clock": "substep.rs: clock_runs",
        "sort": "sort/bins.rs: sort_runs",
        "P2G": "substep.rs: sorted_p2g",
    }
    substep_rs = read("src/sim/explicit/substep.rs")
    for fn in ("fn clock_runs", "fn sorted_p2g", "fn substep_stages", "pub fn record_substep"):
        body_of(substep_rs, fn)
    body_of(read("src/sim/sort/bins.rs"), "pub fn sort_runs")
    gap = 30
    boxes = []
    for stage, entries in order:
        unique = []
        for v, _ in entries:
            if passes[v] not in unique:
                unique.append(passes[v])
        per_line = 3 if len(unique) > 6 else 2 if len(unique) > 2 else 1
        boxes.append((stage, unique, per_line, 0.8 + 0.35 * (per_line - 1)))
    unit = (width - 2 * margin - gap * (stage_count - 1)) / sum(b[3] for b in boxes)
    x = margin - gap
    for i, (stage, unique, per_line, weight) in enumerate(boxes):
        x += gap + (boxes[i - 1][3] * unit if i else 0)
        box_w = weight * unit
        svg.rect(x, flow_top, box_w, flow_h, "#fafafa", "#888", rx=8)
        svg.text(x + box_w / 2, flow_top + 18, stage, size=13.5, anchor="middle", weight="bold")
        chip_w = (box_w - 12 - 4 * (per_line - 1)) / per_line
        for k, p in enumerate(unique):
            cx = x + 6 + (k % per_line) * (chip_w + 4)
            cy = flow_top + 26 + (k // per_line) * 17
            svg.rect(cx, cy, chip_w, 15, OWNER_FILL[p["owner"]], OWNER_STROKE[p["owner"]], rx=3)
            size = 10.5
            while len(p["name"]) * size * 0.61 > chip_w - 4:
                size -= 0.5
            svg.text(cx + chip_w / 2, cy + 11, p["name"], size=size, anchor="middle", family=MONO)
        svg.text(x + box_w / 2, flow_top + flow_h - 8, recorded_by.get(stage, "substep.rs: substep_stages"),
                 size=10, anchor="middle", family=MONO, fill="#555")
        if i + 1 < stage_count:
            ay = flow_top + flow_h / 2
            svg.line(x + box_w + 3, ay, x + box_w + gap - 9, ay, sw=1.6)
            svg.parts.append(
                f'<path d="M{x + box_w + gap - 3},{ay} L{x + box_w + gap - 11},{ay - 4.5} '
                f'L{x + box_w + gap - 11},{ay + 4.5} z" fill="#555"/>'
            )
    lines = [
        f"P2G runs one kernel: {passes[defaults['gpu']]['name']} on GPUs, {' then '.join(passes[v]['name'] for v in defaults['gather'])} "
        f"on CPU adapters (lavapipe), {', '.join(passes[v]['name'] for v in defaults['kernels'] if v not in (defaults['gpu'], defaults['cpu']))} "
        "only on request (POWDER_P2G, Solver::set_p2g).",
        "record_substep records a substep as one compute pass (one per stage when timed). With several pages over the one grid, "
        "each pass runs once per page, except clock_advance and grid_clear (once).",
    ]
    for k, line in enumerate(lines):
        svg.text(margin, flow_top + flow_h + 20 + 16 * k, line, size=11.5, fill="#333")

    # Legend.
    lx = margin
    items = [("Shared", "shared: src/sim/, shaders/mpm/<pass>.wgsl"),
             ("Explicit", "explicit integrator: src/sim/explicit/, shaders/mpm/explicit/<pass>.wgsl")]
    for owner, label in items:
        svg.rect(lx, legend_y - 10, 14, 12, OWNER_FILL[owner], OWNER_STROKE[owner], rx=2)
        svg.text(lx + 20, legend_y, label, size=11.5)
        lx += 34 + len(label) * 6.4
    for m, label in (("R", "reads"), ("W", "writes"), ("RW", "both")):
        svg.rect(lx, legend_y - 11, 24, 14, MODE_FILL[m], "#999", rx=2)
        svg.text(lx + 12, legend_y, m, size=9.5, anchor="middle", weight="bold")
        svg.text(lx + 30, legend_y, label, size=11.5)
        lx += 44 + len(label) * 6.6
    svg.text(lx, legend_y, "(params, the uniform block, is not shown)", size=11.5, fill="#555")

    # Column headings; the buffers' labels on three staggered lines, each with a leader.
    hy = table_top - 10
    for x, label in ((x_pass, "pass"), (x_shape, "threads"), (x_twin, "CPU twin (src/sim/)"), (x_note, "runs")):
        svg.text(x, hy, label, size=11.5, weight="bold")
    levels = 4
    for c in range(len(cols)):
        cx = x_cols + c * col_w + col_w / 2
        svg.line(cx, head_y + 14 * (c % levels) + 3, cx, table_top - 4, stroke="#bbb")
    for c, (label, _) in enumerate(cols):
        cx = x_cols + c * col_w + col_w / 2
        ly = head_y + 14 * (c % levels)
        half = len(label) * 3.3 + 3
        tx = min(cx, width - 4 - half)  # the last labels stay on the canvas
        svg.rect(tx - half, ly - 10, 2 * half, 13, "white")
        svg.text(tx, ly, label, size=11, anchor="middle", weight="bold")
    svg.line(margin, table_top - 3, width - margin, table_top - 3, stroke="#999")

    # Rows: a heading per stage, then its passes.
    y = table_top
    last_stage = None
    for stage, p, note, by_col in rows:
        if stage != last_stage:
            svg.rect(margin, y + 1, width - 2 * margin, row_h - 2, "#f1f1f1")
            svg.text(margin + 4, y + 15, stage, size=12, weight="bold")
            last_stage = stage
            y += row_h
        svg.rect(x_pass - 4, y + 3, x_shape - x_pass - 8, row_h - 6, OWNER_FILL[p["owner"]], OWNER_STROKE[p["owner"]], rx=3)
        svg.text(x_pass, y + 15, p["name"], size=11, family=MONO)
        svg.text(x_shape, y + 15, shape_text(p["shape"]), size=11, fill="#333")
        svg.text(x_twin, y + 15, p["twin"] or "—", size=11, family=MONO, fill="#333" if p["twin"] else "#999")
        svg.text(x_note, y + 15, note, size=11, fill="#555", style="italic")
        for c, m in enumerate(by_col):
            cx = x_cols + c * col_w
            if m:
                svg.rect(cx + 3, y + 3, col_w - 6, row_h - 6, MODE_FILL[m], "#999", rx=2)
                svg.text(cx + col_w / 2, y + 14.5, m, size=10, anchor="middle", weight="bold")
        y += row_h
    svg.line(margin, y + 2, width - margin, y + 2, stroke="#999")
    for c in range(len(cols) + 1):
        svg.line(x_cols + c * col_w, table_top - 3, x_cols + c * col_w, y + 2, stroke="#e2e2e2")

    notes = [
        "R/W: each pass's WGSL followed from its entry point; the bindings it reaches are the table's, which tests/wgsl.rs checks against naga. "
        "The P2G kernels write particles only to reset a non-finite one.",
        "indirect args: the page's indirect_args as storage (group 1). bin_dispatch sizes the passes over occupied or touched blocks; "
        "clock_gate turns every other dispatch of the substep on or off:",
        "all of them after the clock's are indirect, so substeps recorded past the frame's end run empty.",
    ]
    for i, n in enumerate(notes):
        svg.text(margin, y + 26 + 16 * i, n, size=11.5, fill="#444")

    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
    return "\n".join([head] + svg.parts + ["</svg>", ""])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs/architecture.svg")
    passes = read_passes()
    names = read_binding_names()
    order, defaults = read_order(passes)
    text = draw(order, defaults, passes, names)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
