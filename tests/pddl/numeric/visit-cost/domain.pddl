;; Costed grid visits: a robot visits cells; climbing costs (climb-cost ?from ?to) (static), walking
;; level or down costs 1, and a teleport between pads costs the constant 5. Metric: total cost.
(define (domain visit-cost)
  (:requirements :typing :negative-preconditions :action-costs)
  (:types cell)
  (:predicates (at-robot ?c - cell) (visited ?c - cell) (adjacent ?a ?b - cell) (uphill ?a ?b - cell)
               (pad ?c - cell) (blocked ?c - cell))
  (:functions (climb-cost ?a ?b - cell) (total-cost))

  (:action walk
    :parameters (?from ?to - cell)
    :precondition (and (at-robot ?from) (adjacent ?from ?to) (not (uphill ?from ?to)) (not (blocked ?to)))
    :effect (and (not (at-robot ?from)) (at-robot ?to) (visited ?to) (increase (total-cost) 1)))

  (:action climb
    :parameters (?from ?to - cell)
    :precondition (and (at-robot ?from) (adjacent ?from ?to) (uphill ?from ?to) (not (blocked ?to)))
    :effect (and (not (at-robot ?from)) (at-robot ?to) (visited ?to) (increase (total-cost) (climb-cost ?from ?to))))

  (:action teleport
    :parameters (?from ?to - cell)
    :precondition (and (at-robot ?from) (pad ?from) (pad ?to))
    :effect (and (not (at-robot ?from)) (at-robot ?to) (visited ?to) (increase (total-cost) 5)))
)
