;; one crate from the depot to the distributor
(define (problem depots-p01)
  (:domain depots-numeric)
  (:objects depot0 - depot dist0 - distributor truck0 - truck pallet0 pallet1 - pallet
            crate0 - crate hoist0 hoist1 - hoist)
  (:init (at pallet0 depot0) (clear crate0) (at pallet1 dist0) (clear pallet1)
         (at truck0 dist0) (at hoist0 depot0) (available hoist0) (at hoist1 dist0) (available hoist1)
         (at crate0 depot0) (on crate0 pallet0)
         (= (current-load truck0) 0) (= (load-limit truck0) 50) (= (weight crate0) 20)
         (= (fuel-cost) 0))
  (:goal (on crate0 pallet1))
  (:metric minimize (fuel-cost)))
