;; Rovers with energy (after the IPC 2002 numeric rovers, written for acptools' tests): moving and
;; sampling drain a rover's battery; it recharges only at sunny waypoints, up to its capacity. Soil
;; and rock data must be communicated to the lander from a waypoint that sees it. No metric: plan
;; length.
(define (domain rovers-numeric)
  (:requirements :typing :numeric-fluents)
  (:types rover waypoint lander)
  (:predicates (at ?r - rover ?w - waypoint) (at-lander ?l - lander ?w - waypoint)
               (can-traverse ?r - rover ?x ?y - waypoint) (visible ?x ?y - waypoint) (in-sun ?w - waypoint)
               (at-soil-sample ?w - waypoint) (at-rock-sample ?w - waypoint)
               (have-soil ?r - rover ?w - waypoint) (have-rock ?r - rover ?w - waypoint)
               (communicated-soil ?w - waypoint) (communicated-rock ?w - waypoint))
  (:functions (energy ?r - rover) (capacity ?r - rover) (recharges))

  (:action navigate
    :parameters (?r - rover ?from ?to - waypoint)
    :precondition (and (can-traverse ?r ?from ?to) (at ?r ?from) (>= (energy ?r) 8))
    :effect (and (decrease (energy ?r) 8) (not (at ?r ?from)) (at ?r ?to)))

  (:action recharge
    :parameters (?r - rover ?w - waypoint)
    :precondition (and (at ?r ?w) (in-sun ?w) (< (energy ?r) (capacity ?r)))
    :effect (and (increase (energy ?r) (- (capacity ?r) (energy ?r))) (increase (recharges) 1)))

  (:action sample-soil
    :parameters (?r - rover ?w - waypoint)
    :precondition (and (at ?r ?w) (at-soil-sample ?w) (>= (energy ?r) 3))
    :effect (and (not (at-soil-sample ?w)) (have-soil ?r ?w) (decrease (energy ?r) 3)))

  (:action sample-rock
    :parameters (?r - rover ?w - waypoint)
    :precondition (and (at ?r ?w) (at-rock-sample ?w) (>= (energy ?r) 5))
    :effect (and (not (at-rock-sample ?w)) (have-rock ?r ?w) (decrease (energy ?r) 5)))

  (:action communicate-soil
    :parameters (?r - rover ?l - lander ?p ?x ?y - waypoint)
    :precondition (and (at ?r ?x) (at-lander ?l ?y) (have-soil ?r ?p) (visible ?x ?y) (>= (energy ?r) 4))
    :effect (and (communicated-soil ?p) (decrease (energy ?r) 4)))

  (:action communicate-rock
    :parameters (?r - rover ?l - lander ?p ?x ?y - waypoint)
    :precondition (and (at ?r ?x) (at-lander ?l ?y) (have-rock ?r ?p) (visible ?x ?y) (>= (energy ?r) 4))
    :effect (and (communicated-rock ?p) (decrease (energy ?r) 4)))
)
