-------------------------- MODULE MCTriggerSeedCas --------------------------
(* Negative control: the seed's compareAndSet(false, true) bit (defect D1).   *)
(* Expected: NoLostTriggerAtRest is violated (TLC exit 12); the build fails   *)
(* if TLC finds no violation.  Same constants as MCTriggerDirty but the mode. *)
EXTENDS Trigger

CONSTANTS g1, g2

MCGroups     == {g1, g2}
MCMaxChanges == 3
MCMode       == "cas"
=============================================================================
