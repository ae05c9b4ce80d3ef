-------------------------- MODULE MCShepherdSafety --------------------------
(* Safety of the DESIGN §5/§6 protocol with every safeguard on: epoch fencing, *)
(* the post-election lease wait, the live-session guard (elected session).   *)
(* Expected: no error (TLC exit 0), exhaustive, symmetry on brokers and on   *)
(* consumers.  2 brokers, 2 consumers, 2 partitions, 1 expiry, 1 pause, 1  *)
(* Leave (membership change during a run), committed offsets (positions     *)
(* 0..1), 1 graceful handover whose record waits for the offset writes      *)
(* (HandoverWaitsForWrites), cut by ModelConstraint below.  Partition     *)
(* additions: MCShepherdPartitions; issue 7's 3 consumers and 2 expiries:  *)
(* MCShepherdTarget.                                                        *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, c2, p1, p2

MCBrokers    == {b1, b2}
MCConsumers  == {c1, c2}
MCPartitions == {p1, p2}
Symmetry     == Permutations(MCConsumers) \cup Permutations(MCBrokers)

\* Offsets and the graceful handover multiply the state space (every state of
\* a coordinator can begin a handover, and the next coordinator runs the whole
\* protocol again), so the model is cut into three kinds of history
\* (docs/verification.md §6): with a Leave, no record is taken and no
\* handover begins (the membership checks of before); without a Leave,
\* offsets with every fault; a handover only without a pause (so without an
\* expiry either).
ModelConstraint ==
    /\ leaves = 0 \/ (handovers = 0 /\ zkOffset = NoTaken /\ \A c \in Consumers : taken[c] = NoTaken)
    /\ handovers = 0 \/ pauses = 0
=============================================================================
