--------------------------- MODULE MCTriggerDirty ---------------------------
(* The DESIGN §6 trigger (dirty flag).  Expected: no error (TLC exit 0).      *)
(* Two groups share the one handler; three changes each.                       *)
EXTENDS Trigger

CONSTANTS g1, g2

MCGroups     == {g1, g2}
MCMaxChanges == 3
MCMode       == "dirty"
=============================================================================
