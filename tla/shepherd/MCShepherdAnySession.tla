---------------------------- MODULE MCShepherdAnySession ----------------------------
(* Negative control (found by TLC): DESIGN §5's guard read literally, lastZkAck counting answers to a NEW session's requests. Expected: ExclusiveOwnership violated (TLC exit 12). *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, p1

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2}
MCPartitions == {p1}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)
=============================================================================
