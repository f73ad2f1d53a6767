; ADL test domain for the grounder's join: constants and repeated variables in static literals,
; equality, negated static literals.
(define (domain join) (:requirements :typing :equality :negative-preconditions)
  (:types place thing)
  (:constants depot - place)
  (:predicates (link ?a ?b - place) (same ?a ?b - place) (store ?t - thing ?p - place) (here ?t - thing ?p - place))
  (:action carry :parameters (?t - thing ?a ?b - place ?c - place)
    :precondition (and (link ?a ?b) (link ?b ?c) (not (= ?a ?c)) (same ?c ?c) (store ?t ?c)
                       (not (link ?c depot)) (here ?t ?a))
    :effect (and (here ?t ?c) (not (here ?t ?a))))
  (:action ship :parameters (?t - thing ?a - place)
    :precondition (and (link depot ?a) (here ?t depot))
    :effect (and (here ?t ?a) (not (here ?t depot)))))
