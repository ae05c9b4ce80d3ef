---------------------------- MODULE MCShepherdNoFencing ----------------------------
(* Negative control (D2): coordinator multis without check(/consumers/epoch, epoch). Expected: FencedWrites violated (TLC exit 12); the build fails if TLC finds no violation. *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, p1

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2}
MCPartitions == {p1}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)
=============================================================================
