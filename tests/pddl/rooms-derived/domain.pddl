; A derived goal: every room lit. A room is lit by a switched-on lamp wired to it or through a
; window from a lit room (positive recursion); dark (the negation of lit) is a second stratum,
; and nobody may walk into a dark room; all-lit quantifies over rooms.
(define (domain rooms-derived)
  (:requirements :typing :negative-preconditions :derived-predicates :universal-preconditions
                 :existential-preconditions)
  (:types room switch)
  (:predicates (at ?r - room) (door ?a ?b - room) (window ?a ?b - room) (in ?s - switch ?r - room)
               (wired ?s - switch ?r - room) (on ?s - switch) (lit ?r - room) (dark ?r - room) (all-lit))
  (:derived (lit ?r - room) (exists (?s - switch) (and (on ?s) (wired ?s ?r))))
  (:derived (lit ?r - room) (exists (?o - room) (and (window ?o ?r) (lit ?o))))
  (:derived (dark ?r) (not (lit ?r)))
  (:derived (all-lit) (forall (?r - room) (not (dark ?r))))
  (:action switch-on
    :parameters (?s - switch ?r - room)
    :precondition (and (at ?r) (in ?s ?r) (not (on ?s)))
    :effect (on ?s))
  (:action switch-off
    :parameters (?s - switch ?r - room)
    :precondition (and (at ?r) (in ?s ?r) (on ?s))
    :effect (not (on ?s)))
  (:action walk
    :parameters (?from ?to - room)
    :precondition (and (at ?from) (door ?from ?to) (not (dark ?to)))
    :effect (and (at ?to) (not (at ?from)))))
