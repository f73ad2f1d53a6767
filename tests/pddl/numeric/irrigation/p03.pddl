;; unsolvable: the field saturates below its need, so it is always dry
(define (problem irrigation-p03)
  (:domain irrigation)
  (:objects c1 - canal f1 - field)
  (:init (connected c1 f1)
         (= (moisture f1) 0) (= (need f1) 2) (= (saturation f1) 1.5)
         (= (water c1) 10) (= (flow c1) 1) (= (pumped) 0))
  (:goal (harvested f1)))
