; Light that needs several rounds of the lower stratum: from the switched-on room a3 it spreads
; through windows both ways, a3 -> a2 -> a1 and a3 -> a4 -> a5, so whatever order the ground axioms
; come in, one of the chains is derived over more than one pass. (dark ?r), the stratum above, may
; only read lit once lit is final: a state never holds both (lit a1) and (dark a1).
(define (problem rooms-chain)
  (:domain rooms-derived)
  (:objects a1 a2 a3 a4 a5 - room s1 s2 - switch)
  (:init (at a3) (door a1 a2) (door a2 a1) (door a2 a3) (door a3 a2) (door a3 a4) (door a4 a3)
         (door a4 a5) (door a5 a4)
         (window a3 a2) (window a2 a1) (window a3 a4) (window a4 a5)
         (in s1 a3) (wired s1 a3) (in s2 a1) (wired s2 a5))
  (:goal (and (all-lit) (at a1))))
