---------------------------- MODULE MCShepherdPingWhileDisconnected ----------------------------
(* Negative control (D5): the coordinator keeps commanding while Disconnected, until it is told Expired. Expected: ExclusiveOwnership violated (TLC exit 12). *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, p1

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2}
MCPartitions == {p1}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)
=============================================================================
