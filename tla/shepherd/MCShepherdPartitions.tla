----------------------------- MODULE MCShepherdPartitions -----------------------------
(* Partition additions during a run (issue 7) with faults: the topic starts  *)
(* with p1 and may gain p2 at any time; 2 brokers, 2 consumers, 1 expiry,    *)
(* 1 pause, every safeguard on, no offsets, no handover.  Expected: no error *)
(* (TLC exit 0), exhaustive, symmetry on brokers and consumers.              *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, p1, p2

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2}
MCPartitions == {p1, p2}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)
=============================================================================
