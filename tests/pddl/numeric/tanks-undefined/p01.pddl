;; every fluent defined: move two units into t2 and seal it
(define (problem tanks-p01)
  (:domain tanks-undefined)
  (:objects t1 t2 - tank p12 - pipe)
  (:init (joins p12 t1 t2) (= (level t1) 3) (= (level t2) 0) (= (rate p12) 1) (= (transfers) 0))
  (:goal (sealed t2)))
