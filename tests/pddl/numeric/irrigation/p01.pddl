;; one canal, two fields: flood once and harvest both
(define (problem irrigation-p01)
  (:domain irrigation)
  (:objects c1 - canal f1 f2 - field)
  (:init (connected c1 f1) (connected c1 f2)
         (= (moisture f1) 1) (= (need f1) 3) (= (saturation f1) 5)
         (= (moisture f2) 2.5) (= (need f2) 3) (= (saturation f2) 4)
         (= (water c1) 2) (= (flow c1) 2) (= (pumped) 0))
  (:goal (and (harvested f1) (harvested f2))))
