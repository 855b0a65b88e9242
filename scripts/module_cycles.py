"""Lists the import edges between the files of a Rust crate and the circles among them.

    python3 scripts/module_cycles.py engine/src python/src     # edges and circles
    python3 scripts/module_cycles.py --edges engine/src        # also print every edge

An edge A -> B means that file A names an item of file B: a `use crate::…`, `use super::…` or
`use self::…` path, or such a path written inline in code (`crate::game::expect_turn(…)`).
Names imported through a re-export (`use crate::Card`, `use super::JassGame`) are followed to
the file that defines them, so an edge points at where the item lives, not at `lib.rs` or
`mod.rs`. Edges between a folder's `mod.rs` and its own children are the usual Rust shape (the
parent declares and re-exports the children, the children use the parent's types); they are
listed apart. A circle among siblings, or through other folders, is reported as a circle.
Exit status 1 if any such circle exists. Heuristic (no macro expansion), good enough for
`use` lines and plain paths.
"""

import re
import sys
from pathlib import Path


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return text


def expand(tree: str) -> list[str]:
    """`a::{b, c::{d, self}}` -> ['a::b', 'a::c::d', 'a::c']."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix = tree[:brace]
    inner = tree[brace + 1 : tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    if cur:
        parts.append(cur)
    out = []
    for p in parts:
        for e in expand(p):
            if e == "self":
                out.append(prefix.rstrip(":"))
            elif e:
                out.append(prefix + e)
    return out


def module_path(src: Path, f: Path) -> tuple[str, ...]:
    rel = f.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def analyse(src: Path):
    files = sorted(p for p in src.rglob("*.rs"))
    mods = {module_path(src, f): f for f in files}
    uses = {}  # module -> list of (path tuple, is_pub)
    for m, f in mods.items():
        text = strip_comments(f.read_text())
        # Drop `#[cfg(test)] mod tests { … }` bodies: test code may use anything.
        cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
        if cut:
            text = text[: cut.start()]
        entries = []
        for mt in re.finditer(r"(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
            tree = re.sub(r"\s+as\s+\w+", "", mt.group(2))
            for p in expand(tree):
                entries.append((p, bool(mt.group(1))))
        body = re.sub(r"(pub(?:\([^)]*\))?\s+)?use\s+[^;]+;", "", text)
        for mt in re.finditer(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", body):
            entries.append((mt.group(1), False))
        children = [c[-1] for c in mods if len(c) == len(m) + 1 and c[: len(m)] == m]
        for child in children:
            for mt in re.finditer(rf"(?<![:\w]){child}((?:::[A-Za-z_][A-Za-z0-9_]*)+)", body):
                entries.append((child + mt.group(1), False))
        uses[m] = entries

    def absolute(m: tuple, path: str):
        segs = [s for s in path.split("::") if s]
        if not segs:
            return None
        here = list(m)
        if segs[0] == "crate":
            base, segs = [], segs[1:]
        elif segs[0] == "super":
            base = here
            while segs and segs[0] == "super":
                base = base[:-1]
                segs = segs[1:]
        elif segs[0] == "self":
            base, segs = here, segs[1:]
        elif tuple(here) + (segs[0],) in mods:
            base = here  # a child module, named relative to this one
        else:
            return None  # an external crate or std
        return tuple(base), segs

    reexports: dict[tuple, dict[str, tuple]] = {}
    for m, entries in uses.items():
        for p, is_pub in entries:
            if not is_pub:
                continue
            a = absolute(m, p.replace(" ", ""))
            if a is None:
                continue
            base, segs = a
            name = segs[-1] if segs else None
            if name and name != "*":
                reexports.setdefault(m, {})[name] = (base, segs)

    def resolve(base: tuple, segs: list, depth=0):
        """The module (file) that defines the item base::segs."""
        cur = tuple(base)
        i = 0
        while i < len(segs) and cur + (segs[i],) in mods:
            cur = cur + (segs[i],)
            i += 1
        if i == len(segs) or depth > 8:
            return cur
        name = segs[i]
        re_ = reexports.get(cur, {}).get(name)
        if re_ is not None:
            b, s = re_
            return resolve(b, s + segs[i + 1 :], depth + 1)
        return cur

    edges: dict[tuple, set] = {m: set() for m in mods}
    for m, entries in uses.items():
        for p, is_pub in entries:
            a = absolute(m, p.replace(" ", ""))
            if a is None:
                continue
            base, segs = a
            if segs and segs[-1] == "*":
                continue
            target = resolve(base, segs)
            if target != m and target in mods:
                edges[m].add(target)
    return mods, edges


def sccs(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
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
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def is_parent(a: tuple, b: tuple) -> bool:
    return len(a) + 1 == len(b) and b[: len(a)] == a


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_edges = "--edges" in sys.argv
    bad = False
    for src in map(Path, args):
        mods, edges = analyse(src)
        name = lambda m: str(mods[m].relative_to(src))
        # Circles with the parent/child edges taken out.
        pruned = {
            m: {t for t in ts if not (is_parent(m, t) or is_parent(t, m))}
            for m, ts in edges.items()
        }
        parent_pairs = sorted(
            {
                (name(min(a, b)), name(max(a, b)))
                for a, ts in edges.items()
                for b in ts
                if (is_parent(a, b) or is_parent(b, a)) and a in edges[b]
            }
        )
        circles = [c for c in sccs(list(mods), pruned) if len(c) > 1]
        print(f"{src}: {len(mods)} files, {sum(map(len, edges.values()))} edges")
        if show_edges:
            for m in sorted(mods, key=name):
                for t in sorted(edges[m], key=name):
                    print(f"  {name(m)} -> {name(t)}")
        print(f"  mod.rs <-> own child (the folder shape): {len(parent_pairs)} pairs")
        for a, b in parent_pairs:
            print(f"    {a} <-> {b}")
        if circles:
            bad = True
            for c in circles:
                print("  CIRCLE: " + ", ".join(sorted(name(m) for m in c)))
                for a in c:
                    for b in sorted(pruned[a] & set(c), key=name):
                        print(f"    {name(a)} -> {name(b)}")
        else:
            print("  no circles")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
