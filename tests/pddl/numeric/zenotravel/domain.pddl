;; Numeric zenotravel (after the IPC 2002 numeric track, written for acptools' tests): aircraft burn
;; fuel in proportion to distance (fast flights burn more and carry fewer passengers), refuel only at
;; cities with a fuel station, and board at most (seats ?a) passengers. Metric: total fuel burnt.
(define (domain zenotravel-numeric)
  (:requirements :typing :numeric-fluents)
  (:types locatable city - object
          aircraft person - locatable)
  (:predicates (at ?x - locatable ?c - city)
               (in ?p - person ?a - aircraft)
               (fuel-station ?c - city))
  (:functions (fuel ?a - aircraft)
              (tank ?a - aircraft)
              (slow-burn ?a - aircraft)
              (fast-burn ?a - aircraft)
              (seats ?a - aircraft)
              (zoom-limit ?a - aircraft)
              (onboard ?a - aircraft)
              (distance ?c1 ?c2 - city)
              (fuel-used))

  (:action board
    :parameters (?p - person ?a - aircraft ?c - city)
    :precondition (and (at ?p ?c) (at ?a ?c) (< (onboard ?a) (seats ?a)))
    :effect (and (not (at ?p ?c)) (in ?p ?a) (increase (onboard ?a) 1)))

  (:action debark
    :parameters (?p - person ?a - aircraft ?c - city)
    :precondition (and (in ?p ?a) (at ?a ?c))
    :effect (and (not (in ?p ?a)) (at ?p ?c) (decrease (onboard ?a) 1)))

  (:action fly-slow
    :parameters (?a - aircraft ?from ?to - city)
    :precondition (and (at ?a ?from)
                       (>= (fuel ?a) (* (distance ?from ?to) (slow-burn ?a))))
    :effect (and (not (at ?a ?from)) (at ?a ?to)
                 (decrease (fuel ?a) (* (distance ?from ?to) (slow-burn ?a)))
                 (increase (fuel-used) (* (distance ?from ?to) (slow-burn ?a)))))

  (:action fly-fast
    :parameters (?a - aircraft ?from ?to - city)
    :precondition (and (at ?a ?from)
                       (<= (onboard ?a) (zoom-limit ?a))
                       (>= (fuel ?a) (* (distance ?from ?to) (fast-burn ?a))))
    :effect (and (not (at ?a ?from)) (at ?a ?to)
                 (decrease (fuel ?a) (* (distance ?from ?to) (fast-burn ?a)))
                 (increase (fuel-used) (* (distance ?from ?to) (fast-burn ?a)))))

  (:action refuel
    :parameters (?a - aircraft ?c - city)
    :precondition (and (at ?a ?c) (fuel-station ?c) (< (fuel ?a) (tank ?a)))
    :effect (assign (fuel ?a) (tank ?a)))
)
