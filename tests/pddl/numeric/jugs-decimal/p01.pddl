;; 0.1 + 0.2 fits exactly into a jug of 0.3, so the second `pour` is applicable; in floats the sum is
;; 0.30000000000000004: that pour is not applicable and `pour-until-full` is instead
(define (problem jugs-p01)
  (:domain jugs-decimal)
  (:objects j1 j2 j3 - jug)
  (:init (= (amount j1) 0.1) (= (capacity j1) 0.1) (= (amount j2) 0.2) (= (capacity j2) 0.2)
         (= (amount j3) 0) (= (capacity j3) 0.3))
  (:goal (= (amount j3) 0.3)))
