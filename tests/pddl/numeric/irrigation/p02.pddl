;; the festival needs every field moist at once; heat waves make the unshaded field dry again, and
;; the water runs out (pumping is limited): flooding too early is a dead end
(define (problem irrigation-p02)
  (:domain irrigation)
  (:objects c1 c2 - canal f1 f2 f3 - field)
  (:init (connected c1 f1) (connected c1 f2) (connected c2 f3) (shaded f3)
         (= (moisture f1) 0.5) (= (need f1) 2) (= (saturation f1) 2.5)
         (= (moisture f2) 2) (= (need f2) 2) (= (saturation f2) 3)
         (= (moisture f3) 0) (= (need f3) 1) (= (saturation f3) 1)
         (= (water c1) 1.5) (= (flow c1) 1.5) (= (water c2) 0) (= (flow c2) 1) (= (pumped) 0))
  (:goal (and (festival) (harvested f2)))
)
