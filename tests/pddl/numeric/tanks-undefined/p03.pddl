;; unsolvable: the only pipe into t3 has no rate, so every transfer through it reads an undefined
;; value (its precondition holds); p12 has a rate but leads elsewhere
(define (problem tanks-p03)
  (:domain tanks-undefined)
  (:objects t1 t2 t3 - tank p12 p13 - pipe)
  (:init (joins p12 t1 t2) (joins p13 t1 t3) (calibrated t1) (calibrated t2) (calibrated t3)
         (= (level t1) 5) (= (level t2) 0) (= (level t3) 0) (= (rate p12) 2) (= (transfers) 0))
  (:goal (sealed t3)))
