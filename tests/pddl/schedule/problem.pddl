; One part of IPC-2000 schedule-3-1 (benchmarks/suite/schedule/small.pddl) with fewer bits and colours,
; so that the oracle enumerates its state space. The part has a hole and is cold: a hole is lost only
; by rolling, which makes the part hot for good, so punching or drilling that hole again never applies.
(define (problem schedule-1-part)
(:domain schedule)
(:objects
    a0 - part
    circular oblong - ashape
    yellow black - colour
    three one - width
    front - anorient
)
(:init
    (shape a0 circular)
    (surface-condition a0 polished)
    (painted a0 black)
    (has-hole a0 three front)
    (temperature a0 cold)
    (can-orient drill-press front)
    (can-orient punch front)
    (has-paint immersion-painter yellow)
    (has-paint spray-painter yellow)
    (has-paint immersion-painter black)
    (has-bit drill-press three)
    (has-bit punch three)
    (has-bit drill-press one)
    (has-bit punch one)
)
(:goal (and
    (shape a0 cylindrical)
    (painted a0 yellow)
)))
