;; the truck starts with too little fuel to reach s2 and back: refuel at the depot s0 first, or the
;; driver walks (slowly) along the path to fetch the package; driving to s2 with the first fill is a
;; dead end
(define (problem driverlog-p02)
  (:domain driverlog-numeric)
  (:objects s0 s1 s2 p01 - location d1 - driver t1 - truck pkg1 pkg2 - obj)
  (:init (at d1 s0) (at t1 s0) (empty t1) (at pkg1 s2) (at pkg2 s1) (depot s0)
         (link s0 s1) (link s1 s0) (link s1 s2) (link s2 s1)
         (path s0 p01) (path p01 s0) (path p01 s1) (path s1 p01)
         (= (time-to-walk s0 p01) 4) (= (time-to-walk p01 s0) 4) (= (time-to-walk p01 s1) 3.5) (= (time-to-walk s1 p01) 3.5)
         (= (distance s0 s1) 2) (= (distance s1 s0) 2) (= (distance s1 s2) 2) (= (distance s2 s1) 2)
         (= (fuel t1) 5) (= (tank t1) 10) (= (fuel-per-km t1) 1.25)
         (= (time-spent) 0) (= (fuel-used) 0))
  (:goal (and (at pkg1 s0) (at pkg2 s0) (at d1 s0)))
  (:metric minimize (+ (* 2 (time-spent)) (fuel-used))))
