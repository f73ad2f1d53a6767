;; measure 0.1 with jugs of 0.7 (with a tap) and 0.3: fill, top up the small jug twice, each time
;; emptying it (0.7 - 0.3 - 0.3 = 0.1 exactly; in floats 0.09999999999999998)
(define (problem jugs-p03)
  (:domain jugs-decimal)
  (:objects big small - jug)
  (:init (tap big) (= (amount big) 0) (= (capacity big) 0.7) (= (amount small) 0) (= (capacity small) 0.3))
  (:goal (= (amount big) 0.1)))
