; Two tokens on three places: any two places can be occupied together, never all three. h^2 (pairs)
; cannot see that, so a conjunction of two checks below is unreachable although each check is reachable.
(define (domain three-places)
  (:requirements :strips :typing)
  (:types token place)
  (:predicates (at ?t - token ?p - place) (occupied ?p - place) (free ?p - place) (seen ?p ?q - place))
  (:action move
    :parameters (?t - token ?from ?to - place)
    :precondition (and (at ?t ?from) (free ?to))
    :effect (and (at ?t ?to) (occupied ?to) (free ?from)
                 (not (at ?t ?from)) (not (occupied ?from)) (not (free ?to))))
  (:action check
    :parameters (?p ?q - place)
    :precondition (and (occupied ?p) (occupied ?q))
    :effect (seen ?p ?q)))
