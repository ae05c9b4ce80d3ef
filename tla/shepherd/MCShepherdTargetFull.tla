------------------------ MODULE MCShepherdTargetFull ------------------------
(* MCShepherdTarget without PromptRegistration (opt-in, -Ptlc-full: 27   *)
(* minutes on 2 idle cores, docs/verification.md §6).                      *)
(* Safety at issue 7's size: 2 brokers, 3 consumers, 2 partitions,       *)
(* 2 session expiries; each expiry needs a broker that cannot reach        *)
(* ZooKeeper, so 2 pauses, the second after the first expiry.  Every       *)
(* safeguard on; no offsets, no handover, no Leave.  One coverage choice   *)
(* (docs/verification.md §6): ModelConstraint.                             *)
(* Expected: no error (exit 0), exhaustive, symmetry on brokers and        *)
(* consumers.                                                              *)
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

\* Coverage choice: a consumer that can register (its coordinator can take it)
\* does so before the next tick -- Consult and Register take less than a ping
\* interval, as D = 0 says of the coordinator's messages.  The two-consumer
\* models (MCShepherdSafety, MCShepherdPartitions) let it wait any number of
\* ticks (docs/verification.md §6).
PromptRegistration == (\E c \in Consumers : CanRegister(c)) => ~Tick

View == <<zkAlive, coordNode, zkEpoch, zkGen, staleWrite, offVars, zkTopic, envVars, coordVars, consumerVars, netVars,
          leaves>>
=============================================================================
