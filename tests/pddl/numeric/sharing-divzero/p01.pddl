;; two workers share 6 units, at most 3 each
(define (problem sharing-p01)
  (:domain sharing-divzero)
  (:objects j1 - job)
  (:init (= (load j1) 6) (= (workers j1) 2) (= (share j1) 0) (= (max-share) 3) (= (hired) 0))
  (:goal (done j1)))
