;; no workers yet: split divides by zero and is not applicable until someone is hired
(define (problem sharing-p02)
  (:domain sharing-divzero)
  (:objects j1 - job)
  (:init (= (load j1) 2.5) (= (workers j1) 0) (= (share j1) 0) (= (max-share) 2.5) (= (hired) 0))
  (:goal (done j1)))
