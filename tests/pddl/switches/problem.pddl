(define (problem two) (:domain switches)
  (:objects s1 s2 s3 - switch l1 l2 l3 - lamp)
  (:init (ready) (wired s1 l1) (wired s2 l2) (wired s2 l3) (wired s3 l3) (fused l1))
  (:goal (and (lit l1) (lit l2) (lit l3))))
