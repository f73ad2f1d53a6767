;; unsolvable in exact arithmetic (at most 0.3 can be gathered) but "solvable" in floats, where
;; 0.1 + 0.2 > 0.3
(define (problem jugs-p02)
  (:domain jugs-decimal)
  (:objects j1 j2 j3 - jug)
  (:init (= (amount j1) 0.1) (= (capacity j1) 0.1) (= (amount j2) 0.2) (= (capacity j2) 0.2)
         (= (amount j3) 0) (= (capacity j3) 0.4))
  (:goal (> (amount j3) 0.3)))
