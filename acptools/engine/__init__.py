"""The engine under the eight questions: successor generation, cheap proofs and exact search.

Bottom up: `successors` (operators indexed by precondition), `relaxed` (delete relaxation), `h2` (pair
reachability), `symmetry` (interchangeable objects), `relevance` (goal-relevant operators), `search`
(greedy and A* search), `reachability` (can a goal be reached, possibly without adding some atom),
`hstar_table` and `optimal` (h*, optimal plans and optimal next actions, racing the planners).
"""
