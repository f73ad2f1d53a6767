"""Writes IPC-2000 schedule problems (the ADL track's problem files) from their content: the parts
in object order, each part's (shape surface paint hole-width hole-orientation) in init order, the
goal literals. The machine facts are the same in every file of the track and written as there.
Usage: python make_problem.py NAME 'parts' 'part:shape,surface,paint,width,orient ...' 'goal;goal;...'"""

import sys

name, parts, specs, goals = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split(";")
L = [f"(define (problem {name})", "(:domain schedule)", "(:objects"] + [f"    {p}" for p in parts]
L += [
    " - part",
    "    circular",
    "    oblong",
    " - ashape",
    "    blue",
    "    yellow",
    "    red",
    "    black",
    " - colour",
    "    two",
    "    three",
    "    one",
    " - width",
    "    back",
    "    front",
    " - anorient",
    ")",
    "(:init",
]
for spec in specs:
    p, rest = spec.split(":")
    shape, surf, paint, w, o = rest.split(",")
    L += [
        f"    (shape {p} {shape})",
        f"    (surface-condition {p} {surf})",
        f"    (painted {p} {paint})",
        f"    (has-hole {p} {w} {o})",
        f"    (temperature {p} cold)",
    ]
for o in ("back", "front"):
    L += [f"    (can-orient drill-press {o})", f"    (can-orient punch {o})"]
for c in ("yellow", "blue", "black", "red"):
    L += [f"    (has-paint immersion-painter {c})", f"    (has-paint spray-painter {c})"]
for w in ("three", "two", "one"):
    L += [f"    (has-bit drill-press {w})", f"    (has-bit punch {w})"]
L += [")", "(:goal (and"] + [f"    ({g})" for g in goals] + [")))"]
print("\n".join(L))
