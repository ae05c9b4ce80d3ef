---------------------------- MODULE MCShepherdHandoverEarly ----------------------------
(* Negative control: the handover record is sent as soon as every Stop is answered, while offset writes of the Stop answers are still queued behind the multi in flight. Expected: HandoverLosesNoOffset violated (TLC exit 12). *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, p1, p2

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2}
MCPartitions == {p1, p2}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)
=============================================================================
