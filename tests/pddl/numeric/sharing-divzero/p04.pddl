;; infinite state space with a goal no plan reaches: a share of exactly 0 needs a load of 0
(define (problem sharing-p04)
  (:domain sharing-divzero)
  (:objects j1 - job)
  (:init (= (load j1) 1) (= (workers j1) 1) (= (share j1) 5) (= (max-share) 10) (= (hired) 0))
  (:goal (and (done j1) (= (share j1) 0))))
