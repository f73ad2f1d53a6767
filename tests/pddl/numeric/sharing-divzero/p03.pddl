;; a division by zero is reachable (release the only worker, then split) and the share (7/3) has no
;; finite decimal; three workers are needed for a share within 2.5
(define (problem sharing-p03)
  (:domain sharing-divzero)
  (:objects j1 j2 - job)
  (:init (= (load j1) 7) (= (workers j1) 1) (= (share j1) 0)
         (= (load j2) 1) (= (workers j2) 1) (= (share j2) 0) (= (max-share) 2.5) (= (hired) 0))
  (:goal (and (done j1) (done j2) (= (share j1) (/ 7 3)))))
