;; Numeric driverlog (after the IPC 2002 numeric driverlog, written for acptools' tests): drivers walk
;; paths and drive trucks on roads; driving burns (fuel-per-km ?t) * distance of the truck's fuel, which
;; can only be topped up at depots. Metric: a weighted sum of time and fuel used.
(define (domain driverlog-numeric)
  (:requirements :typing :numeric-fluents)
  (:types location locatable - object
          driver truck obj - locatable)
  (:predicates (at ?o - locatable ?l - location) (in ?o - obj ?t - truck) (driving ?d - driver ?t - truck)
               (link ?x ?y - location) (path ?x ?y - location) (empty ?t - truck) (depot ?l - location))
  (:functions (time-to-walk ?x ?y - location) (distance ?x ?y - location)
              (fuel ?t - truck) (fuel-per-km ?t - truck) (tank ?t - truck)
              (time-spent) (fuel-used))

  (:action load-truck
    :parameters (?o - obj ?t - truck ?l - location)
    :precondition (and (at ?t ?l) (at ?o ?l))
    :effect (and (not (at ?o ?l)) (in ?o ?t) (increase (time-spent) 1)))

  (:action unload-truck
    :parameters (?o - obj ?t - truck ?l - location)
    :precondition (and (at ?t ?l) (in ?o ?t))
    :effect (and (not (in ?o ?t)) (at ?o ?l) (increase (time-spent) 1)))

  (:action board-truck
    :parameters (?d - driver ?t - truck ?l - location)
    :precondition (and (at ?t ?l) (at ?d ?l) (empty ?t))
    :effect (and (not (at ?d ?l)) (driving ?d ?t) (not (empty ?t)) (increase (time-spent) 0.5)))

  (:action disembark-truck
    :parameters (?d - driver ?t - truck ?l - location)
    :precondition (and (at ?t ?l) (driving ?d ?t))
    :effect (and (not (driving ?d ?t)) (at ?d ?l) (empty ?t) (increase (time-spent) 0.5)))

  (:action drive-truck
    :parameters (?t - truck ?from ?to - location ?d - driver)
    :precondition (and (at ?t ?from) (driving ?d ?t) (link ?from ?to)
                       (>= (fuel ?t) (* (distance ?from ?to) (fuel-per-km ?t))))
    :effect (and (not (at ?t ?from)) (at ?t ?to)
                 (decrease (fuel ?t) (* (distance ?from ?to) (fuel-per-km ?t)))
                 (increase (fuel-used) (* (distance ?from ?to) (fuel-per-km ?t)))
                 (increase (time-spent) (distance ?from ?to))))

  (:action refuel-truck
    :parameters (?t - truck ?l - location)
    :precondition (and (at ?t ?l) (depot ?l) (< (fuel ?t) (tank ?t)))
    :effect (and (assign (fuel ?t) (tank ?t)) (increase (time-spent) 2)))

  (:action walk
    :parameters (?d - driver ?from ?to - location)
    :precondition (and (at ?d ?from) (path ?from ?to))
    :effect (and (not (at ?d ?from)) (at ?d ?to) (increase (time-spent) (time-to-walk ?from ?to))))
)
