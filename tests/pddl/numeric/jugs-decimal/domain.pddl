;; Water jugs with decimal amounts: whether a pour fits, and whether a goal amount is met, depends on
;; exact decimal arithmetic (0.1 + 0.2 = 0.3, 0.7 - 0.3 - 0.3 = 0.1), which binary floating point
;; gets wrong. Emptying a jug without a tap is irreversible (dead ends). No metric: plan length.
(define (domain jugs-decimal)
  (:requirements :typing :numeric-fluents :equality :negative-preconditions)
  (:types jug)
  (:predicates (tap ?j - jug))
  (:functions (amount ?j - jug) (capacity ?j - jug))

  (:action pour
    :parameters (?a ?b - jug)
    :precondition (and (not (= ?a ?b)) (> (amount ?a) 0)
                       (<= (+ (amount ?a) (amount ?b)) (capacity ?b)))
    :effect (and (increase (amount ?b) (amount ?a)) (assign (amount ?a) 0)))

  (:action pour-until-full
    :parameters (?a ?b - jug)
    :precondition (and (not (= ?a ?b)) (> (+ (amount ?a) (amount ?b)) (capacity ?b)))
    :effect (and (decrease (amount ?a) (- (capacity ?b) (amount ?b))) (assign (amount ?b) (capacity ?b))))

  (:action fill
    :parameters (?j - jug)
    :precondition (and (tap ?j) (< (amount ?j) (capacity ?j)))
    :effect (assign (amount ?j) (capacity ?j)))

  (:action empty
    :parameters (?j - jug)
    :precondition (> (amount ?j) 0)
    :effect (assign (amount ?j) 0))
)
