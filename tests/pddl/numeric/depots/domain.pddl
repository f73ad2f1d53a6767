;; Depots with load limits (after the IPC 2002 numeric depots, written for acptools' tests): hoists
;; stack crates; a truck carries crates while their total weight stays within its load limit.
;; Driving costs fuel (10), hoisting costs 1. Metric: total fuel cost.
(define (domain depots-numeric)
  (:requirements :typing :numeric-fluents)
  (:types place locatable - object
          depot distributor - place
          truck hoist surface - locatable
          pallet crate - surface)
  (:predicates (at ?x - locatable ?y - place) (on ?x - crate ?y - surface) (in ?x - crate ?y - truck)
               (lifting ?x - hoist ?y - crate) (available ?x - hoist) (clear ?x - surface))
  (:functions (load-limit ?t - truck) (current-load ?t - truck) (weight ?c - crate) (fuel-cost))

  (:action drive
    :parameters (?x - truck ?y - place ?z - place)
    :precondition (at ?x ?y)
    :effect (and (not (at ?x ?y)) (at ?x ?z) (increase (fuel-cost) 10)))

  (:action lift
    :parameters (?x - hoist ?y - crate ?z - surface ?p - place)
    :precondition (and (at ?x ?p) (available ?x) (at ?y ?p) (on ?y ?z) (clear ?y))
    :effect (and (not (at ?y ?p)) (lifting ?x ?y) (not (clear ?y)) (not (available ?x))
                 (clear ?z) (not (on ?y ?z)) (increase (fuel-cost) 1)))

  (:action drop
    :parameters (?x - hoist ?y - crate ?z - surface ?p - place)
    :precondition (and (at ?x ?p) (at ?z ?p) (clear ?z) (lifting ?x ?y))
    :effect (and (available ?x) (not (lifting ?x ?y)) (at ?y ?p) (not (clear ?z)) (clear ?y)
                 (on ?y ?z)))

  (:action load
    :parameters (?x - hoist ?y - crate ?z - truck ?p - place)
    :precondition (and (at ?x ?p) (at ?z ?p) (lifting ?x ?y)
                       (<= (+ (current-load ?z) (weight ?y)) (load-limit ?z)))
    :effect (and (not (lifting ?x ?y)) (in ?y ?z) (available ?x)
                 (increase (current-load ?z) (weight ?y))))

  (:action unload
    :parameters (?x - hoist ?y - crate ?z - truck ?p - place)
    :precondition (and (at ?x ?p) (at ?z ?p) (available ?x) (in ?y ?z))
    :effect (and (not (in ?y ?z)) (not (available ?x)) (lifting ?x ?y)
                 (decrease (current-load ?z) (weight ?y))))
)
