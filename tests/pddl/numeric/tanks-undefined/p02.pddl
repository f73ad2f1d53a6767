;; (level t2) is undefined: transferring into t2 reads it (increase) and is not applicable until
;; calibrate t2 gives it a value; calibrating t1 instead would reset t1 to 0, a dead end
(define (problem tanks-p02)
  (:domain tanks-undefined)
  (:objects t1 t2 - tank p12 - pipe)
  (:init (joins p12 t1 t2) (= (level t1) 2) (= (rate p12) 1) (= (transfers) 0))
  (:goal (sealed t2)))
