; ADL test domain: constants, equality, negative and disjunctive/quantified preconditions,
; conditional and universally quantified effects.
(define (domain briefcase)
  (:requirements :adl :typing :equality :negative-preconditions :conditional-effects)
  (:types location portable)
  (:constants home - location)
  (:predicates (at-b ?l - location) (at ?o - portable ?l - location) (in ?o - portable) (locked) (moved))
  (:action move
    :parameters (?from ?to - location)
    :precondition (and (at-b ?from) (not (= ?from ?to)) (not (locked)))
    :effect (and (at-b ?to) (not (at-b ?from)) (moved)
                 (forall (?o - portable) (when (in ?o) (and (at ?o ?to) (not (at ?o ?from)))))))
  (:action put-in
    :parameters (?o - portable ?l - location)
    :precondition (and (at ?o ?l) (at-b ?l) (not (in ?o)))
    :effect (in ?o))
  (:action take-out
    :parameters (?o - portable)
    :precondition (in ?o)
    :effect (not (in ?o)))
  (:action lock
    :parameters ()
    :precondition (or (at-b home) (forall (?o - portable) (not (in ?o))))
    :effect (locked))
  (:action unlock
    :parameters ()
    :precondition (and (locked) (exists (?o - portable) (at ?o home)))
    :effect (not (locked))))
