;; the goal reads (level t3), undefined until calibrated: it does not hold in the initial state even
;; though t3 is never used otherwise
(define (problem tanks-p04)
  (:domain tanks-undefined)
  (:objects t1 t2 t3 - tank p12 p23 - pipe)
  (:init (joins p12 t1 t2) (joins p23 t2 t3) (calibrated t1)
         (= (level t1) 4) (= (rate p12) 0.5) (= (rate p23) 2) (= (transfers) 0))
  (:goal (and (sealed t3) (<= (level t2) 0.5))))
