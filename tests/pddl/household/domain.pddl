; A household robot (alfred-style, written for acptools' tests and benchmarks): one agent walks between
; locations, opens and closes receptacles, picks objects up and puts them into receptacles, cleans,
; heats and cools what it holds, switches appliances on and slices food with a knife. STRIPS with typing.
(define (domain household)
  (:requirements :strips :typing)
  (:types agent location receptacle item)
  (:predicates
    (at ?a - agent ?l - location)
    (receptacle-at ?r - receptacle ?l - location)
    (object-at ?o - item ?l - location)
    (in ?o - item ?r - receptacle)
    (openable ?r - receptacle)
    (reachable-inside ?r - receptacle)
    (holding ?a - agent ?o - item)
    (hand-empty ?a - agent)
    (portable ?o - item)
    (sink ?r - receptacle) (microwave ?r - receptacle) (fridge ?r - receptacle)
    (washable ?o - item) (heatable ?o - item) (coolable ?o - item)
    (switchable ?o - item) (sliceable ?o - item) (knife ?o - item)
    (clean ?o - item) (hot ?o - item) (cold ?o - item) (switched-on ?o - item) (sliced ?o - item))
  (:action go
    :parameters (?a - agent ?from - location ?to - location)
    :precondition (at ?a ?from)
    :effect (and (at ?a ?to) (not (at ?a ?from))))
  (:action open
    :parameters (?a - agent ?l - location ?r - receptacle)
    :precondition (and (at ?a ?l) (receptacle-at ?r ?l) (openable ?r))
    :effect (reachable-inside ?r))
  (:action close
    :parameters (?a - agent ?l - location ?r - receptacle)
    :precondition (and (at ?a ?l) (receptacle-at ?r ?l) (openable ?r) (reachable-inside ?r))
    :effect (not (reachable-inside ?r)))
  (:action take
    :parameters (?a - agent ?l - location ?o - item ?r - receptacle)
    :precondition (and (at ?a ?l) (receptacle-at ?r ?l) (in ?o ?r) (reachable-inside ?r) (portable ?o)
                       (hand-empty ?a))
    :effect (and (holding ?a ?o) (not (hand-empty ?a)) (not (in ?o ?r)) (not (object-at ?o ?l))))
  (:action put
    :parameters (?a - agent ?l - location ?o - item ?r - receptacle)
    :precondition (and (at ?a ?l) (receptacle-at ?r ?l) (reachable-inside ?r) (holding ?a ?o))
    :effect (and (in ?o ?r) (object-at ?o ?l) (hand-empty ?a) (not (holding ?a ?o))))
  (:action wash
    :parameters (?a - agent ?l - location ?r - receptacle ?o - item)
    :precondition (and (at ?a ?l) (receptacle-at ?r ?l) (sink ?r) (holding ?a ?o) (washable ?o))
    :effect (clean ?o))
  (:action heat
    :parameters (?a - agent ?l - location ?r - receptacle ?o - item)
    :precondition (and (at ?a ?l) (receptacle-at ?r ?l) (microwave ?r) (holding ?a ?o) (heatable ?o))
    :effect (and (hot ?o) (not (cold ?o))))
  (:action cool
    :parameters (?a - agent ?l - location ?r - receptacle ?o - item)
    :precondition (and (at ?a ?l) (receptacle-at ?r ?l) (fridge ?r) (holding ?a ?o) (coolable ?o))
    :effect (and (cold ?o) (not (hot ?o))))
  (:action switch-on
    :parameters (?a - agent ?l - location ?o - item)
    :precondition (and (at ?a ?l) (object-at ?o ?l) (switchable ?o))
    :effect (switched-on ?o))
  (:action slice
    :parameters (?a - agent ?l - location ?o - item ?k - item)
    :precondition (and (at ?a ?l) (object-at ?o ?l) (sliceable ?o) (holding ?a ?k) (knife ?k))
    :effect (sliced ?o)))
