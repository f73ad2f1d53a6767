;; Sharing work: a job's load is split evenly among the workers assigned to it, (share ?j) :=
;; (load ?j) / (workers ?j). Releasing workers can bring a job to zero workers, where splitting
;; divides by zero: PDDL 2.1 leaves the result undefined, so that split is not applicable. Hiring is
;; unbounded (an unbounded counter: the state space is infinite).
(define (domain sharing-divzero)
  (:requirements :typing :numeric-fluents :negative-preconditions)
  (:types job)
  (:predicates (planned ?j - job) (done ?j - job))
  (:functions (load ?j - job) (workers ?j - job) (share ?j - job) (max-share) (hired))

  (:action hire
    :parameters (?j - job)
    :precondition (not (planned ?j))
    :effect (and (increase (workers ?j) 1) (increase (hired) 1)))

  (:action release
    :parameters (?j - job)
    :precondition (and (not (planned ?j)) (>= (workers ?j) 1))
    :effect (decrease (workers ?j) 1))

  (:action split
    :parameters (?j - job)
    :precondition (not (planned ?j))
    :effect (and (planned ?j) (assign (share ?j) (/ (load ?j) (workers ?j)))))

  (:action redo
    :parameters (?j - job)
    :precondition (planned ?j)
    :effect (not (planned ?j)))

  (:action work
    :parameters (?j - job)
    :precondition (and (planned ?j) (<= (share ?j) (max-share)))
    :effect (done ?j))
)
