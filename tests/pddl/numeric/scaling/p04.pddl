;; halve a vat before mixing: concentration 0.25 needs 1 part of v1 (c = 1) to 3 parts of water;
;; the vats hold at most 2 so mixing before halving is a dead end
(define (problem scaling-p04)
  (:domain scaling)
  (:objects v1 v2 v3 - vat c1 - culture)
  (:init (= (volume v1) 1) (= (concentration v1) 1) (= (vat-capacity v1) 2)
         (= (volume v2) 1.5) (= (concentration v2) 0) (= (vat-capacity v2) 2)
         (= (volume v3) 0) (= (concentration v3) 0) (= (vat-capacity v3) 2)
         (= (cells c1) 2) (= (growth c1) 1.5))
  (:goal (and (= (concentration v2) 0.25) (>= (cells c1) 4.5))))
