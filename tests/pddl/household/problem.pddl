; An alfred-size household task: 24 locations, 22 receptacles, 43 objects.
(define (problem household-1)
  (:domain household)
  (:objects
    robot - agent
    loc-0 loc-1 loc-2 loc-3 loc-4 loc-5 loc-6 loc-7 loc-8
    loc-9 loc-10 loc-11 loc-12 loc-13 loc-14 loc-15 loc-16 loc-17
    loc-18 loc-19 loc-20 loc-21 loc-22 loc-23 - location
    cabinet-1 cabinet-2 cabinet-3 cabinet-4 cabinet-5 cabinet-6 drawer-1 drawer-2
    drawer-3 drawer-4 countertop-1 countertop-2 countertop-3 shelf-1 shelf-2 diningtable-1
    sidetable-1 fridge-1 microwave-1 sinkbasin-1 garbagecan-1 stoveburner-1 - receptacle
    apple-1 apple-2 tomato-1 potato-1 potato-2 bread-1 lettuce-1 egg-1
    mug-1 mug-2 cup-1 plate-1 plate-2 bowl-1 pan-1 pot-1
    kettle-1 knife-1 butterknife-1 fork-1 spoon-1 spatula-1 ladle-1 dishsponge-1
    soapbottle-1 saltshaker-1 peppershaker-1 winebottle-1 book-1 book-2 cellphone-1 keychain-1
    creditcard-1 pen-1 pencil-1 vase-1 statue-1 candle-1 remotecontrol-1 newspaper-1
    watch-1 desklamp-1 floorlamp-1 - item)
  (:init
    (at robot loc-0) (hand-empty robot) (receptacle-at cabinet-1 loc-2) (receptacle-at cabinet-2 loc-3)
    (receptacle-at cabinet-3 loc-4) (receptacle-at cabinet-4 loc-5) (receptacle-at cabinet-5 loc-6) (receptacle-at cabinet-6 loc-7)
    (receptacle-at drawer-1 loc-8) (receptacle-at drawer-2 loc-9) (receptacle-at drawer-3 loc-10) (receptacle-at drawer-4 loc-11)
    (receptacle-at countertop-1 loc-12) (receptacle-at countertop-2 loc-13) (receptacle-at countertop-3 loc-14) (receptacle-at shelf-1 loc-15)
    (receptacle-at shelf-2 loc-16) (receptacle-at diningtable-1 loc-17) (receptacle-at sidetable-1 loc-18) (receptacle-at fridge-1 loc-19)
    (receptacle-at microwave-1 loc-20) (receptacle-at sinkbasin-1 loc-21) (receptacle-at garbagecan-1 loc-22) (receptacle-at stoveburner-1 loc-23)
    (openable cabinet-1) (openable cabinet-2) (openable cabinet-3) (openable cabinet-4)
    (openable cabinet-5) (openable cabinet-6) (openable drawer-1) (openable drawer-2)
    (openable drawer-3) (openable drawer-4) (openable fridge-1) (openable microwave-1)
    (reachable-inside countertop-1) (reachable-inside countertop-2) (reachable-inside countertop-3) (reachable-inside shelf-1)
    (reachable-inside shelf-2) (reachable-inside diningtable-1) (reachable-inside sidetable-1) (reachable-inside sinkbasin-1)
    (reachable-inside garbagecan-1) (reachable-inside stoveburner-1) (sink sinkbasin-1) (microwave microwave-1)
    (fridge fridge-1) (in apple-1 countertop-3) (object-at apple-1 loc-14) (portable apple-1)
    (in apple-2 cabinet-1) (object-at apple-2 loc-2) (portable apple-2) (in tomato-1 drawer-1)
    (object-at tomato-1 loc-8) (portable tomato-1) (in potato-1 drawer-4) (object-at potato-1 loc-11)
    (portable potato-1) (in potato-2 stoveburner-1) (object-at potato-2 loc-23) (portable potato-2)
    (in bread-1 diningtable-1) (object-at bread-1 loc-17) (portable bread-1) (in lettuce-1 cabinet-2)
    (object-at lettuce-1 loc-3) (portable lettuce-1) (in egg-1 drawer-3) (object-at egg-1 loc-10)
    (portable egg-1) (in mug-1 cabinet-2) (object-at mug-1 loc-3) (portable mug-1)
    (in mug-2 drawer-4) (object-at mug-2 loc-11) (portable mug-2) (in cup-1 sinkbasin-1)
    (object-at cup-1 loc-21) (portable cup-1) (in plate-1 shelf-1) (object-at plate-1 loc-15)
    (portable plate-1) (in plate-2 cabinet-4) (object-at plate-2 loc-5) (portable plate-2)
    (in bowl-1 sinkbasin-1) (object-at bowl-1 loc-21) (portable bowl-1) (in pan-1 cabinet-4)
    (object-at pan-1 loc-5) (portable pan-1) (in pot-1 sinkbasin-1) (object-at pot-1 loc-21)
    (portable pot-1) (in kettle-1 drawer-1) (object-at kettle-1 loc-8) (portable kettle-1)
    (in knife-1 sidetable-1) (object-at knife-1 loc-18) (portable knife-1) (in butterknife-1 garbagecan-1)
    (object-at butterknife-1 loc-22) (portable butterknife-1) (in fork-1 countertop-1) (object-at fork-1 loc-12)
    (portable fork-1) (in spoon-1 cabinet-6) (object-at spoon-1 loc-7) (portable spoon-1)
    (in spatula-1 fridge-1) (object-at spatula-1 loc-19) (portable spatula-1) (in ladle-1 countertop-2)
    (object-at ladle-1 loc-13) (portable ladle-1) (in dishsponge-1 sidetable-1) (object-at dishsponge-1 loc-18)
    (portable dishsponge-1) (in soapbottle-1 diningtable-1) (object-at soapbottle-1 loc-17) (portable soapbottle-1)
    (in saltshaker-1 sidetable-1) (object-at saltshaker-1 loc-18) (portable saltshaker-1) (in peppershaker-1 cabinet-4)
    (object-at peppershaker-1 loc-5) (portable peppershaker-1) (in winebottle-1 stoveburner-1) (object-at winebottle-1 loc-23)
    (portable winebottle-1) (in book-1 cabinet-4) (object-at book-1 loc-5) (portable book-1)
    (in book-2 garbagecan-1) (object-at book-2 loc-22) (portable book-2) (in cellphone-1 sinkbasin-1)
    (object-at cellphone-1 loc-21) (portable cellphone-1) (in keychain-1 countertop-2) (object-at keychain-1 loc-13)
    (portable keychain-1) (in creditcard-1 shelf-1) (object-at creditcard-1 loc-15) (portable creditcard-1)
    (in pen-1 countertop-2) (object-at pen-1 loc-13) (portable pen-1) (in pencil-1 drawer-1)
    (object-at pencil-1 loc-8) (portable pencil-1) (in vase-1 cabinet-6) (object-at vase-1 loc-7)
    (portable vase-1) (in statue-1 garbagecan-1) (object-at statue-1 loc-22) (portable statue-1)
    (in candle-1 shelf-2) (object-at candle-1 loc-16) (portable candle-1) (in remotecontrol-1 cabinet-3)
    (object-at remotecontrol-1 loc-4) (portable remotecontrol-1) (in newspaper-1 cabinet-3) (object-at newspaper-1 loc-4)
    (portable newspaper-1) (in watch-1 countertop-3) (object-at watch-1 loc-14) (portable watch-1)
    (object-at desklamp-1 loc-18) (object-at floorlamp-1 loc-1) (switchable desklamp-1) (switchable floorlamp-1)
    (washable apple-1) (washable apple-2) (washable tomato-1) (washable potato-1)
    (washable potato-2) (washable bread-1) (washable lettuce-1) (washable egg-1)
    (washable mug-1) (washable mug-2) (washable cup-1) (washable plate-1)
    (washable plate-2) (washable bowl-1) (washable pan-1) (washable pot-1)
    (washable kettle-1) (washable knife-1) (washable butterknife-1) (washable fork-1)
    (washable spoon-1) (washable spatula-1) (washable ladle-1) (heatable apple-1)
    (heatable apple-2) (heatable tomato-1) (heatable potato-1) (heatable potato-2)
    (heatable bread-1) (heatable lettuce-1) (heatable egg-1) (heatable mug-1)
    (heatable mug-2) (heatable cup-1) (heatable plate-1) (heatable bowl-1)
    (coolable apple-1) (coolable apple-2) (coolable tomato-1) (coolable potato-1)
    (coolable potato-2) (coolable bread-1) (coolable lettuce-1) (coolable egg-1)
    (coolable mug-1) (coolable mug-2) (coolable cup-1) (coolable bowl-1)
    (coolable winebottle-1) (sliceable apple-1) (sliceable apple-2) (sliceable tomato-1)
    (sliceable potato-1) (sliceable bread-1) (sliceable lettuce-1) (knife knife-1)
    (knife butterknife-1))
  (:goal (and (clean mug-1) (hot mug-1) (in mug-1 shelf-1) (switched-on desklamp-1))))
