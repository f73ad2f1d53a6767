; STRIPS with negative preconditions and a dead end: a door that slams shut for good.
(define (domain doors)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types room key)
  (:predicates (robot-at ?r - room) (connected ?a ?b - room) (door-open ?a ?b - room) (has ?k - key)
               (key-at ?k - key ?r - room) (opens ?k - key ?a ?b - room) (broken ?a ?b - room))
  (:action walk
    :parameters (?a ?b - room)
    :precondition (and (robot-at ?a) (connected ?a ?b) (door-open ?a ?b) (not (= ?a ?b)))
    :effect (and (robot-at ?b) (not (robot-at ?a))))
  (:action pick
    :parameters (?k - key ?r - room)
    :precondition (and (robot-at ?r) (key-at ?k ?r) (not (has ?k)))
    :effect (and (has ?k) (not (key-at ?k ?r))))
  (:action unlock
    :parameters (?k - key ?a ?b - room)
    :precondition (and (robot-at ?a) (has ?k) (opens ?k ?a ?b) (not (door-open ?a ?b)) (not (broken ?a ?b)))
    :effect (and (door-open ?a ?b) (door-open ?b ?a)))
  (:action slam
    :parameters (?a ?b - room)
    :precondition (and (robot-at ?a) (door-open ?a ?b))
    :effect (and (not (door-open ?a ?b)) (not (door-open ?b ?a)) (broken ?a ?b) (broken ?b ?a))))
