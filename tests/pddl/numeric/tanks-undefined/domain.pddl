;; Tanks with fluents that some problems leave undefined. PDDL 2.1: an action whose precondition or
;; effects read a fluent without a value is not applicable; `calibrate` assigns a tank's level and so
;; defines it. A pipe's (rate ?p) is static: a pipe without a rate can never be used.
(define (domain tanks-undefined)
  (:requirements :typing :numeric-fluents :negative-preconditions)
  (:types tank pipe)
  (:predicates (joins ?p - pipe ?from ?to - tank) (sealed ?t - tank) (calibrated ?t - tank))
  (:functions (level ?t - tank) (rate ?p - pipe) (transfers))

  (:action calibrate
    :parameters (?t - tank)
    :precondition (not (calibrated ?t))
    :effect (and (calibrated ?t) (assign (level ?t) 0)))

  (:action transfer
    :parameters (?p - pipe ?from ?to - tank)
    :precondition (and (joins ?p ?from ?to) (>= (level ?from) 1))
    :effect (and (decrease (level ?from) 1)
                 (increase (level ?to) (* 1 (rate ?p)))
                 (increase (transfers) 1)))

  (:action seal
    :parameters (?t - tank)
    :precondition (>= (level ?t) 2)
    :effect (sealed ?t))
)
