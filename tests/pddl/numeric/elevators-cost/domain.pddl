;; Elevators (after IPC 2008 elevators, written for acptools' tests): propositional with :action-costs.
;; Slow lifts reach every floor of their block, fast lifts only some floors; travel costs are static
;; functions of the two floors; boarding and leaving cost 0. Capacity is counted with predicates.
(define (domain elevators-cost)
  (:requirements :typing :action-costs)
  (:types elevator floor passenger count - object
          slow-elevator fast-elevator - elevator)
  (:predicates (passenger-at ?p - passenger ?f - floor) (boarded ?p - passenger ?e - elevator)
               (lift-at ?e - elevator ?f - floor) (reachable-floor ?e - elevator ?f - floor)
               (above ?f1 - floor ?f2 - floor) (passengers ?e - elevator ?n - count)
               (can-hold ?e - elevator ?n - count) (next ?n1 - count ?n2 - count))
  (:functions (total-cost) - number
              (travel-slow ?f1 - floor ?f2 - floor) - number
              (travel-fast ?f1 - floor ?f2 - floor) - number)

  (:action move-up-slow
    :parameters (?e - slow-elevator ?f1 - floor ?f2 - floor)
    :precondition (and (lift-at ?e ?f1) (above ?f1 ?f2) (reachable-floor ?e ?f2))
    :effect (and (lift-at ?e ?f2) (not (lift-at ?e ?f1)) (increase (total-cost) (travel-slow ?f1 ?f2))))

  (:action move-down-slow
    :parameters (?e - slow-elevator ?f1 - floor ?f2 - floor)
    :precondition (and (lift-at ?e ?f1) (above ?f2 ?f1) (reachable-floor ?e ?f2))
    :effect (and (lift-at ?e ?f2) (not (lift-at ?e ?f1)) (increase (total-cost) (travel-slow ?f2 ?f1))))

  (:action move-up-fast
    :parameters (?e - fast-elevator ?f1 - floor ?f2 - floor)
    :precondition (and (lift-at ?e ?f1) (above ?f1 ?f2) (reachable-floor ?e ?f2))
    :effect (and (lift-at ?e ?f2) (not (lift-at ?e ?f1)) (increase (total-cost) (travel-fast ?f1 ?f2))))

  (:action move-down-fast
    :parameters (?e - fast-elevator ?f1 - floor ?f2 - floor)
    :precondition (and (lift-at ?e ?f1) (above ?f2 ?f1) (reachable-floor ?e ?f2))
    :effect (and (lift-at ?e ?f2) (not (lift-at ?e ?f1)) (increase (total-cost) (travel-fast ?f2 ?f1))))

  (:action board
    :parameters (?p - passenger ?e - elevator ?f - floor ?n1 - count ?n2 - count)
    :precondition (and (lift-at ?e ?f) (passenger-at ?p ?f) (passengers ?e ?n1) (next ?n1 ?n2) (can-hold ?e ?n2))
    :effect (and (not (passenger-at ?p ?f)) (boarded ?p ?e) (not (passengers ?e ?n1)) (passengers ?e ?n2)
                 (increase (total-cost) 0)))

  (:action leave
    :parameters (?p - passenger ?e - elevator ?f - floor ?n1 - count ?n2 - count)
    :precondition (and (lift-at ?e ?f) (boarded ?p ?e) (passengers ?e ?n1) (next ?n2 ?n1))
    :effect (and (passenger-at ?p ?f) (not (boarded ?p ?e)) (not (passengers ?e ?n1)) (passengers ?e ?n2)
                 (increase (total-cost) 0)))
)
