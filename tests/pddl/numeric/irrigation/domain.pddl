;; Irrigation: numeric conditions inside quantifiers, conditional numeric effects and derived
;; predicates whose bodies compare numbers. A field is dry while its moisture is below its need
;; (derived); flooding a canal waters every connected field that is not yet saturated (forall/when);
;; pumping needs some connected field to be dry (exists). A heat wave dries every field that is not
;; shaded. Harvest needs the field moist; all-moist (derived, forall) unlocks the festival.
(define (domain irrigation)
  (:requirements :typing :numeric-fluents :negative-preconditions :conditional-effects
                 :universal-preconditions :existential-preconditions :derived-predicates)
  (:types field canal)
  (:predicates (connected ?c - canal ?f - field) (shaded ?f - field) (harvested ?f - field)
               (dry ?f - field) (all-moist) (festival))
  (:functions (moisture ?f - field) (need ?f - field) (saturation ?f - field)
              (water ?c - canal) (flow ?c - canal) (pumped))

  (:derived (dry ?f - field) (< (moisture ?f) (need ?f)))
  (:derived (all-moist) (forall (?f - field) (not (dry ?f))))

  (:action flood
    :parameters (?c - canal)
    :precondition (and (>= (water ?c) (flow ?c))
                       (exists (?f - field) (and (connected ?c ?f) (< (moisture ?f) (saturation ?f)))))
    :effect (and (decrease (water ?c) (flow ?c))
                 (forall (?f - field)
                   (when (and (connected ?c ?f) (< (+ (moisture ?f) (flow ?c)) (saturation ?f)))
                         (increase (moisture ?f) (flow ?c))))
                 (forall (?f - field)
                   (when (and (connected ?c ?f) (>= (+ (moisture ?f) (flow ?c)) (saturation ?f)))
                         (assign (moisture ?f) (saturation ?f))))))

  (:action pump
    :parameters (?c - canal)
    :precondition (and (exists (?f - field) (and (connected ?c ?f) (dry ?f)))
                       (< (pumped) 3))
    :effect (and (increase (water ?c) 2) (increase (pumped) 1)))

  (:action heat-wave
    :parameters ()
    :precondition (forall (?f - field) (or (shaded ?f) (> (moisture ?f) 0)))
    :effect (forall (?f - field) (when (not (shaded ?f)) (decrease (moisture ?f) 1))))

  (:action harvest
    :parameters (?f - field)
    :precondition (and (not (dry ?f)) (not (harvested ?f)))
    :effect (harvested ?f))

  (:action hold-festival
    :parameters ()
    :precondition (all-moist)
    :effect (festival))
)
