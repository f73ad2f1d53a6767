;; grow (x3) and split (/2) a culture of 1 cell to exactly 4.5 cells: 1 * 3 * 3 / 2
(define (problem scaling-p02)
  (:domain scaling)
  (:objects c1 - culture)
  (:init (= (cells c1) 1) (= (growth c1) 3))
  (:goal (= (cells c1) 4.5)))
