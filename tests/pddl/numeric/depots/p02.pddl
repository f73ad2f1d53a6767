;; two crates whose weights (30 + 25.5) exceed the load limit 50 together: two trips, the top crate
;; parked on the spare pallet meanwhile (without pallet2 the task is unsolvable)
(define (problem depots-p02)
  (:domain depots-numeric)
  (:objects depot0 - depot dist0 - distributor truck0 - truck pallet0 pallet1 pallet2 - pallet
            crate0 crate1 - crate hoist0 hoist1 - hoist)
  (:init (at pallet0 depot0) (at pallet1 dist0) (clear pallet1) (at pallet2 depot0) (clear pallet2) (clear crate1)
         (at truck0 depot0) (at hoist0 depot0) (available hoist0) (at hoist1 dist0) (available hoist1)
         (at crate0 depot0) (on crate0 pallet0) (at crate1 depot0) (on crate1 crate0)
         (= (current-load truck0) 0) (= (load-limit truck0) 50)
         (= (weight crate0) 30) (= (weight crate1) 25.5)
         (= (fuel-cost) 0))
  (:goal (and (on crate0 pallet1) (on crate1 crate0)))
  (:metric minimize (fuel-cost)))
