;; infinite state space, unreachable goal: 3^a / 2^b is never 10, and growth is unbounded, so no
;; search finishes (an exact search must stop at its limit and say so)
(define (problem scaling-p03)
  (:domain scaling)
  (:objects c1 - culture)
  (:init (= (cells c1) 1) (= (growth c1) 3))
  (:goal (= (cells c1) 10)))
