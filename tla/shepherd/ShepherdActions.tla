--------------------------- MODULE ShepherdActions ---------------------------
(***************************************************************************)
(* Shepherd: the actions.  Each names the DESIGN section and the Java      *)
(* handler it models (the Java does not exist yet: these are the intended  *)
(* names; docs/verification.md has the table).  A broker action requires  *)
(* ~paused[b]: a paused process takes no step, while ZooKeeper, the clock, *)
(* the network and the consumers go on.                                     *)
(***************************************************************************)
EXTENDS ShepherdState

-----------------------------------------------------------------------------
(* Helpers *)

\* DESIGN §5 "Commanding needs a live session": Ping and Start (and the
\* RegisterResponse, which also grants a lease) only while
\* now < lastZkAck + S x (1 - rho) - margin.  CommandGuard = "UNTIL_EXPIRED" is
\* the rejected design (D5): command until the core is told Expired.
\* The guard, with lastZkAck given as ticks since it (ack).
\*   "ELECTED_SESSION": ack < S, counting only answers to requests of the
\*       session the coordinator was elected in: once the adapter has opened a
\*       new session (expiredPending) nothing is commanded.  The model checker
\*       found that DESIGN §5 as written needs this (docs/verification.md).
\*   "ANY_SESSION": DESIGN §5 literally: lastZkAck is the newest answered
\*       request, of whatever session (negative control).
\*   "UNTIL_EXPIRED": no time guard; command until the core handles Expired,
\*       also while Disconnected (negative control, D5).
CanCommandAt(b, ack) ==
    /\ ~paused[b]
    /\ role[b] \in {"WAITING", "LEADING"}
    /\ CASE CommandGuard = "ELECTED_SESSION" -> ack < SessionTimeout /\ ~expiredPending[b]
         [] CommandGuard = "ANY_SESSION"     -> ack < SessionTimeout
         [] CommandGuard = "UNTIL_EXPIRED"   -> ~expiredPending[b]

CanCommand(b) == CanCommandAt(b, sinceAck[b])

\* b knows c's current connection: it is open to b and its Register has been
\* handled.  A coordinator sends on the connection object it holds for the
\* member; a connection the consumer has just opened is unknown to it until
\* the Register is read, so a send then goes to the old, closed one: lost.
Known(b, c) == chan[c] = b /\ ~(toB[c] # <<>> /\ Head(toB[c]).type = "Register")

\* The broker can reach ZooKeeper with a live session (a request is answered).
ZkReachable(b) == link[b] = "UP" /\ zkAlive[b]

\* DESIGN §6 trigger: IDLE -> QUEUED, RUNNING -> RUNNING_DIRTY.
RequestRebalance(b) ==
    trig' = [trig EXCEPT ![b] = CASE @ = "IDLE"    -> "QUEUED"
                                  [] @ = "RUNNING" -> "RUNNING_DIRTY"
                                  [] OTHER         -> @]

\* handleNewSession-style reset of every in-memory coordinator state of b.
ResetCoord(b) ==
    /\ role'      = [role EXCEPT ![b] = "FOLLOWER"]
    /\ epoch'     = [epoch EXCEPT ![b] = 0]
    /\ sinceWon'  = [sinceWon EXCEPT ![b] = 0]
    /\ members'   = [members EXCEPT ![b] = {}]
    /\ failed'    = [failed EXCEPT ![b] = {}]
    /\ sinceSent' = [sinceSent EXCEPT ![b] = [c \in Consumers |-> Cap]]
    /\ trig'      = [trig EXCEPT ![b] = "IDLE"]
    /\ phase'     = [phase EXCEPT ![b] = "IDLE"]
    /\ runGen'    = [runGen EXCEPT ![b] = 0]
    /\ stopSet'   = [stopSet EXCEPT ![b] = {}]
    /\ acked'     = [acked EXCEPT ![b] = {}]
    /\ asg'       = [asg EXCEPT ![b] = NoOwners]

\* b closes every connection it holds: their in-flight messages are lost.
CloseChannelsOf(b) ==
    /\ chan' = [c \in Consumers |-> IF chan[c] = b THEN None ELSE chan[c]]
    /\ toC'  = [c \in Consumers |-> IF chan[c] = b THEN <<>> ELSE toC[c]]
    /\ toB'  = [c \in Consumers |-> IF chan[c] = b THEN <<>> ELSE toB[c]]

-----------------------------------------------------------------------------
(* Init *)

Init ==
    /\ zkAlive        = [b \in Brokers |-> TRUE]
    /\ coordNode      = None
    /\ zkEpoch        = 0
    /\ zkGen          = 0
    /\ zkOwners       = NoOwners
    /\ staleWrite     = FALSE
    /\ link           = [b \in Brokers |-> "UP"]
    /\ paused         = [b \in Brokers |-> FALSE]
    /\ sinceAck       = [b \in Brokers |-> 0]
    /\ expiredPending = [b \in Brokers |-> FALSE]
    /\ expiries       = 0
    /\ pauses         = 0
    /\ cuts           = 0
    /\ role           = [b \in Brokers |-> "FOLLOWER"]
    /\ epoch          = [b \in Brokers |-> 0]
    /\ sinceWon       = [b \in Brokers |-> 0]
    /\ members        = [b \in Brokers |-> {}]
    /\ failed         = [b \in Brokers |-> {}]
    /\ sinceSent      = [b \in Brokers |-> [c \in Consumers |-> Cap]]
    /\ trig           = [b \in Brokers |-> "IDLE"]
    /\ phase          = [b \in Brokers |-> "IDLE"]
    /\ runGen         = [b \in Brokers |-> 0]
    /\ stopSet        = [b \in Brokers |-> {}]
    /\ acked          = [b \in Brokers |-> {}]
    /\ asg            = [b \in Brokers |-> NoOwners]
    /\ cst            = [c \in Consumers |-> "DISCOVERING"]
    /\ cgen           = [c \in Consumers |-> 0]
    /\ cepoch         = [c \in Consumers |-> 0]
    /\ fetchEpoch     = [c \in Consumers |-> 0]
    /\ lease          = [c \in Consumers |-> 0]
    /\ fetching       = [c \in Consumers |-> {}]
    /\ chan           = [c \in Consumers |-> None]
    /\ toC            = [c \in Consumers |-> <<>>]
    /\ toB            = [c \in Consumers |-> <<>>]
    /\ leaves         = 0

-----------------------------------------------------------------------------
(* Time *)

\* One time unit passes (Java: the runtime's clock; testkit ManualClock.advance).
\* Blocked while a coordinator->consumer message has been in flight for D ticks
\* (delivered messages arrive within D).  At each tick:
\*  - an unpaused broker that reaches ZooKeeper has a request answered (the
\*    client heartbeat and the cheap read every S/3: ZooKeeperAdapter.onLivenessReadAck
\*    -> Coordinator.onZkAck), so lastZkAck is fresh; otherwise sinceAck grows;
\*  - a consumer whose lease runs out stops every fetcher, drops its
\*    assignment, closes its connection and rediscovers (DESIGN §5 "Consumer
\*    lease"; ConsumerSession.onLeaseTimer);
\*  - the ping timer fires: a coordinator that may command (CanCommand, with
\*    the new sinceAck) pings every live member on its connection
\*    (Coordinator.onPingTimer).  The ping interval is one tick.
TickAck(b) == IF ~paused[b] /\ ZkReachable(b) THEN 0 ELSE Min(SessionTimeout, sinceAck[b] + 1)

Tick ==
    /\ \A c \in Consumers : \A i \in 1..Len(toC[c]) : toC[c][i].age < MaxDelay
    /\ LET expiring == {c \in Consumers : cst[c] \in Leased /\ lease[c] = 1}
           pinger(b) == CanCommandAt(b, TickAck(b))
           pinged    == {c \in Consumers \ expiring :
                           chan[c] # None /\ Known(chan[c], c) /\ pinger(chan[c])
                           /\ c \in members[chan[c]] \ failed[chan[c]]}
       IN
       /\ sinceAck'   = [b \in Brokers |-> TickAck(b)]
       /\ sinceWon'   = [b \in Brokers |-> IF role[b] = "WAITING" THEN Min(Cap, sinceWon[b] + 1)
                                                                  ELSE sinceWon[b]]
       /\ sinceSent'  = [b \in Brokers |-> [c \in Consumers |->
                           IF c \in pinged /\ chan[c] = b THEN 0 ELSE Min(Cap, sinceSent[b][c] + 1)]]
       /\ lease'      = [c \in Consumers |-> IF cst[c] \in Leased THEN lease[c] - 1 ELSE 0]
       /\ cst'        = [c \in Consumers |-> IF c \in expiring THEN "DISCOVERING" ELSE cst[c]]
       /\ cgen'       = [c \in Consumers |-> IF c \in expiring THEN 0 ELSE cgen[c]]
       /\ fetching'   = [c \in Consumers |-> IF c \in expiring THEN {} ELSE fetching[c]]
       /\ fetchEpoch' = [c \in Consumers |-> IF c \in expiring THEN 0 ELSE fetchEpoch[c]]
       /\ chan'       = [c \in Consumers |-> IF c \in expiring THEN None ELSE chan[c]]
       /\ toC'        = [c \in Consumers |->
                           IF c \in expiring THEN <<>>
                           ELSE LET aged == [i \in 1..Len(toC[c]) |-> [toC[c][i] EXCEPT !.age = @ + 1]] IN
                                IF c \in pinged THEN Append(aged, Msg("Ping", epoch[chan[c]], 0, {}))
                                ELSE aged]
       /\ toB'        = [c \in Consumers |-> IF c \in expiring THEN <<>> ELSE toB[c]]
    /\ UNCHANGED <<leaves, zkVars, link, paused, expiredPending, expiries, pauses, cuts,
                   role, epoch, members, failed, trig, phase, runGen, stopSet, acked, asg, cepoch>>

-----------------------------------------------------------------------------
(* Faults and the environment *)

\* kill -STOP of a broker JVM (fault, bounded).
Pause(b) ==
    /\ ~paused[b]
    /\ pauses < MaxPauses
    /\ paused' = [paused EXCEPT ![b] = TRUE]
    /\ pauses' = pauses + 1
    /\ UNCHANGED <<leaves, zkVars, link, sinceAck, expiredPending, expiries, cuts, coordVars, consumerVars, netVars>>

\* kill -CONT (recovery).
Resume(b) ==
    /\ paused[b]
    /\ paused' = [paused EXCEPT ![b] = FALSE]
    /\ UNCHANGED <<leaves, zkVars, link, sinceAck, expiredPending, expiries, pauses, cuts, coordVars, consumerVars, netVars>>

\* The network between b and ZooKeeper fails (fault; a Toxiproxy cut).  The
\* client will see Disconnected; the core keeps its state (DESIGN §5).
CutZk(b) ==
    /\ link[b] = "UP"
    /\ cuts < MaxCuts
    /\ link' = [link EXCEPT ![b] = "DOWN"]
    /\ cuts' = cuts + 1
    /\ UNCHANGED <<leaves, zkVars, paused, sinceAck, expiredPending, expiries, pauses, coordVars, consumerVars, netVars>>

\* The network heals (recovery).
HealZk(b) ==
    /\ link[b] = "DOWN"
    /\ link' = [link EXCEPT ![b] = "UP"]
    /\ UNCHANGED <<leaves, zkVars, paused, sinceAck, expiredPending, expiries, pauses, cuts, coordVars, consumerVars, netVars>>

\* ZooKeeper's SessionTracker expires b's session, no earlier than S after the
\* last request it answered (fault, bounded; server side, b is not told):
\* its ephemeral nodes go, the election node's watches fire.
ZkExpireSession(b) ==
    /\ zkAlive[b]
    /\ sinceAck[b] >= SessionTimeout
    /\ expiries < MaxExpiries
    /\ zkAlive'   = [zkAlive EXCEPT ![b] = FALSE]
    /\ coordNode' = IF coordNode = b THEN None ELSE coordNode
    /\ expiries'  = expiries + 1
    /\ UNCHANGED <<leaves, zkEpoch, zkGen, zkOwners, staleWrite, link, paused, sinceAck, expiredPending, pauses, cuts,
                   coordVars, consumerVars, netVars>>

\* b's client reconnects and hears Expired; the adapter opens a new session at
\* once and queues Expired for the core (ZooKeeperAdapter.onExpired).  Until
\* the core handles it, effects the core already decided (a multi of a running
\* rebalance) go out through the NEW session: this is why writes need the
\* epoch check (DESIGN §5 "Fenced writes").
ZkClientExpired(b) ==
    /\ ~paused[b]
    /\ link[b] = "UP"
    /\ ~zkAlive[b]
    /\ zkAlive'        = [zkAlive EXCEPT ![b] = TRUE]
    /\ sinceAck'       = [sinceAck EXCEPT ![b] = 0]
    /\ expiredPending' = [expiredPending EXCEPT ![b] = TRUE]
    /\ UNCHANGED <<leaves, coordNode, zkEpoch, zkGen, zkOwners, staleWrite, link, paused, expiries, pauses, cuts,
                   coordVars, consumerVars, netVars>>

\* The core handles Expired: handleNewSession, a full reset; every connection
\* of this incarnation is closed (seed handleNewSession steps 1-3;
\* Coordinator.onSessionExpired).  Running for election again is Elect.
HandleNewSession(b) ==
    /\ ~paused[b]
    /\ expiredPending[b]
    /\ expiredPending' = [expiredPending EXCEPT ![b] = FALSE]
    /\ ResetCoord(b)
    /\ CloseChannelsOf(b)
    /\ UNCHANGED <<leaves, zkVars, link, paused, sinceAck, expiries, pauses, cuts, consumerVars>>

-----------------------------------------------------------------------------
(* Election (DESIGN §5) *)

\* Create the ephemeral /consumers/coordinator and bump /consumers/epoch, as one
\* multi (ZkElection.tryElect -> Coordinator.onElected).  A follower whose
\* create got NodeExists watches the node; the one-shot watch fires on its
\* deletion and the follower retries: here, Elect is enabled whenever the node
\* is absent.  Then the post-election lease wait (WAITING), or with LeaseWait
\* off (D4) straight to LEADING with the startup rebalance queued.
Elect(b) ==
    /\ ~paused[b]
    /\ role[b] = "FOLLOWER"
    /\ ~expiredPending[b]
    /\ ZkReachable(b)
    /\ coordNode = None
    /\ zkEpoch < MaxEpoch
    /\ coordNode' = b
    /\ zkEpoch'   = zkEpoch + 1
    /\ epoch'     = [epoch EXCEPT ![b] = zkEpoch + 1]
    /\ role'      = [role EXCEPT ![b] = IF LeaseWait THEN "WAITING" ELSE "LEADING"]
    /\ trig'      = [trig EXCEPT ![b] = IF LeaseWait THEN "IDLE" ELSE "QUEUED"]
    /\ sinceWon'  = [sinceWon EXCEPT ![b] = 0]
    /\ sinceAck'  = [sinceAck EXCEPT ![b] = 0]
    /\ UNCHANGED <<leaves, zkAlive, zkGen, zkOwners, staleWrite, link, paused, expiredPending, expiries, pauses, cuts,
                   members, failed, sinceSent, phase, runGen, stopSet, acked, asg, consumerVars, netVars>>

\* The post-election wait D + L_max x (1 + rho) + margin has passed: every
\* consumer of the previous epoch has self-fenced.  Registrations that came in
\* during the wait are batched: one rebalance (DESIGN §5, D9;
\* Coordinator.onLeaseWaitTimer).
EndLeaseWait(b) ==
    /\ ~paused[b]
    /\ role[b] = "WAITING"
    /\ sinceWon[b] = Cap
    /\ role'     = [role EXCEPT ![b] = "LEADING"]
    /\ sinceWon' = [sinceWon EXCEPT ![b] = 0]
    /\ trig'     = [trig EXCEPT ![b] = "QUEUED"]
    /\ UNCHANGED <<leaves, zkVars, envVars, epoch, members, failed, sinceSent, phase, runGen, stopSet, acked, asg,
                   consumerVars, netVars>>

\* A fenced write failed its check(/consumers/epoch, epoch) (BadVersion): no
\* longer coordinator; stop commanding at once, reset, close every connection
\* (DESIGN §5; Coordinator.onFencedWriteRejected).
StandDown(b) ==
    /\ ResetCoord(b)
    /\ CloseChannelsOf(b)
    /\ sinceAck' = [sinceAck EXCEPT ![b] = 0]
    /\ UNCHANGED <<leaves, zkVars, link, paused, expiredPending, expiries, pauses, cuts, consumerVars>>

-----------------------------------------------------------------------------
(* Coordinator: members and pings (DESIGN §5) *)

\* A Register at the head of c's connection to b (Coordinator.onRegister).
\* Not coordinator, or the consumer has seen a higher epoch: NOT_COORDINATOR /
\* STALE_COORDINATOR_EPOCH, the consumer rediscovers.  Else c becomes a member
\* and is answered (which grants a lease, so only with a live session); a
\* membership change triggers a rebalance, except during the lease wait.
HandleRegister(b, c) ==
    /\ ~paused[b]
    /\ chan[c] = b
    /\ toB[c] # <<>>
    /\ Head(toB[c]).type = "Register"
    /\ LET m == Head(toB[c]) IN
       IF role[b] = "FOLLOWER" \/ epoch[b] < m.epoch
       THEN /\ toB' = [toB EXCEPT ![c] = Tail(@)]
            /\ toC' = [toC EXCEPT ![c] = Append(@, Msg("NotCoordinator", epoch[b], 0, {}))]
            /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, consumerVars, chan>>
       ELSE /\ CanCommand(b)
            /\ toB'       = [toB EXCEPT ![c] = Tail(@)]
            /\ toC'       = [toC EXCEPT ![c] = Append(@, Msg("RegisterResponse", epoch[b], 0, {}))]
            /\ members'   = [members EXCEPT ![b] = @ \cup {c}]
            /\ failed'    = [failed EXCEPT ![b] = @ \ {c}]
            /\ sinceSent' = [sinceSent EXCEPT ![b][c] = 0]
            /\ IF role[b] = "LEADING" THEN RequestRebalance(b) ELSE UNCHANGED trig
            \* A member of the running barrier that registers again (a new
            \* connection: it has dropped every fetcher) counts as stopped; in
            \* STARTING its Start was lost with the old connection, and the
            \* trigger (now RUNNING_DIRTY) owes it the next run.  Without this
            \* the run waits for a response that will never come.
            /\ acked' = IF phase[b] \in {"STOPPING", "STARTING"} /\ c \in stopSet[b]
                        THEN [acked EXCEPT ![b] = @ \cup {c}] ELSE acked
            /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, phase, runGen, stopSet, asg,
                           consumerVars, chan>>

\* max_ping_retries + 1 pings unanswered: c is declared failed and no longer
\* commanded (Coordinator.onPingTimeout).  Pings go unanswered here when b
\* no longer knows a connection to c (~Known(b, c)).
DeclareFailed(b, c) ==
    /\ ~paused[b]
    /\ role[b] # "FOLLOWER"
    /\ c \in members[b] \ failed[b]
    /\ ~Known(b, c)
    /\ failed' = [failed EXCEPT ![b] = @ \cup {c}]
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, members, sinceSent, trig, phase, runGen, stopSet,
                   acked, asg, consumerVars, netVars>>

\* A failed member's lease surely ran out (lastSent + D + L x (1 + rho) +
\* margin): it leaves the group, a membership change (Coordinator.onMemberExpired).
RemoveFailed(b, c) ==
    /\ ~paused[b]
    /\ c \in failed[b]
    /\ sinceSent[b][c] = Cap
    /\ phase[b] = "IDLE"
    /\ members' = [members EXCEPT ![b] = @ \ {c}]
    /\ failed'  = [failed EXCEPT ![b] = @ \ {c}]
    /\ IF role[b] = "LEADING" THEN RequestRebalance(b) ELSE UNCHANGED trig
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, sinceSent, phase, runGen, stopSet, acked, asg,
                   consumerVars, netVars>>

\* A Leave at the head of c's connection (Coordinator.onLeave): c is no longer
\* a member, a membership change (RUNNING -> RUNNING_DIRTY during a run); the
\* connection is closed.  If c was in the running barrier: before the write it
\* is dropped from it (it has stopped, and gets nothing); after the write it
\* counts as done (its Start is ignored; the next run reassigns its partitions).
HandleLeave(b, c) ==
    /\ ~paused[b]
    /\ chan[c] = b
    /\ toB[c] # <<>>
    /\ Head(toB[c]).type = "Leave"
    /\ members' = [members EXCEPT ![b] = @ \ {c}]
    /\ failed'  = [failed EXCEPT ![b] = @ \ {c}]
    /\ IF role[b] = "LEADING" THEN RequestRebalance(b) ELSE UNCHANGED trig
    /\ CASE phase[b] = "STOPPING" /\ c \in stopSet[b] ->
              /\ stopSet' = [stopSet EXCEPT ![b] = @ \ {c}]
              /\ acked'   = [acked EXCEPT ![b] = @ \ {c}]
         [] phase[b] \in {"WRITTEN", "STARTING"} /\ c \in stopSet[b] ->
              /\ acked'   = [acked EXCEPT ![b] = @ \cup {c}]
              /\ UNCHANGED stopSet
         [] OTHER -> UNCHANGED <<leaves, stopSet, acked>>
    /\ chan' = [chan EXCEPT ![c] = None]
    /\ toC'  = [toC EXCEPT ![c] = <<>>]
    /\ toB'  = [toB EXCEPT ![c] = <<>>]
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, sinceSent, phase, runGen, asg, consumerVars>>

-----------------------------------------------------------------------------
(* Coordinator: the rebalance run (DESIGN §6, seed rebalance steps 1-5) *)

\* The run starts (Coordinator.runRebalance): steps 1-2 read the group's
\* generation g from ZooKeeper, then 4.1 Stop(g) to every member.  Always
\* "necessary" here (checks 3.1-3.5 abstracted away).
RunStart(b) ==
    /\ ~paused[b]
    /\ role[b] = "LEADING"
    /\ trig[b] = "QUEUED"
    /\ phase[b] = "IDLE"
    /\ members[b] # {}
    /\ ZkReachable(b)
    /\ zkGen < MaxGen
    /\ trig'     = [trig EXCEPT ![b] = "RUNNING"]
    /\ phase'    = [phase EXCEPT ![b] = "STOPPING"]
    /\ runGen'   = [runGen EXCEPT ![b] = zkGen]
    /\ stopSet'  = [stopSet EXCEPT ![b] = members[b]]
    /\ acked'    = [acked EXCEPT ![b] = {}]
    /\ sinceAck' = [sinceAck EXCEPT ![b] = 0]
    /\ toC' = [c \in Consumers |->
                 IF c \in members[b] /\ Known(b, c)
                 THEN Append(toC[c], Msg("Stop", epoch[b], zkGen, {}))
                 ELSE toC[c]]
    /\ UNCHANGED <<leaves, zkVars, link, paused, expiredPending, expiries, pauses, cuts, role, epoch, sinceWon, members,
                   failed, sinceSent, asg, consumerVars, chan, toB>>

\* A StopResponse(g) (Coordinator.onStopResponse).  Late or foreign ones are dropped.
OnStopResponse(b, c) ==
    /\ ~paused[b]
    /\ chan[c] = b
    /\ toB[c] # <<>>
    /\ Head(toB[c]).type = "StopResponse"
    /\ toB' = [toB EXCEPT ![c] = Tail(@)]
    /\ acked' = IF phase[b] = "STOPPING" /\ Head(toB[c]).gen = runGen[b] /\ c \in stopSet[b]
                THEN [acked EXCEPT ![b] = @ \cup {c}] ELSE acked
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, members, failed, sinceSent, trig, phase, runGen,
                   stopSet, asg, consumerVars, chan, toC>>

\* The barrier: every member sent Stop(g) acknowledged it, or was declared
\* failed and its lease surely ran out (DESIGN §6, §7 BarrierSound).
BarrierDone(b) ==
    \A c \in stopSet[b] : c \in acked[b] \/ (c \in failed[b] /\ sinceSent[b][c] = Cap)

\* The barrier is passed: the assignment is computed over the members that
\* stopped (any function: the assignor is abstracted) and written with one
\* fenced multi: check(/consumers/epoch, epoch), owners, generation g + 1
\* (Coordinator.onBarrierComplete -> ZooKeeperAdapter.multi).  BadVersion:
\* stand down.  Fencing = FALSE is the seed (D2): no check.
WriteOwners(b) ==
    /\ ~paused[b]
    /\ role[b] = "LEADING"
    /\ phase[b] = "STOPPING"
    /\ BarrierDone(b)
    /\ ZkReachable(b)
    /\ IF Fencing /\ epoch[b] # zkEpoch
       THEN StandDown(b)
       ELSE LET live == acked[b] \ failed[b] IN
            \E a \in (IF live = {} THEN {NoOwners} ELSE [Partitions -> live]) :
               /\ zkOwners'   = a
               /\ zkGen'      = runGen[b] + 1
               /\ staleWrite' = (staleWrite \/ epoch[b] < zkEpoch)
               /\ asg'        = [asg EXCEPT ![b] = a]
               /\ stopSet'    = [stopSet EXCEPT ![b] = live]
               /\ acked'      = [acked EXCEPT ![b] = {}]
               /\ phase'      = [phase EXCEPT ![b] = "WRITTEN"]
               /\ sinceAck'   = [sinceAck EXCEPT ![b] = 0]
               /\ UNCHANGED <<leaves, zkAlive, coordNode, zkEpoch, link, paused, expiredPending, expiries, pauses, cuts,
                              role, epoch, sinceWon, members, failed, sinceSent, trig, runGen,
                              consumerVars, netVars>>

\* Start(g + 1) with its partitions to every member that stopped
\* (Coordinator.onOwnersWritten); a command, so only with a live session.
SendStarts(b) ==
    /\ CanCommand(b)
    /\ role[b] = "LEADING"
    /\ phase[b] = "WRITTEN"
    /\ toC' = [c \in Consumers |->
                 IF c \in stopSet[b] /\ Known(b, c)
                 THEN Append(toC[c], Msg("Start", epoch[b], runGen[b] + 1,
                                         {p \in Partitions : asg[b][p] = c}))
                 ELSE toC[c]]
    /\ sinceSent' = [sinceSent EXCEPT ![b] = [c \in Consumers |-> IF c \in stopSet[b] THEN 0 ELSE @[c]]]
    /\ phase' = [phase EXCEPT ![b] = "STARTING"]
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, members, failed, trig, runGen, stopSet, acked,
                   asg, consumerVars, chan, toB>>

\* A StartResponse(g + 1) (Coordinator.onStartResponse).
OnStartResponse(b, c) ==
    /\ ~paused[b]
    /\ chan[c] = b
    /\ toB[c] # <<>>
    /\ Head(toB[c]).type = "StartResponse"
    /\ toB' = [toB EXCEPT ![c] = Tail(@)]
    /\ acked' = IF phase[b] = "STARTING" /\ Head(toB[c]).gen = runGen[b] + 1 /\ c \in stopSet[b]
                THEN [acked EXCEPT ![b] = @ \cup {c}] ELSE acked
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, members, failed, sinceSent, trig, phase, runGen,
                   stopSet, asg, consumerVars, chan, toC>>

\* The run ends (seed step 5; Coordinator.onRebalanceDone): every member
\* started, or was declared failed (its removal triggers the next run).
\* RUNNING_DIRTY -> QUEUED, RUNNING -> IDLE.
FinishRun(b) ==
    /\ ~paused[b]
    /\ phase[b] = "STARTING"
    /\ \A c \in stopSet[b] : c \in acked[b] \/ c \in failed[b]
    /\ trig'    = [trig EXCEPT ![b] = IF @ = "RUNNING_DIRTY" THEN "QUEUED" ELSE "IDLE"]
    /\ phase'   = [phase EXCEPT ![b] = "IDLE"]
    /\ runGen'  = [runGen EXCEPT ![b] = 0]
    /\ stopSet' = [stopSet EXCEPT ![b] = {}]
    /\ acked'   = [acked EXCEPT ![b] = {}]
    /\ asg'     = [asg EXCEPT ![b] = NoOwners]
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, members, failed, sinceSent, consumerVars, netVars>>

-----------------------------------------------------------------------------
(* Consumer session core (DESIGN §6) *)

\* Consult any broker (it reads the election node and epoch), connect to the
\* coordinator and send Register(highest_epoch_seen)
\* (ConsumerSession.onConsultResponse).
Discover(c) ==
    /\ cst[c] = "DISCOVERING"
    /\ chan[c] = None
    /\ coordNode # None
    /\ LET e == Max(cepoch[c], zkEpoch) IN
       /\ cepoch' = [cepoch EXCEPT ![c] = e]
       /\ toB'    = [toB EXCEPT ![c] = <<Reply("Register", e, 0)>>]
    /\ cst'  = [cst EXCEPT ![c] = "REGISTERING"]
    /\ chan' = [chan EXCEPT ![c] = coordNode]
    /\ toC'  = [toC EXCEPT ![c] = <<>>]
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cgen, fetchEpoch, lease, fetching>>

\* Receive the head of c's connection.
Valid(c, m) == m.epoch >= cepoch[c]     \* the highest-epoch rule (DESIGN §5)

\* RegisterResponse / NOT_COORDINATOR (ConsumerSession.onRegisterResponse).
OnRegisterResponse(c) ==
    /\ toC[c] # <<>>
    /\ Head(toC[c]).type \in {"RegisterResponse", "NotCoordinator"}
    /\ LET m == Head(toC[c]) IN
       IF m.type = "RegisterResponse" /\ cst[c] = "REGISTERING" /\ Valid(c, m)
       THEN /\ cst'    = [cst EXCEPT ![c] = "REGISTERED"]
            /\ lease'  = [lease EXCEPT ![c] = Lease]
            /\ cepoch' = [cepoch EXCEPT ![c] = m.epoch]
            /\ toC'    = [toC EXCEPT ![c] = Tail(@)]
            /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cgen, fetchEpoch, fetching, chan, toB>>
       ELSE \* rejected: close the connection and rediscover
            /\ cst'   = [cst EXCEPT ![c] = "DISCOVERING"]
            /\ lease' = [lease EXCEPT ![c] = 0]
            /\ chan'  = [chan EXCEPT ![c] = None]
            /\ toC'   = [toC EXCEPT ![c] = <<>>]
            /\ toB'   = [toB EXCEPT ![c] = <<>>]
            /\ cgen'  = [cgen EXCEPT ![c] = 0]
            /\ fetching'   = [fetching EXCEPT ![c] = {}]
            /\ fetchEpoch' = [fetchEpoch EXCEPT ![c] = 0]
            /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cepoch>>

\* Ping: a valid one renews the lease (ConsumerSession.onPing).  A stale one
\* is answered STALE_COORDINATOR_EPOCH (not modelled: the coordinator ignores it).
OnPing(c) ==
    /\ toC[c] # <<>>
    /\ Head(toC[c]).type = "Ping"
    /\ LET m == Head(toC[c]) IN
       /\ toC' = [toC EXCEPT ![c] = Tail(@)]
       /\ IF cst[c] \in Leased /\ Valid(c, m)
          THEN /\ lease'  = [lease EXCEPT ![c] = Lease]
               /\ cepoch' = [cepoch EXCEPT ![c] = m.epoch]
          ELSE UNCHANGED <<leaves, lease, cepoch>>
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cst, cgen, fetchEpoch, fetching, chan, toB>>

\* Stop(g): close every fetcher and clear its queues, then answer
\* (ConsumerSession.onStop; the seed's second handlePingRequest).
OnStop(c) ==
    /\ toC[c] # <<>>
    /\ Head(toC[c]).type = "Stop"
    /\ LET m == Head(toC[c]) IN
       /\ toC' = [toC EXCEPT ![c] = Tail(@)]
       /\ IF cst[c] \in Leased /\ Valid(c, m)
          THEN /\ cst'        = [cst EXCEPT ![c] = "STOPPED"]
               /\ cgen'       = [cgen EXCEPT ![c] = m.gen]
               /\ fetching'   = [fetching EXCEPT ![c] = {}]
               /\ fetchEpoch' = [fetchEpoch EXCEPT ![c] = 0]
               /\ cepoch'     = [cepoch EXCEPT ![c] = m.epoch]
               /\ toB'        = [toB EXCEPT ![c] = Append(@, Reply("StopResponse", m.epoch, m.gen))]
          ELSE UNCHANGED <<leaves, cst, cgen, fetching, fetchEpoch, cepoch, toB>>
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, lease, chan>>

\* Start(g'): applied only in REGISTERED or in STOPPED(g' - 1), with a valid
\* epoch; starts the fetchers, renews the lease, answers
\* (ConsumerSession.onStart).  Otherwise ILLEGAL_GENERATION (not modelled).
OnStart(c) ==
    /\ toC[c] # <<>>
    /\ Head(toC[c]).type = "Start"
    /\ LET m == Head(toC[c]) IN
       /\ toC' = [toC EXCEPT ![c] = Tail(@)]
       /\ IF /\ cst[c] \in Leased
             /\ Valid(c, m)
             /\ \/ cst[c] = "REGISTERED"
                \/ cst[c] = "STOPPED" /\ cgen[c] + 1 = m.gen
          THEN /\ cst'        = [cst EXCEPT ![c] = "FETCHING"]
               /\ cgen'       = [cgen EXCEPT ![c] = m.gen]
               /\ fetching'   = [fetching EXCEPT ![c] = m.parts]
               /\ fetchEpoch' = [fetchEpoch EXCEPT ![c] = m.epoch]
               /\ cepoch'     = [cepoch EXCEPT ![c] = m.epoch]
               /\ lease'      = [lease EXCEPT ![c] = Lease]
               /\ toB'        = [toB EXCEPT ![c] = Append(@, Reply("StartResponse", m.epoch, m.gen))]
          ELSE UNCHANGED <<leaves, cst, cgen, fetching, fetchEpoch, cepoch, lease, toB>>
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, chan>>

\* The application calls shutdown() (DESIGN §6 Consumer API): close every
\* fetcher, send Leave; the consumer may subscribe again later, once the
\* coordinator has closed the connection (ConsumerSession.leave).
Leave(c) ==
    /\ cst[c] \in Leased
    /\ chan[c] # None
    /\ leaves < MaxLeaves
    /\ leaves'     = leaves + 1
    /\ cst'        = [cst EXCEPT ![c] = "DISCOVERING"]
    /\ lease'      = [lease EXCEPT ![c] = 0]
    /\ cgen'       = [cgen EXCEPT ![c] = 0]
    /\ fetching'   = [fetching EXCEPT ![c] = {}]
    /\ fetchEpoch' = [fetchEpoch EXCEPT ![c] = 0]
    /\ toB'        = [toB EXCEPT ![c] = Append(@, Reply("Leave", cepoch[c], 0))]
    /\ UNCHANGED <<zkVars, envVars, coordVars, cepoch, chan, toC>>

\* The connection was closed by the coordinator: stop, rediscover
\* (ConsumerSession.onConnectionClosed).
OnClosed(c) ==
    /\ cst[c] # "DISCOVERING"
    /\ chan[c] = None
    /\ cst'        = [cst EXCEPT ![c] = "DISCOVERING"]
    /\ lease'      = [lease EXCEPT ![c] = 0]
    /\ cgen'       = [cgen EXCEPT ![c] = 0]
    /\ fetching'   = [fetching EXCEPT ![c] = {}]
    /\ fetchEpoch' = [fetchEpoch EXCEPT ![c] = 0]
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cepoch, netVars>>

-----------------------------------------------------------------------------
(* The system *)

BrokerStep(b) ==
    \/ Pause(b) \/ Resume(b) \/ CutZk(b) \/ HealZk(b)
    \/ ZkExpireSession(b) \/ ZkClientExpired(b) \/ HandleNewSession(b)
    \/ Elect(b) \/ EndLeaseWait(b)
    \/ RunStart(b) \/ WriteOwners(b) \/ SendStarts(b) \/ FinishRun(b)
    \/ \E c \in Consumers :
         \/ HandleRegister(b, c) \/ DeclareFailed(b, c) \/ RemoveFailed(b, c)
         \/ OnStopResponse(b, c) \/ OnStartResponse(b, c) \/ HandleLeave(b, c)

ConsumerStep(c) ==
    \/ Discover(c) \/ OnRegisterResponse(c) \/ OnPing(c) \/ OnStop(c) \/ OnStart(c) \/ OnClosed(c)

Next ==
    \/ Tick
    \/ \E b \in Brokers : BrokerStep(b)
    \/ \E c \in Consumers : ConsumerStep(c) \/ Leave(c)

SafetySpec == Init /\ [][Next]_vars
=============================================================================
