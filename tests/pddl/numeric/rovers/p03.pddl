;; unsolvable: no sun anywhere and 20 units of energy; the sample is two moves away and sending it
;; back needs two more moves
(define (problem rovers-p03)
  (:domain rovers-numeric)
  (:objects rover0 - rover w0 w1 w2 - waypoint general - lander)
  (:init (at rover0 w0) (at-lander general w0) (at-soil-sample w2)
         (can-traverse rover0 w0 w1) (can-traverse rover0 w1 w0) (can-traverse rover0 w1 w2) (can-traverse rover0 w2 w1)
         (visible w0 w1) (visible w1 w0)
         (= (energy rover0) 20) (= (capacity rover0) 50) (= (recharges) 0))
  (:goal (communicated-soil w2))
)
