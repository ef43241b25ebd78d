#!/usr/bin/env python3
"""The rooms' layering, as tool/README.md writes it down: its tables give the order of the
rooms (and of the layers inside tool/waits) and their public headers. Checked on the sources'
#include lines and on the calls between the built objects (nm), so a declaration written by
hand cannot hide a call the wrong way.

usage: layering.py [BUILD_DIR]     (BUILD_DIR: where `make` put obj/, default build)
       layering.py --stats          lines per room, edges, circles (no checks)
Prints one line per problem and exits 1 when there is any."""
import collections
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(TOP, "tool", "README.md")
# Headers generated from mpit/mpi.spec into build/gen, and the room whose files include them.
GENERATED = {"fn_table.h": "mpit/own", "own_calls.h": "mpit/own", "ws_patterns.h": "tool/waits",
             "html_assets.h": "tool/profile"}
# Generated objects and the room they belong to.
GEN_OBJECTS = {"wrappers_c": "mpit/wrappers", "wrappers_f": "mpit/wrappers",
               "wrappers_q": "mpit/wrappers", "fn_table": "mpit/own",
               "ws_patterns": "tool/waits", "html_assets": "tool/profile"}
PUBLIC_API = "tardy.h"   # include/tardy.h: the library's API for programs


def tables():
    """[(room, public header or None)] in order, and {waits file: layer index}, [layer headers]."""
    rooms, layers, layer_headers = [], {}, []
    section = None
    for line in open(README):
        if line.startswith("# Rooms"):
            section = "rooms"
        elif line.startswith("## Layers of tool/waits"):
            section = "layers"
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 3 or not cells[1].startswith(("`", "—")):
            continue
        name = cells[0].strip("`")
        if section == "rooms":
            header = cells[1].strip("`")
            rooms.append((name, None if header in ("—", "-", "") else header))
        elif section == "layers":
            layer_headers.append(cells[1].strip("`"))
            for f in cells[2].split():
                layers[f] = len(layer_headers) - 1
    return rooms, layers, layer_headers


def sources(room):
    return sorted(glob.glob(os.path.join(TOP, room, "*.[ch]")))


def includes(path):
    for i, line in enumerate(open(path), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            yield i, m.group(1)


class Check:
    def __init__(self):
        self.rooms, self.layers, self.layer_headers = tables()
        self.order = {r: i for i, (r, _) in enumerate(self.rooms)}
        self.public = dict(self.rooms)
        self.problems = []
        self.edges = collections.Counter()        # (room from, room to) -> references
        self.layer_edges = collections.Counter()  # (layer from, layer to)
        self.upward = 0

    def problem(self, text):
        self.problems.append(text)

    def layer_of(self, path):
        if not path.startswith("tool/waits/"):
            return None
        name = os.path.basename(path)
        if name in self.layer_headers:
            return self.layer_headers.index(name)
        return self.layers.get(name)

    def edge(self, where, src_room, dst_room, src_layer=None, dst_layer=None, what=""):
        if src_room != dst_room:
            self.edges[(src_room, dst_room)] += 1
            if self.order[dst_room] > self.order[src_room]:
                self.upward += 1
                self.problem("%s: %s uses %s, a room below it%s" % (where, src_room, dst_room,
                                                                   what))
        elif src_layer is not None and dst_layer is not None and src_layer != dst_layer:
            self.layer_edges[(src_layer, dst_layer)] += 1
            if dst_layer > src_layer:
                self.upward += 1
                self.problem("%s: waits layer %s uses layer %s below it%s" % (
                    where, self.layer_headers[src_layer], self.layer_headers[dst_layer], what))

    def unlisted(self):
        listed = set(self.order)
        for d in ("tool", "mpit", "predict", "lua", "cli"):
            for path in glob.glob(os.path.join(TOP, d, "**", "*.[ch]"), recursive=True):
                room = os.path.relpath(os.path.dirname(path), TOP)
                if room not in listed:
                    self.problem("%s: in no room of tool/README.md" % os.path.relpath(path, TOP))
        for f in sources("tool/waits"):
            if self.layer_of(os.path.relpath(f, TOP)) is None and not f.endswith("waits.h"):
                self.problem("%s: in no layer of tool/README.md" % os.path.relpath(f, TOP))

    def include_lines(self):
        for room, _ in self.rooms:
            for path in sources(room):
                rel = os.path.relpath(path, TOP)
                for n, inc in includes(path):
                    self.include(rel, n, room, inc)

    def include(self, rel, n, room, inc):
        where = "%s:%d" % (rel, n)
        if inc == PUBLIC_API:
            return
        if "/" in inc:
            dst, header = os.path.dirname(inc), os.path.basename(inc)
            if dst not in self.order:
                self.problem('%s: "%s" is in no room' % (where, inc))
            elif dst == room:
                self.problem('%s: a room includes its own headers by name ("%s")' % (where, header))
            elif header != self.public[dst]:
                self.problem('%s: "%s" is internal to %s (include "%s/%s")' % (
                    where, inc, dst, dst, self.public[dst]))
            else:
                self.edge(where, room, dst, what=' ("%s")' % inc)
            return
        if inc in GENERATED:
            if GENERATED[inc] != room:
                self.problem('%s: generated "%s" belongs to %s' % (where, inc, GENERATED[inc]))
            return
        if not os.path.exists(os.path.join(TOP, room, inc)):
            self.problem('%s: "%s" is not a header of %s' % (where, inc, room))
            return
        self.edge(where, room, room, self.layer_of(rel), self.layer_of(room + "/" + inc),
                  ' ("%s")' % inc)

    def objects(self, build):
        """{object: (room, path)} of the library's objects (not the offline command's)."""
        objs = {}
        for o in glob.glob(os.path.join(build, "obj", "**", "*.o"), recursive=True):
            rel = os.path.relpath(o, os.path.join(build, "obj"))
            if rel.startswith("host" + os.sep):
                continue
            if rel.startswith("gen" + os.sep):
                room = GEN_OBJECTS.get(os.path.basename(rel)[:-2])
                src = "build/gen/" + os.path.basename(rel)[:-2] + ".c"
            else:
                src = rel[:-2] + ".c"
                room = os.path.dirname(src)
            if room in self.order:
                objs[o] = (room, src)
        return objs

    def calls(self, build):
        objs = self.objects(build)
        if len(objs) < 40:
            self.problem("%s: only %d objects; build first (make)" % (build, len(objs)))
            return
        defined, wanted = {}, collections.defaultdict(set)
        for o in objs:
            out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDBRCVWG":
                    defined.setdefault(parts[2], o)
                elif len(parts) == 2 and parts[0] == "U":
                    wanted[o].add(parts[1])
        for o, syms in wanted.items():
            room, src = objs[o]
            for sym in sorted(syms):
                d = defined.get(sym)
                if not d or d == o:
                    continue
                droom, dsrc = objs[d]
                # tool/memory interposes the C library's allocator: every file's malloc lands
                # there without depending on it
                if droom == "tool/memory" and not sym.startswith("mem_"):
                    continue
                self.edge(src, room, droom, self.layer_of(src), self.layer_of(dsrc),
                          " (calls %s in %s)" % (sym, dsrc))

    def circles(self, edges):
        """Strongly connected components with more than one node."""
        graph = collections.defaultdict(set)
        for a, b in edges:
            graph[a].add(b)
        index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

        def visit(v):
            index[v] = low[v] = n[0]
            n[0] += 1
            stack.append(v)
            on.add(v)
            for w in graph[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp, key=str))
        for v in list(graph):
            if v not in index:
                visit(v)
        return out

    def stats(self):
        for room, _ in self.rooms:
            lines = sum(sum(1 for _ in open(p)) for p in sources(room))
            print("layering: %-14s %5d lines in %2d files" % (room, lines, len(sources(room))))
        print("layering: %d references between rooms, %d between waits layers, %d upward" % (
            sum(self.edges.values()), sum(self.layer_edges.values()), self.upward))
        rc = self.circles(self.edges)
        lc = self.circles(self.layer_edges)
        print("layering: circles between rooms: %d%s; between waits layers: %d%s" % (
            len(rc), "".join(" %s" % c for c in rc), len(lc),
            "".join(" %s" % [self.layer_headers[i] for i in c] for c in lc)))
        for c in rc:
            self.problem("circle between rooms: %s" % " ".join(c))
        for c in lc:
            self.problem("circle between waits layers: %s" % " ".join(self.layer_headers[i] for i in c))


def main():
    args = sys.argv[1:]
    only_stats = "--stats" in args
    args = [a for a in args if a != "--stats"]
    build = args[0] if args else os.path.join(TOP, os.environ.get("B", "build"))
    c = Check()
    if len(c.rooms) < 10 or not c.layers:
        print("layering: cannot read the tables of %s" % README)
        return 1
    c.unlisted()
    c.include_lines()
    c.calls(build)
    c.stats()
    if only_stats:
        return 0
    for p in c.problems:
        print("layering: " + p)
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
