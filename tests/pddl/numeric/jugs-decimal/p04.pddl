;; the 8-5-3 puzzle in tenths: split 0.8 into two halves of 0.4
(define (problem jugs-p04)
  (:domain jugs-decimal)
  (:objects a b c - jug)
  (:init (= (amount a) 0.8) (= (capacity a) 0.8) (= (amount b) 0) (= (capacity b) 0.5)
         (= (amount c) 0) (= (capacity c) 0.3))
  (:goal (and (= (amount a) 0.4) (= (amount b) 0.4))))
