#!/usr/bin/env python3
r"""Build a responses JSONL for benchmarks/reference_scorer.py from ACPBench Hard records.

Plain Python 3.11, standard library only (no acptools import), deterministic (random seeded per record).

    python3 benchmarks/make_reference_responses.py --data acptools/data/acpbench_hard/test \
        --out /tmp/ref_responses.jsonl [--gold-only]

Each output row is {"id", "group", "model", "response"}; `model` names the variant:

  gold                   the stored answer written the way the lm-eval ACPBench Hard prompts ask for it
                         (the answer format of the yaml few-shot examples, see docs/reference-scorer.md)
  wrong:* / quirk:* / check:*   deliberately wrong or edge-case answers (only without --gold-only):

  app    wrong:empty "[]" | wrong:drop_one (gold minus its last action) | wrong:add_other (gold plus a
         random well-typed ground action not in gold) | quirk:shuffled_upper (gold shuffled, upper case)
  prog   wrong:empty "[] []" | wrong:swapped "[neg] [pos]" | wrong:drop_neg (pos list only)
         | quirk:headers ("**Positive Effects**: a, b\n**Negative Effects**: c", no brackets)
  reach  wrong:none "None" (only where gold is non-empty) | wrong:init_atom (an atom of the problem's :init)
         | wrong:unknown_object (first predicate over an object that does not exist)
         | quirk:no_parens (the first stored atom exactly as stored, without parentheses)
         | wrong:atom_for_none (an init atom where gold is "None") | quirk:lowercase_none ("none" there)
         | wrong:unknown_predicate "(nosuchpredicate <first object>)"
  areach wrong:none (gold non-empty) | check:random_action (random well-typed ground action; may truly be
         never-applicable, the planner decides) | wrong:gold_upper (gold in upper case)
         | check:self_loop (first schema with two same-typed parameters given one object, e.g. (sail l0 l0))
  val    wrong:plus1 | wrong:zero_or_one ("0", or "1" if gold is 0) | quirk:sentence (gold index inside a
         sentence) | quirk:leading_zero ("0" + gold)
  just   wrong:full_plan (plan unchanged) | wrong:empty "[]" | wrong:drop_first (plan minus its first action)
         | quirk:simplified_prefix ("Simplified plan: " + gold, which the scorer lower-cases)
         | quirk:lowercase (gold in lower case) | check:all_stored_removals (every stored removal applied)
  land   wrong:none (gold non-empty) | wrong:no_entry (first stored non-landmark)
         | quirk:upper (gold in upper case) | quirk:lowercase_none ("none" where gold is None)
         | quirk:no_then_yes ("<no[0]> <yes[0]>": two atoms, the first is taken)
  nexta  wrong:no_entry (first stored "no" action) | wrong:none "None" | wrong:random_action
         (random well-typed ground action) | check:maybe (first "maybe" action: planner decides)
         | quirk:prose_prefix ("The next action is <gold>.") | quirk:blank_line_first ("Let me think.\n\n<gold>")
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import random
import re

SHORT = {
    "applicable_actions_gen": "app",
    "progression_gen": "prog",
    "reachable_atom_gen": "reach",
    "reachable_action_gen": "areach",
    "validation_gen": "val",
    "action_justification_gen": "just",
    "landmarks_gen": "land",
    "goal_closer_gen": "nexta",
}


# ------------------------------------------------------------------ tiny PDDL reader (s-expressions)


def sexpr(text):
    text = re.sub(r";[^\n]*", "", text)
    toks = re.findall(r"\(|\)|[^\s()]+", text)
    stack, cur = [], []
    for t in toks:
        if t == "(":
            stack.append(cur)
            cur = []
        elif t == ")":
            done, cur = cur, stack.pop()
            cur.append(done)
        else:
            cur.append(t)
    return cur[0] if cur else []


def typed_list(items):
    """['a', 'b', '-', 't', 'c'] -> [('a','t'), ('b','t'), ('c','object')]"""
    out, pending, i = [], [], 0
    while i < len(items):
        if items[i] == "-":
            out += [(n, items[i + 1].lower()) for n in pending]
            pending, i = [], i + 2
        else:
            pending.append(items[i])
            i += 1
    return out + [(n, "object") for n in pending]


def section(tree, key):
    for x in tree:
        if isinstance(x, list) and x and isinstance(x[0], str) and x[0].lower() == key:
            return x[1:]
    return None


class Pddl:
    def __init__(self, domain_text, problem_text):
        d, p = sexpr(domain_text), sexpr(problem_text)
        self.parent = {n.lower(): t for n, t in typed_list(section(d, ":types") or [])}
        objs = typed_list(section(d, ":constants") or []) + typed_list(section(p, ":objects") or [])
        self.objects = [(n, t) for n, t in objs]
        self.predicates = [(x[0], len(typed_list(x[1:]))) for x in (section(d, ":predicates") or [])]
        self.actions = []
        for x in d:
            if isinstance(x, list) and x and x[0] == ":action":
                params = []
                if ":parameters" in x:
                    params = typed_list(x[x.index(":parameters") + 1])
                self.actions.append((x[1], [t for _, t in params]))
        self.init = [a for a in (section(p, ":init") or []) if isinstance(a, list)]

    def is_a(self, t, want):
        seen = set()
        while t not in seen:
            if t == want or want == "object":
                return True
            seen.add(t)
            t = self.parent.get(t, "object")
        return t == want

    def self_loop_action(self, avoid):
        """A well-typed ground action whose first two same-typed parameters get the same object
        (e.g. (sail l0 l0)), other than those in `avoid`; None if no schema has such a pair."""
        for name, types in self.actions:
            for i in range(len(types)):
                for j in range(i + 1, len(types)):
                    if types[i] != types[j]:
                        continue
                    pools = [[n for n, ot in self.objects if self.is_a(ot, t)] for t in types]
                    for o in pools[i]:
                        args = [p[0] if p else "x" for p in pools]
                        args[i] = args[j] = o
                        act = "(" + " ".join([name] + args) + ")"
                        if act.lower() not in avoid:
                            return act
        return None

    def random_action(self, rng):
        name, types = rng.choice(self.actions)
        args = []
        for t in types:
            cands = [n for n, ot in self.objects if self.is_a(ot, t)] or [n for n, _ in self.objects]
            args.append(rng.choice(cands))
        return "(" + " ".join([name] + args) + ")"


# ------------------------------------------------------------------ formats the lm-eval prompts ask for


def fmt_list(actions):  # few-shot answer format of app/just: "[(a x), (b y)]"
    return "[" + ", ".join(actions) + "]"


def plan_of_question(q):
    # just/val questions quote the plan: Simplify the plan "(a x) (b y) ..." by removing ...
    m = re.search(r'"(\(.*\))"', q)
    return re.findall(r"\([^()]*\)", m.group(1)) if m else []


def apply_removal(plan, removal):
    """Stored just answers: ["(act)", "k"] drops the k-th occurrence (1-based) of act;
    ["(a)", "(b)", "-1"] drops the first consecutive pair a, b."""
    if removal[-1] == "-1":
        a, b = removal[0], removal[1]
        for i in range(len(plan) - 1):
            if plan[i] == a and plan[i + 1] == b:
                return plan[:i] + plan[i + 2 :]
        raise ValueError(f"pair {a} {b} not in plan")
    act, k = removal[0], int(removal[1])
    seen = 0
    for i, x in enumerate(plan):
        if x == act:
            seen += 1
            if seen == k:
                return plan[:i] + plan[i + 1 :]
    raise ValueError(f"{k}-th {act} not in plan")


def gold_response(r):
    g, a = r["group"], r["answer"]
    if g == "applicable_actions_gen":
        return fmt_list(a)
    if g == "progression_gen":
        return fmt_list(a["pos"]) + " " + fmt_list(a["neg"])
    if g == "reachable_atom_gen":
        return f"({a[0]})" if a else "None"  # stored atoms have no parentheses
    if g == "reachable_action_gen":
        return a[0] if a else "None"
    if g == "validation_gen":
        return str(a)
    if g == "action_justification_gen":
        return fmt_list(apply_removal(plan_of_question(r["question"]), a[0]))
    if g == "landmarks_gen":
        return a["yes"][0] if a["yes"] else "None"
    if g == "goal_closer_gen":
        return a["yes"][0]
    raise ValueError(g)


def wrong_responses(r, rng):
    g, a = r["group"], r["answer"]
    P = Pddl(r["PDDL_domain"], r["PDDL_problem"])
    out = []
    if g == "applicable_actions_gen":
        out.append(("wrong:empty", "[]"))
        out.append(("wrong:drop_one", fmt_list(a[:-1])))
        low = {x.lower() for x in a}
        for _ in range(200):
            x = P.random_action(rng)
            if x.lower() not in low:
                out.append(("wrong:add_other", fmt_list(a + [x])))
                break
        shuffled = list(a)
        rng.shuffle(shuffled)
        out.append(("quirk:shuffled_upper", fmt_list([x.upper() for x in shuffled])))
    elif g == "progression_gen":
        out.append(
            (
                "quirk:headers",
                "**Positive Effects**: " + ", ".join(a["pos"]) + "\n**Negative Effects**: " + ", ".join(a["neg"]),
            )
        )
        out.append(("wrong:empty", "[] []"))
        out.append(("wrong:swapped", fmt_list(a["neg"]) + " " + fmt_list(a["pos"])))
        out.append(("wrong:drop_neg", fmt_list(a["pos"])))
    elif g == "reachable_atom_gen":
        init = ["(" + " ".join(x) + ")" for x in P.init if all(isinstance(t, str) for t in x)]
        if a:
            out.append(("wrong:none", "None"))
            out.append(("quirk:no_parens", a[0]))
            out.append(("wrong:init_atom", rng.choice(init)))
        else:
            out.append(("wrong:atom_for_none", rng.choice(init)))
            out.append(("quirk:lowercase_none", "none"))
        name, ar = next((p for p in P.predicates if p[1] >= 1), P.predicates[0])
        out.append(("wrong:unknown_object", "(" + " ".join([name] + ["nosuchobject"] * ar) + ")"))
        out.append(("wrong:unknown_predicate", "(nosuchpredicate " + P.objects[0][0] + ")"))
    elif g == "reachable_action_gen":
        if a:
            out.append(("wrong:none", "None"))
            out.append(("wrong:gold_upper", a[0].upper()))
        out.append(("check:random_action", P.random_action(rng)))
        loop = P.self_loop_action({x.lower() for x in a})
        if loop:
            out.append(("check:self_loop", loop))
    elif g == "validation_gen":
        out.append(("wrong:plus1", str(a + 1)))
        out.append(("wrong:zero_or_one", "1" if a == 0 else "0"))
        out.append(("quirk:sentence", f"The first inapplicable action is the one at index {a}."))
        out.append(("quirk:leading_zero", "0" + str(a)))
    elif g == "action_justification_gen":
        plan = plan_of_question(r["question"])
        gold = apply_removal(plan, a[0])
        out.append(("wrong:full_plan", fmt_list(plan)))
        out.append(("wrong:empty", "[]"))
        out.append(("wrong:drop_first", fmt_list(plan[1:])))
        out.append(("quirk:simplified_prefix", "Simplified plan: " + fmt_list(gold)))
        out.append(("quirk:lowercase", fmt_list(gold).lower()))
        try:
            rest = plan
            for rem in a:
                rest = apply_removal(rest, rem)
            if len(a) > 1:
                out.append(("check:all_stored_removals", fmt_list(rest)))
        except ValueError:
            pass
    elif g == "landmarks_gen":
        if a["yes"]:
            out.append(("wrong:none", "None"))
            out.append(("quirk:upper", a["yes"][0].upper()))
        else:
            out.append(("quirk:lowercase_none", "none"))
        if a["no"]:
            out.append(("wrong:no_entry", a["no"][0]))
        if a["yes"] and a["no"]:
            out.append(("quirk:no_then_yes", a["no"][0] + " " + a["yes"][0]))
    elif g == "goal_closer_gen":
        if a["no"]:
            out.append(("wrong:no_entry", a["no"][0]))
        out.append(("wrong:none", "None"))
        out.append(("wrong:random_action", P.random_action(rng)))
        if a["maybe"]:
            out.append(("check:maybe", a["maybe"][0]))
        out.append(("quirk:prose_prefix", "The next action is " + a["yes"][0] + "."))
        out.append(("quirk:blank_line_first", "Let me think.\n\n" + a["yes"][0]))
    return out


def load(paths):
    files = []
    for p in paths:
        files += (
            sorted(
                glob.glob(os.path.join(p, "*.json"))
                + glob.glob(os.path.join(p, "*.jsonl"))
                + glob.glob(os.path.join(p, "*.jsonl.gz"))
            )
            if os.path.isdir(p)
            else [p]
        )
    recs = []
    for f in files:
        with gzip.open(f, "rt", encoding="utf8") if f.endswith(".gz") else open(f, encoding="utf8") as fh:
            if f.endswith((".jsonl", ".jsonl.gz")):
                recs += [json.loads(x) for x in fh if x.strip()]
            else:
                d = json.load(fh)
                recs += d if isinstance(d, list) else [d]
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gold-only", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rows = []
    for r in load(a.data):
        base = {"id": r["id"], "group": r["group"]}
        rows.append({**base, "model": "gold", "response": gold_response(r)})
        if not a.gold_only:
            rng = random.Random(f"{a.seed}:{r['group']}:{r['id']}")
            rows += [{**base, "model": m, "response": t} for m, t in wrong_responses(r, rng)]
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    counts = {}
    for row in rows:
        k = (SHORT.get(row["group"], row["group"]), row["model"])
        counts[k] = counts.get(k, 0) + 1
    for k in sorted(counts):
        print(f"{k[0]:7} {k[1]:26} {counts[k]}")
    print(f"{len(rows)} responses -> {a.out}")


if __name__ == "__main__":
    main()
