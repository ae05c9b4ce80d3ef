------------------------------ MODULE Trigger ------------------------------
(***************************************************************************)
(* The per-group rebalance trigger (DESIGN §6) against the seed's          *)
(* groupsBeingRebalanced(group).compareAndSet(false, true) bit (defect D1, *)
(* DESIGN §10).                                                             *)
(*                                                                          *)
(* The world (ZooKeeper: a group's members, subscriptions, topics and      *)
(* partition counts) changes a bounded number of times; every change bumps *)
(* the group's worldVersion and runs the trigger.  One rebalance handler   *)
(* thread takes groups off rebalanceRequestQ one at a time, reads the world *)
(* (seed rebalance steps 1-2), then acts on what it read and finishes      *)
(* (steps 3-5).  A change that lands after step 1 of a run is not in that  *)
(* run's result, so it must cause another run:                              *)
(*                                                                          *)
(*   Mode = "dirty"  DESIGN §6: IDLE -> QUEUED on a trigger (enqueue);      *)
(*                   RUNNING -> RUNNING_DIRTY on a trigger; when the run    *)
(*                   ends, RUNNING_DIRTY -> QUEUED (enqueue again) and      *)
(*                   RUNNING -> IDLE.                                       *)
(*   Mode = "cas"    the seed: a trigger enqueues only if it flips the bit  *)
(*                   from false to true; the handler clears the bit when    *)
(*                   the run ends (the seed never says when; this is the    *)
(*                   only reading under which a group is ever rebalanced    *)
(*                   twice).  A trigger during a run is dropped: D1.        *)
(*                                                                          *)
(* In "cas" mode the seed's bit is trigger[g] # "IDLE"; RUNNING_DIRTY is    *)
(* never reached.  The state names are those of the Java enum.             *)
(*                                                                          *)
(* Not modelled yet (the full spec adds them): failed runs and their retry *)
(* with backoff (D8), coordinator failover, one-shot watches (D7).          *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Groups,      \* the consumer groups (model values)
    NoGroup,     \* a model value: "the handler is not running any group"
    MaxChanges,  \* how many times each group's world may change
    Mode         \* "dirty" (DESIGN §6) or "cas" (the seed's bit, D1)

ASSUME /\ Mode \in {"dirty", "cas"}
       /\ MaxChanges \in Nat
       /\ NoGroup \notin Groups

TriggerStates == {"IDLE", "QUEUED", "RUNNING", "RUNNING_DIRTY"}

VARIABLES
    \* -- the world the coordinator watches (ZooKeeper) --
    worldVersion,  \* [Groups -> Nat]: changes so far to the group's members, subscriptions, topics
    \* -- the coordinator's trigger bookkeeping --
    trigger,       \* [Groups -> TriggerStates]: DESIGN §6 state; in "cas" mode the seed's bit is trigger[g] # "IDLE"
    queue,         \* Seq(Groups): the seed's rebalanceRequestQ
    \* -- the rebalance handler thread (the seed's requestHandler) --
    running,       \* the group being rebalanced, or NoGroup
    phase,         \* "idle" | "dequeued" (run started, world not read yet) | "read" (steps 1-2 done)
    readVersion,   \* worldVersion[running] as this run read it at step 1
    seenVersion    \* [Groups -> Nat]: the worldVersion the group's last finished run read

worldVars   == <<worldVersion>>
triggerVars == <<trigger, queue>>
handlerVars == <<running, phase, readVersion, seenVersion>>
vars        == <<worldVars, triggerVars, handlerVars>>

InQueue(g) == \E i \in 1..Len(queue) : queue[i] = g

-----------------------------------------------------------------------------
(* Actions *)

Init ==
    /\ worldVersion = [g \in Groups |-> 0]
    /\ trigger      = [g \in Groups |-> "IDLE"]
    /\ queue        = <<>>
    /\ running      = NoGroup
    /\ phase        = "idle"
    /\ readVersion  = 0
    /\ seenVersion  = [g \in Groups |-> 0]

\* The trigger part of every listener: seed GroupMemberChangeListener step 2,
\* TopicChangeListener step 2.2, TopicPartitionChangeListener; DESIGN §6 "Trigger".
\* Java: the trigger method of the coordinator's per-group state.
RequestRebalance(g) ==
    IF Mode = "dirty"
    THEN CASE trigger[g] = "IDLE"    -> /\ trigger' = [trigger EXCEPT ![g] = "QUEUED"]
                                        /\ queue'   = Append(queue, g)
           [] trigger[g] = "RUNNING" -> /\ trigger' = [trigger EXCEPT ![g] = "RUNNING_DIRTY"]
                                        /\ queue'   = queue
              \* QUEUED: the queued run has not read the world yet, it will see this change.
              \* RUNNING_DIRTY: another run is already owed.
           [] OTHER                  -> UNCHANGED triggerVars
    ELSE \* if (groupsBeingRebalanced(group).compareAndSet(false, true)) rebalanceRequestQ.put(group)
         IF trigger[g] = "IDLE"
         THEN /\ trigger' = [trigger EXCEPT ![g] = "QUEUED"]
              /\ queue'   = Append(queue, g)
         ELSE UNCHANGED triggerVars   \* the CAS fails: the trigger is dropped (D1 when the run has read)

\* A membership, subscription, topic or partition change of group g, and the
\* watch that reports it.  Change and notification are one step here: a late
\* notification only makes an extra run, never a missing one.
Change(g) ==
    /\ worldVersion[g] < MaxChanges
    /\ worldVersion' = [worldVersion EXCEPT ![g] = @ + 1]
    /\ RequestRebalance(g)
    /\ UNCHANGED handlerVars

\* The handler takes the next group off rebalanceRequestQ; QUEUED -> RUNNING
\* (in "cas" mode the bit stays set).
Dequeue ==
    /\ phase = "idle"
    /\ queue # <<>>
    /\ LET g == Head(queue) IN
         /\ running' = g
         /\ trigger' = [trigger EXCEPT ![g] = "RUNNING"]
    /\ queue' = Tail(queue)
    /\ phase' = "dequeued"
    /\ UNCHANGED <<worldVars, readVersion, seenVersion>>

\* Seed rebalance(group) steps 1-2 (DESIGN §6): read the group's topics,
\* members and partition counts.  Everything the run does later is computed
\* from this snapshot.
ReadWorld ==
    /\ phase = "dequeued"
    /\ readVersion' = worldVersion[running]
    /\ phase' = "read"
    /\ UNCHANGED <<worldVars, triggerVars, running, seenVersion>>

\* Seed rebalance(group) steps 3-5: necessity check, Stop, owners, Start, wait;
\* then the run ends.  "dirty": RUNNING_DIRTY -> QUEUED (enqueue), RUNNING -> IDLE.
\* "cas": the handler clears the bit.
Finish ==
    /\ phase = "read"
    /\ seenVersion' = [seenVersion EXCEPT ![running] = readVersion]
    /\ IF Mode = "dirty" /\ trigger[running] = "RUNNING_DIRTY"
       THEN /\ trigger' = [trigger EXCEPT ![running] = "QUEUED"]
            /\ queue'   = Append(queue, running)
       ELSE /\ trigger' = [trigger EXCEPT ![running] = "IDLE"]
            /\ queue'   = queue
    /\ running' = NoGroup
    /\ phase'   = "idle"
    /\ UNCHANGED <<worldVars, readVersion>>

\* Every change has happened and the handler has nothing left to do: the
\* system stays put.  Only here, so that TLC still reports any other deadlock.
Done ==
    /\ \A g \in Groups : worldVersion[g] = MaxChanges
    /\ phase = "idle"
    /\ queue = <<>>
    /\ UNCHANGED vars

Next ==
    \/ \E g \in Groups : Change(g)
    \/ Dequeue
    \/ ReadWorld
    \/ Finish
    \/ Done

\* The handler thread keeps working; the world may stop changing at any time.
Fairness == WF_vars(Dequeue) /\ WF_vars(ReadWorld) /\ WF_vars(Finish)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Properties (names as in DESIGN §7 where they are there) *)

TypeOK ==
    /\ worldVersion \in [Groups -> 0..MaxChanges]
    /\ trigger      \in [Groups -> TriggerStates]
    /\ queue        \in Seq(Groups)
    /\ running      \in Groups \cup {NoGroup}
    /\ phase        \in {"idle", "dequeued", "read"}
    /\ readVersion  \in 0..MaxChanges
    /\ seenVersion  \in [Groups -> 0..MaxChanges]

\* A group is in rebalanceRequestQ exactly when it is QUEUED, and at most once.
QueueMatchesTrigger ==
    /\ \A g \in Groups : InQueue(g) <=> trigger[g] = "QUEUED"
    /\ Len(queue) = Cardinality({queue[i] : i \in 1..Len(queue)})

\* Only the group the handler runs is RUNNING or RUNNING_DIRTY.
RunningMatchesTrigger ==
    /\ (running = NoGroup) <=> (phase = "idle")
    /\ \A g \in Groups : trigger[g] \in {"RUNNING", "RUNNING_DIRTY"} <=> running = g

\* Safety form of NoLostTrigger: a group at rest (IDLE: nothing queued, nothing
\* running) was last rebalanced from the latest world.
NoLostTriggerAtRest ==
    \A g \in Groups : trigger[g] = "IDLE" => seenVersion[g] = worldVersion[g]

\* DESIGN §7 NoLostTrigger: every change is seen by a later rebalance.
NoLostTrigger ==
    \A g \in Groups, v \in 1..MaxChanges :
        (worldVersion[g] = v) ~> (seenVersion[g] >= v)
=============================================================================
