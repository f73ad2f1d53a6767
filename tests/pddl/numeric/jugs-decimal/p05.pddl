;; larger: four jugs with taps on two; reach 0.05 in the smallest step of hundredths
(define (problem jugs-p05)
  (:domain jugs-decimal)
  (:objects a b c d - jug)
  (:init (tap a) (tap b) (= (amount a) 0) (= (capacity a) 1.3) (= (amount b) 0) (= (capacity b) 0.45)
         (= (amount c) 0) (= (capacity c) 0.35) (= (amount d) 0) (= (capacity d) 0.6))
  (:goal (and (= (amount d) 0.05) (= (amount c) 0.35))))
