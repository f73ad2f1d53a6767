;; mix three vats into one whose concentration is exactly 1/3
(define (problem scaling-p01)
  (:domain scaling)
  (:objects v1 v2 v3 - vat)
  (:init (= (volume v1) 1) (= (concentration v1) 1) (= (vat-capacity v1) 3)
         (= (volume v2) 1) (= (concentration v2) 0) (= (vat-capacity v2) 3)
         (= (volume v3) 1) (= (concentration v3) 0) (= (vat-capacity v3) 3))
  (:goal (and (= (concentration v3) (/ 1 3)) (= (volume v3) 3))))
