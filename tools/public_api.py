#!/usr/bin/env python3
"""Lists the public API of a crate from rustdoc's JSON: every path a client
can name (items, re-exports, enum variants, struct fields, inherent
methods and trait items), one a line with its kind and a function's
signature, sorted; types by their names alone, so that moving an item
between private modules changes no line. docs/public-api.txt is its
output for the `kalah` crate, and a change of the face shows as a diff of
it:

    cargo +nightly rustdoc -p kalah --lib -- -Z unstable-options --output-format json
    tools/public_api.py target/doc/kalah.json > docs/public-api.txt

(rustdoc's JSON output is nightly's; format version 57 was read.)
"""
import json
import sys


def name_of(path):
    return path.split("::")[-1]


def args_of(a):
    if not a:
        return ""
    if "angle_bracketed" in a:
        ab = a["angle_bracketed"]
        parts = []
        for x in ab["args"]:
            if "type" in x:
                parts.append(ty(x["type"]))
            elif "lifetime" in x:
                parts.append(x["lifetime"])
            elif "const" in x:
                parts.append(str(x["const"].get("expr", "_")))
            else:
                parts.append("_")
        for c in ab.get("constraints", []):
            binding = c.get("binding", {})
            if "equality" in binding:
                eq = binding["equality"]
                parts.append(f"{c['name']} = {ty(eq['type']) if 'type' in eq else '_'}")
            else:
                parts.append(c["name"])
        return "<" + ", ".join(parts) + ">" if parts else ""
    if "parenthesized" in a:
        pz = a["parenthesized"]
        out = pz.get("output")
        return "(" + ", ".join(ty(t) for t in pz["inputs"]) + ")" + (f" -> {ty(out)}" if out else "")
    return ""


def bound(b):
    if "trait_bound" in b:
        t = b["trait_bound"]["trait"]
        return name_of(t["path"]) + args_of(t.get("args"))
    if "outlives" in b:
        return b["outlives"]
    return "?"


def ty(t):
    if t is None:
        return "()"
    k = next(iter(t))
    v = t[k]
    if k == "resolved_path":
        return name_of(v["path"]) + args_of(v.get("args"))
    if k == "primitive":
        return v
    if k == "generic":
        return v
    if k == "borrowed_ref":
        return "&" + (v["lifetime"] + " " if v.get("lifetime") else "") + ("mut " if v["is_mutable"] else "") + ty(v["type"])
    if k == "raw_pointer":
        return ("*mut " if v["is_mutable"] else "*const ") + ty(v["type"])
    if k == "slice":
        return "[" + ty(v) + "]"
    if k == "array":
        return "[" + ty(v["type"]) + "; " + str(v["len"]) + "]"
    if k == "tuple":
        return "(" + ", ".join(ty(x) for x in v) + ")"
    if k == "impl_trait":
        return "impl " + " + ".join(bound(b) for b in v)
    if k == "dyn_trait":
        return "dyn " + " + ".join(name_of(x["trait"]["path"]) + args_of(x["trait"].get("args")) for x in v["traits"]) + (" + " + v["lifetime"] if v.get("lifetime") else "")
    if k == "qualified_path":
        return "<" + ty(v["self_type"]) + (" as " + name_of(v["trait"]["path"]) if v.get("trait") else "") + ">::" + v["name"]
    if k == "function_pointer":
        sig = v["sig"]
        return "fn(" + ", ".join(ty(x[1]) for x in sig["inputs"]) + ")" + (" -> " + ty(sig["output"]) if sig.get("output") else "")
    if k == "infer":
        return "_"
    return k


def signature(item):
    f = item["inner"]["function"]
    sig = f["sig"]
    inputs = []
    for name, t in sig["inputs"]:
        if name == "self":
            inputs.append({"&Self": "&self", "&mut Self": "&mut self", "Self": "self"}.get(ty(t), "self: " + ty(t)))
        else:
            inputs.append(f"{name}: {ty(t)}")
    out = sig.get("output")
    return "(" + ", ".join(inputs) + ")" + (f" -> {ty(out)}" if out else "")


def main(path):
    doc = json.load(open(path))
    index = doc["index"]
    paths = doc["paths"]
    crate = index[str(doc["root"])]["name"]
    out = set()
    seen_modules = set()

    def kind_of(item):
        return next(iter(item["inner"])) if isinstance(item["inner"], dict) else item["inner"]

    def attrs(item):
        text = " ".join(str(a) for a in item.get("attrs", []))
        return " #[non_exhaustive]" if "non_exhaustive" in text else ""

    def public(item):
        return item.get("visibility") == "public"

    def members(prefix, item):
        inner = item["inner"][kind_of(item)]
        kind = inner.get("kind")
        if isinstance(kind, dict) and "plain" in kind:
            for fid in kind["plain"]["fields"]:
                field = index.get(str(fid))
                if field and public(field):
                    out.add(f"{prefix}::{field['name']} field: {ty(field['inner']['struct_field'])}")
        for v in inner.get("variants", []):
            variant = index.get(str(v))
            if variant:
                out.add(f"{prefix}::{variant['name']} variant{attrs(variant)}")
        for i in inner.get("impls", []):
            imp = index.get(str(i))
            if not imp or imp["inner"]["impl"].get("trait") is not None:
                continue
            for m in imp["inner"]["impl"]["items"]:
                member = index.get(str(m))
                if member and public(member):
                    extra = signature(member) if kind_of(member) == "function" else ""
                    out.add(f"{prefix}::{member['name']} {kind_of(member)}{extra}")
        if kind_of(item) == "trait":
            for m in inner.get("items", []):
                member = index.get(str(m))
                if member:
                    extra = signature(member) if kind_of(member) == "function" else ""
                    out.add(f"{prefix}::{member['name']} trait {kind_of(member)}{extra}")

    def walk(prefix, module_id):
        if (prefix, module_id) in seen_modules:
            return
        seen_modules.add((prefix, module_id))
        module = index[str(module_id)]
        for child_id in module["inner"]["module"]["items"]:
            child = index.get(str(child_id))
            if child is None or not public(child):
                continue
            add(prefix, child)

    def add(prefix, item, name=None):
        kind = kind_of(item)
        if kind == "use":
            use = item["inner"]["use"]
            target = index.get(str(use["id"])) if use["id"] is not None else None
            if use["is_glob"]:
                if target is not None and kind_of(target) == "module":
                    walk(prefix, target["id"])
                else:
                    out.add(f"{prefix}::* glob of {use['source']}")
                return
            if target is None:
                p = paths.get(str(use["id"])) if use["id"] is not None else None
                where = "::".join(p["path"]) if p else use["source"]
                out.add(f"{prefix}::{use['name']} re-export of {where}")
                return
            add(prefix, target, use["name"])
            return
        path = f"{prefix}::{name or item['name']}"
        if kind == "module":
            out.add(f"{path} module")
            walk(path, item["id"])
            return
        if kind == "impl":
            return
        out.add(f"{path} {kind}{signature(item) if kind == 'function' else ''}{attrs(item)}")
        if kind in ("struct", "enum", "trait", "union"):
            members(path, item)

    walk(crate, doc["root"])
    for line in sorted(out):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1])
