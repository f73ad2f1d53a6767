;; Delivery with fuel: a van drives on roads burning fuel equal to the road's length, picks up and
;; drops parcels (at most (space ?v) at once), and refuels to a full tank at stations, paying
;; (price ?s) per unit bought, a cost that depends on the state. Metric: money spent.
(define (domain delivery-fuel)
  (:requirements :typing :numeric-fluents)
  (:types van parcel place)
  (:predicates (at ?v - van ?p - place) (parcel-at ?x - parcel ?p - place) (carrying ?v - van ?x - parcel)
               (road ?a ?b - place) (station ?p - place))
  (:functions (fuel ?v - van) (tank ?v - van) (length ?a ?b - place) (price ?p - place)
              (space ?v - van) (load ?v - van) (money-spent))

  (:action drive
    :parameters (?v - van ?a ?b - place)
    :precondition (and (at ?v ?a) (road ?a ?b) (>= (fuel ?v) (length ?a ?b)))
    :effect (and (not (at ?v ?a)) (at ?v ?b) (decrease (fuel ?v) (length ?a ?b))))

  (:action pick-up
    :parameters (?v - van ?x - parcel ?p - place)
    :precondition (and (at ?v ?p) (parcel-at ?x ?p) (< (load ?v) (space ?v)))
    :effect (and (not (parcel-at ?x ?p)) (carrying ?v ?x) (increase (load ?v) 1)))

  (:action drop
    :parameters (?v - van ?x - parcel ?p - place)
    :precondition (and (at ?v ?p) (carrying ?v ?x))
    :effect (and (not (carrying ?v ?x)) (parcel-at ?x ?p) (decrease (load ?v) 1)))

  (:action refuel
    :parameters (?v - van ?p - place)
    :precondition (and (at ?v ?p) (station ?p) (< (fuel ?v) (tank ?v)))
    :effect (and (increase (money-spent) (* (price ?p) (- (tank ?v) (fuel ?v))))
                 (assign (fuel ?v) (tank ?v))))
)
