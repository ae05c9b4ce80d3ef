------------------------- MODULE MCShepherdLiveness -------------------------
(* Liveness of DESIGN §5/§6 (DESIGN §7 properties) under Fairness, faults     *)
(* bounded.  No symmetry (TLC's symmetry reduction is unsound for liveness).  *)
(* One consumer: TLC's liveness checking of two took over 4 minutes.         *)
(* Expected: no error (TLC exit 0).                                           *)
EXTENDS ShepherdProperties

CONSTANTS b1, b2, c1, p1

MCBrokers    == {b1, b2}
MCConsumers  == {c1}
MCPartitions == {p1}
=============================================================================
