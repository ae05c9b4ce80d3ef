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

\* Without offsets (MaxPos = 0) no consumer ever reports one (taken stays 0,
\* never beyond the floor), so every offset write is empty and zkOwners, the
\* owners in ZooKeeper, is read by no action and no invariant: a history
\* variable.  The view leaves it out, so states that differ only in it are one.
ASSUME MaxPos = 0
\* The second pause comes after the first expiry (coverage, not a reduction:
\* two pauses of the first coordinator before anything expired add little
\* to one; docs/verification.md §6).
ModelConstraint == pauses <= expiries + 1

View == <<zkAlive, coordNode, zkEpoch, zkGen, staleWrite, offVars, zkTopic, envVars, coordVars, consumerVars, netVars,
          leaves>>
=============================================================================
