---------------------------- MODULE MCShepherdNoLeaseWait ----------------------------
(* Negative control (D4): a new coordinator sends Start at once after winning. Expected: ExclusiveOwnership violated (TLC exit 12). *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, p1

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2}
MCPartitions == {p1}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)
=============================================================================
