;; Scaling and division: cultures grow by a factor (scale-up), are split in halves (scale-down), and
;; vats are mixed, the mixture's concentration being the volume-weighted mean (a division). Amounts
;; such as 1/3 have no finite decimal. The growth is unbounded: the state space is infinite.
;; PDDL 2.1 defines (scale-up f e) as f := f * e and (scale-down f e) as f := f / e.
(define (domain scaling)
  (:requirements :typing :numeric-fluents :equality :negative-preconditions)
  (:types culture vat)
  (:functions (cells ?c - culture) (growth ?c - culture)
              (volume ?v - vat) (concentration ?v - vat) (vat-capacity ?v - vat))

  (:action grow
    :parameters (?c - culture)
    :precondition (> (cells ?c) 0)
    :effect (scale-up (cells ?c) (growth ?c)))

  (:action split
    :parameters (?c - culture)
    :precondition (>= (cells ?c) 2)
    :effect (scale-down (cells ?c) 2))

  (:action mix
    :parameters (?from ?to - vat)
    :precondition (and (not (= ?from ?to)) (> (volume ?from) 0)
                       (<= (+ (volume ?from) (volume ?to)) (vat-capacity ?to)))
    :effect (and (assign (concentration ?to)
                         (/ (+ (* (volume ?from) (concentration ?from)) (* (volume ?to) (concentration ?to)))
                            (+ (volume ?from) (volume ?to))))
                 (increase (volume ?to) (volume ?from))
                 (assign (volume ?from) 0)
                 (assign (concentration ?from) 0)))

  (:action halve
    :parameters (?v - vat)
    :precondition (> (volume ?v) 0)
    :effect (scale-down (volume ?v) 2))
)
