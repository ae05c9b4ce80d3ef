-------------------------- MODULE MCShepherdTarget --------------------------
(* Safety with three consumers: 2 brokers, 3 consumers, 2 partitions,      *)
(* 1 session expiry, 1 pause, every safeguard on (the task's target size  *)
(* but for the second expiry, which needs a second pause or a cut).         *)
(* Expected: no error (exit 0), exhaustive, symmetry on brokers and         *)
(* consumers.  8.70 million distinct states, depth 72, 13 min 12 s with 2  *)
(* workers on a busy 2-core machine: opt-in, -Ptlc-target                   *)
(* (docs/verification.md §6).                                               *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, c3, p1, p2

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2, c3}
MCPartitions == {p1, p2}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)
=============================================================================
