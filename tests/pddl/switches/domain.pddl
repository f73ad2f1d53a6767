; ADL test domain: conditional effects over a fluent condition, universal effects, negative
; preconditions, an action without effects.
(define (domain switches)
  (:requirements :typing :conditional-effects :negative-preconditions)
  (:types switch lamp)
  (:predicates (on ?s - switch) (lit ?l - lamp) (wired ?s - switch ?l - lamp) (ready) (fused ?l - lamp))
  (:action wait :parameters () :precondition (ready) :effect (and))
  (:action repair :parameters (?l - lamp) :precondition (fused ?l) :effect (not (fused ?l)))
  (:action flip-on
    :parameters (?s - switch)
    :precondition (not (on ?s))
    :effect (and (on ?s) (forall (?l - lamp) (when (and (wired ?s ?l) (not (fused ?l))) (lit ?l)))))
  (:action flip-off
    :parameters (?s - switch)
    :precondition (on ?s)
    :effect (and (not (on ?s)) (forall (?l - lamp) (when (wired ?s ?l) (not (lit ?l)))))))
