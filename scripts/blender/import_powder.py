"""Loads a `powder run` bake into Blender as one animated point cloud, plus the surface meshes.

In Blender (Scripting workspace, or the command line):

    blender --python scripts/blender/import_powder.py -- BAKE_DIR [--start-frame 1] [--radius 0.005]

or, from Python with the `bpy` module: `import_powder.import_bake("BAKE_DIR")`.

What it makes:

* `powder_particles`: a mesh of loose vertices, one per particle, with the point attributes
  `velocity` (FLOAT_VECTOR, m/s), `material` (INT, the emitter that made the particle) and `jp`
  (FLOAT, the plastic volume ratio). A frame-change handler loads `frame_NNNNN.ply` for the
  scene's current frame (bake frame = scene frame - start frame; held at either end), so the
  object plays the whole bake as one animated point cloud. A Geometry Nodes modifier turns the
  vertices into points of `--radius` metres for rendering.
* `powder_surface`: where the bake has `surface_NNNNN.ply` files, a mesh loaded the same way with
  its faces and per-vertex normals. Without such files none is made.

The PLY reading below uses the standard library only, so it can be tested without Blender
(`read_ply`, `frame_files`, `bake_frame_for`).
"""

import os
import re
import struct
import sys
from array import array

# PLY scalar types: struct code and size.
PLY_TYPES = {
    "char": ("b", 1), "int8": ("b", 1), "uchar": ("B", 1), "uint8": ("B", 1),
    "short": ("h", 2), "int16": ("h", 2), "ushort": ("H", 2), "uint16": ("H", 2),
    "int": ("i", 4), "int32": ("i", 4), "uint": ("I", 4), "uint32": ("I", 4),
    "float": ("f", 4), "float32": ("f", 4), "double": ("d", 8), "float64": ("d", 8),
}
INTEGER_CODES = set("bBhHiI")
FRAME_NAME = re.compile(r"^(frame|surface)_(\d{5,})\.ply$")


class PlyError(ValueError):
    """A file that is not a PLY file this script reads."""


def _parse_header(data, path):
    end = data.find(b"end_header")
    if not data.startswith(b"ply") or end < 0:
        raise PlyError(f"{path}: not a PLY file (no 'ply' ... 'end_header')")
    body = data.index(b"\n", end) + 1
    fmt, elements = None, []
    for line in data[:end].decode("ascii", "replace").splitlines()[1:]:
        words = line.split()
        if not words or words[0] in ("comment", "obj_info"):
            continue
        if words[0] == "format":
            fmt = words[1]
        elif words[0] == "element":
            elements.append({"name": words[1], "count": int(words[2]), "properties": []})
        elif words[0] == "property" and elements:
            if words[1] == "list":
                elements[-1]["properties"].append((words[4], "list", words[2], words[3]))
            else:
                elements[-1]["properties"].append((words[2], words[1]))
    if fmt not in ("binary_little_endian", "ascii"):
        raise PlyError(f"{path}: format {fmt!r}; binary_little_endian or ascii expected")
    return fmt, elements, body


def _read_binary_element(data, at, element, path):
    """Reads one element's rows from `data` at byte `at`; returns ({name: values}, next byte)."""
    props = element["properties"]
    count = element["count"]
    columns = {p[0]: [] for p in props}
    if all(p[1] != "list" for p in props):
        codes = "".join(PLY_TYPES[p[1]][0] for p in props)
        row = struct.Struct("<" + codes)
        end = at + row.size * count
        if end > len(data):
            raise PlyError(f"{path}: {count} {element['name']} rows need {row.size * count} bytes, found {len(data) - at}")
        if count and len(set(PLY_TYPES[p[1]][1] for p in props)) == 1 and PLY_TYPES[props[0][1]][1] == 4:
            # All four-byte columns: read each as a strided slice of one array per type.
            block = data[at:end]
            for i, (name, ty) in enumerate(props):
                code = PLY_TYPES[ty][0]
                whole = array({"f": "f", "i": "i", "I": "I"}[code], block)
                if sys.byteorder != "little":
                    whole.byteswap()
                columns[name] = whole[i::len(props)]
        else:
            for values in row.iter_unpack(data[at:end]):
                for (name, _), v in zip(props, values):
                    columns[name].append(v)
        return columns, end
    for _ in range(count):
        for p in props:
            if p[1] == "list":
                code, size = PLY_TYPES[p[2]]
                (n,) = struct.unpack_from("<" + code, data, at)
                at += size
                item, isize = PLY_TYPES[p[3]]
                columns[p[0]].append(struct.unpack_from(f"<{n}{item}", data, at))
                at += isize * n
            else:
                code, size = PLY_TYPES[p[1]]
                columns[p[0]].append(struct.unpack_from("<" + code, data, at)[0])
                at += size
    return columns, at


def _read_ascii_elements(data, elements):
    words = iter(data.decode("ascii").split())
    out = {}
    for element in elements:
        columns = {p[0]: [] for p in element["properties"]}
        for _ in range(element["count"]):
            for p in element["properties"]:
                if p[1] == "list":
                    n = int(next(words))
                    cast = int if PLY_TYPES[p[3]][0] in INTEGER_CODES else float
                    columns[p[0]].append(tuple(cast(next(words)) for _ in range(n)))
                else:
                    cast = int if PLY_TYPES[p[1]][0] in INTEGER_CODES else float
                    columns[p[0]].append(cast(next(words)))
        out[element["name"]] = columns
    return out


def read_ply(path):
    """Reads a PLY file (binary little endian or ASCII) into a dict:

    * `count`: vertices;
    * `positions`, and where present `velocity` and `normals`: flat lists x0 y0 z0 x1 ...;
    * `material` (ints; a float column, as older bakes wrote it, is rounded), `jp` (floats);
    * `faces`: a list of vertex-index tuples (empty for a point cloud).
    """
    with open(path, "rb") as f:
        data = f.read()
    fmt, elements, body = _parse_header(data, path)
    if fmt == "ascii":
        tables = _read_ascii_elements(data[body:], elements)
    else:
        tables, at = {}, body
        for element in elements:
            tables[element["name"]], at = _read_binary_element(data, at, element, path)
    vertex = tables.get("vertex")
    if vertex is None or not all(k in vertex for k in "xyz"):
        raise PlyError(f"{path}: no vertex element with x, y, z")

    def interleave(names):
        if not all(n in vertex for n in names):
            return None
        flat = [0.0] * (3 * len(vertex[names[0]]))
        for i, n in enumerate(names):
            flat[i::3] = vertex[n]
        return flat

    result = {
        "count": len(vertex["x"]),
        "positions": interleave("xyz"),
        "velocity": interleave(("vx", "vy", "vz")),
        "normals": interleave(("nx", "ny", "nz")),
        "jp": list(vertex["jp"]) if "jp" in vertex else None,
        "material": [int(round(m)) for m in vertex["material"]] if "material" in vertex else None,
        "faces": [],
    }
    face = tables.get("face")
    if face:
        key = "vertex_indices" if "vertex_indices" in face else next(iter(face), None)
        result["faces"] = [tuple(f) for f in face.get(key, [])]
    return result


def frame_files(directory, kind="frame"):
    """`{bake frame: path}` of the `kind_NNNNN.ply` files (kind `frame` or `surface`) in `directory`."""
    found = {}
    for name in os.listdir(directory):
        m = FRAME_NAME.match(name)
        if m and m.group(1) == kind:
            found[int(m.group(2))] = os.path.join(directory, name)
    return found


def bake_frame_for(scene_frame, start_frame, frames):
    """The bake frame shown at `scene_frame`: `scene_frame - start_frame`, held at the first and
    last frame there is, and where a frame is missing, the nearest earlier one (None if none)."""
    if not frames:
        return None
    wanted = min(max(scene_frame - start_frame, min(frames)), max(frames))
    earlier = [f for f in frames if f <= wanted]
    return max(earlier) if earlier else None


# --- Blender side -------------------------------------------------------------------------------

PARTICLES, SURFACE = "powder_particles", "powder_surface"


def _fill_mesh(mesh, ply, with_attributes):
    import bpy  # noqa: F401  (only inside Blender)

    if len(mesh.vertices) != ply["count"] or len(mesh.polygons) != len(ply["faces"]):
        mesh.clear_geometry()
        if ply["faces"]:
            mesh.from_pydata([tuple(ply["positions"][3 * i:3 * i + 3]) for i in range(ply["count"])], [], ply["faces"])
        else:
            mesh.vertices.add(ply["count"])
    mesh.vertices.foreach_set("co", ply["positions"])
    if with_attributes:
        for name, kind, values in (
            ("velocity", "FLOAT_VECTOR", ply["velocity"]),
            ("material", "INT", ply["material"]),
            ("jp", "FLOAT", ply["jp"]),
        ):
            if values is None:
                continue
            attribute = mesh.attributes.get(name) or mesh.attributes.new(name, kind, "POINT")
            attribute.data.foreach_set("vector" if kind == "FLOAT_VECTOR" else "value", values)
    if ply["normals"] is not None and ply["faces"] and hasattr(mesh, "normals_split_custom_set_from_vertices"):
        normals = ply["normals"]
        mesh.normals_split_custom_set_from_vertices([tuple(normals[3 * i:3 * i + 3]) for i in range(ply["count"])])
    mesh.update()


def _load_frame(obj, scene_frame):
    directory, kind = obj["powder_dir"], obj["powder_kind"]
    files = frame_files(directory, kind)
    frame = bake_frame_for(scene_frame, obj["powder_start_frame"], files)
    if frame is None or obj.get("powder_loaded") == frame:
        return
    _fill_mesh(obj.data, read_ply(files[frame]), kind == "frame")
    obj["powder_loaded"] = frame


def _on_frame_change(scene, *_):
    import bpy

    for obj in bpy.data.objects:
        if "powder_dir" in obj:
            _load_frame(obj, scene.frame_current)


def _points_modifier(obj, radius):
    """Geometry Nodes: the vertices as points of `radius` metres, for rendering."""
    import bpy

    tree = bpy.data.node_groups.new("powder_points", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    group_in = tree.nodes.new("NodeGroupInput")
    group_out = tree.nodes.new("NodeGroupOutput")
    to_points = tree.nodes.new("GeometryNodeMeshToPoints")
    to_points.inputs["Radius"].default_value = radius
    tree.links.new(group_in.outputs[0], to_points.inputs["Mesh"])
    tree.links.new(to_points.outputs["Points"], group_out.inputs[0])
    modifier = obj.modifiers.new("powder_points", "NODES")
    modifier.node_group = tree


def _make_object(name, directory, kind, start_frame):
    import bpy

    mesh = bpy.data.meshes.new(name)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj["powder_dir"] = os.path.abspath(directory)
    obj["powder_kind"] = kind
    obj["powder_start_frame"] = start_frame
    return obj


def import_bake(directory, start_frame=1, radius=0.005):
    """Makes `powder_particles` (and `powder_surface` where the bake has surface files), loads the
    current frame, sets the scene's frame range to the bake's and keeps the objects following the
    frame. Returns the objects made."""
    import bpy

    frames = frame_files(directory, "frame")
    if not frames:
        raise PlyError(f"{directory}: no frame_NNNNN.ply files")
    made = [_make_object(PARTICLES, directory, "frame", start_frame)]
    try:
        _points_modifier(made[0], radius)
    except (AttributeError, KeyError, RuntimeError, TypeError) as e:
        print(f"import_powder: no points modifier ({e}); the particles stay vertices")
    if frame_files(directory, "surface"):
        made.append(_make_object(SURFACE, directory, "surface", start_frame))
    else:
        print(f"import_powder: {directory} has no surface_NNNNN.ply files; no surface mesh")
    scene = bpy.context.scene
    scene.frame_start = start_frame + min(frames)
    scene.frame_end = start_frame + max(frames)
    handlers = bpy.app.handlers.frame_change_post
    for h in [h for h in handlers if getattr(h, "__name__", "") == "_on_frame_change"]:
        handlers.remove(h)
    handlers.append(_on_frame_change)
    for obj in made:
        _load_frame(obj, scene.frame_current)
    return made


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="import_powder.py", description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--start-frame", type=int, default=1)
    parser.add_argument("--radius", type=float, default=0.005)
    args = parser.parse_args(argv)
    import_bake(args.directory, args.start_frame, args.radius)


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:])
