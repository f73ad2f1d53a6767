; Blocks world with derived predicates (IPC style): clear, handempty and the recursive above are
; axioms; stack tests a negated derived atom (never build a cycle), so the axioms have two strata.
(define (domain blocks-derived)
  (:requirements :strips :negative-preconditions :derived-predicates)
  (:predicates (on ?x ?y) (ontable ?x) (holding ?x) (clear ?x) (handempty) (above ?x ?y) (tower ?x))
  (:derived (clear ?x) (and (not (holding ?x)) (not (exists (?y) (on ?y ?x)))))
  (:derived (handempty) (not (exists (?x) (holding ?x))))
  (:derived (above ?x ?y) (on ?x ?y))
  (:derived (above ?x ?y) (exists (?z) (and (on ?x ?z) (above ?z ?y))))
  (:derived (tower ?x) (and (ontable ?x) (not (clear ?x)) (not (exists (?y) (and (above ?y ?x) (clear ?y) (ontable ?y))))))
  (:action pick-up
    :parameters (?ob)
    :precondition (and (clear ?ob) (ontable ?ob) (handempty))
    :effect (and (holding ?ob) (not (ontable ?ob))))
  (:action put-down
    :parameters (?ob)
    :precondition (holding ?ob)
    :effect (and (ontable ?ob) (not (holding ?ob))))
  (:action stack
    :parameters (?ob ?underob)
    :precondition (and (clear ?underob) (holding ?ob) (not (above ?underob ?ob)))
    :effect (and (on ?ob ?underob) (not (holding ?ob))))
  (:action unstack
    :parameters (?ob ?underob)
    :precondition (and (on ?ob ?underob) (clear ?ob) (handempty))
    :effect (and (holding ?ob) (not (on ?ob ?underob)))))
