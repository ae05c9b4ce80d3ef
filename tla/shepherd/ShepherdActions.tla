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

\* -- offsets and the write pipeline (WritePipeline, DESIGN §4) --

\* The offset of p in a set of <<partition, offset>> pairs (or <<p, o, c>> triples).
OffsetIn(os, p) == (CHOOSE x \in os : x[1] = p)[2]
HasOffset(os, p) == \E x \in os : x[1] = p

\* b has sent its handover record (Handover.maybeHandOver).
HandoverSent(b) == \E i \in 1..Len(zkReqs[b]) : zkReqs[b][i].kind = "handover"

\* Offset writes of b sent to ZooKeeper and not answered yet.
SentOffsets(b) == UNION {zkReqs[b][i].ops : i \in 1..Len(zkReqs[b])}

\* GroupState.offsetFloor: the committed offset (the coordinator's mirror is
\* ZooKeeper's value: it wrote every offset since it loaded them), or a
\* higher one in flight or queued.
Floor(b, p) ==
    LET os == {zkOffset[p]} \cup {t[2] : t \in {x \in SentOffsets(b) \cup wQueued[b] : x[1] = p}}
    IN CHOOSE o \in os : \A o2 \in os : o2 <= o

\* Membership.acceptOffsets: the queue after c's report os.  Java accepts
\* only a member that answered Start of the current generation
\* (Member.startedGeneration), so it owns what it fetched; here a report is
\* non-empty only if c was fetching, and c fetched under a Start of this
\* coordinator's current generation (docs/verification.md §2).  An offset not
\* beyond the floor is acknowledged, not written; the queue keeps one write
\* per partition (the latest).
AcceptOffsets(b, c, os) ==
    LET new == {x \in os : x[2] > Floor(b, x[1])} IN
    {t \in wQueued[b] : ~HasOffset(new, t[1])} \cup {<<x[1], x[2], c>> : x \in new}

\* The offset writes ops commit in ZooKeeper (setData of each offset node).
\* History for FencedWrites: did one lower a committed offset, or come from
\* a consumer that is not the partition's owner in ZooKeeper?
CommitOffsets(ops) ==
    /\ zkOffset'        = [p \in Partitions |-> IF HasOffset(ops, p) THEN OffsetIn(ops, p) ELSE zkOffset[p]]
    /\ offsetRegressed' = (offsetRegressed \/ \E t \in ops : t[2] < zkOffset[t[1]])
    /\ offsetForeign'   = (offsetForeign \/ \E t \in ops : zkOwners[t[1]] # t[3])

\* WritePipeline.flush: the queue goes out as one fenced multi, unless an
\* offset multi is already in flight (one multi in flight per group).
\* Appended to b's requests: ZooKeeper answers one session's requests in order.
FlushedReqs(b, reqs, queue) ==
    IF queue = {} \/ \E i \in 1..Len(reqs) : reqs[i].kind = "offsets" THEN reqs
    ELSE Append(reqs, [kind |-> "offsets", epoch |-> epoch[b], ops |-> queue])
\* What stays queued after such a flush.
FlushedQueue(reqs, queue) ==
    IF \E i \in 1..Len(reqs) : reqs[i].kind = "offsets" THEN queue ELSE {}

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
    /\ sinceSent' = [sinceSent EXCEPT ![b] = [c \in Consumers |-> Cap]]
    /\ trig'      = [trig EXCEPT ![b] = "IDLE"]
    /\ phase'     = [phase EXCEPT ![b] = "IDLE"]
    /\ runGen'    = [runGen EXCEPT ![b] = 0]
    /\ stopSet'   = [stopSet EXCEPT ![b] = {}]
    /\ acked'     = [acked EXCEPT ![b] = {}]
    /\ asg'       = [asg EXCEPT ![b] = NoOwners]
    /\ wQueued'   = [wQueued EXCEPT ![b] = {}]
    /\ zkReqs'    = [zkReqs EXCEPT ![b] = <<>>]
    /\ hoAcc'     = [hoAcc EXCEPT ![b] = NoTaken]
    /\ topicView' = [topicView EXCEPT ![b] = {}]

\* b closes every connection it holds: their in-flight messages are lost.  A
\* consumer that is not fetching hears ConnectionClosed in the same step
\* (OnClosed folded in): its OnClosed changes only its own variables, which
\* no other step and no invariant reads while it fetches nothing, and its only
\* other way out, the lease running out at a tick, ends in the same state
\* (docs/verification.md §2).  A fetching consumer hears it later (OnClosed):
\* until then it fetches on its lease, which is what the lease argument is about.
CloseChannelsOf(b) ==
    LET gone == {c \in Consumers : chan[c] = b /\ cst[c] # "FETCHING"} IN
    /\ chan' = [c \in Consumers |-> IF chan[c] = b THEN None ELSE chan[c]]
    /\ toC'  = [c \in Consumers |-> IF chan[c] = b THEN <<>> ELSE toC[c]]
    /\ toB'  = [c \in Consumers |-> IF chan[c] = b THEN <<>> ELSE toB[c]]
    /\ cst'   = [c \in Consumers |-> IF c \in gone THEN "DISCOVERING" ELSE cst[c]]
    /\ lease' = [c \in Consumers |-> IF c \in gone THEN 0 ELSE lease[c]]
    /\ cgen'  = [c \in Consumers |-> IF c \in gone THEN 0 ELSE cgen[c]]
    \* a consumer that is not fetching has fetching = {}, taken = NoTaken, fetchEpoch = 0 already
    /\ UNCHANGED <<cepoch, fetching, taken, fetchEpoch>>

-----------------------------------------------------------------------------
(* Init *)

Init ==
    /\ zkAlive        = [b \in Brokers |-> TRUE]
    /\ coordNode      = None
    /\ zkEpoch        = 0
    /\ zkGen          = 0
    /\ zkOwners       = NoOwners
    /\ staleWrite     = FALSE
    /\ zkOffset       = NoTaken
    /\ zkHandover     = FALSE
    /\ offsetRegressed = FALSE
    /\ offsetForeign  = FALSE
    /\ offsetLost     = FALSE
    /\ zkTopic        = Partitions \ NewPartitions
    /\ link           = [b \in Brokers |-> "UP"]
    /\ paused         = [b \in Brokers |-> FALSE]
    /\ sinceAck       = [b \in Brokers |-> 0]
    /\ expiredPending = [b \in Brokers |-> FALSE]
    /\ expiries       = 0
    /\ pauses         = 0
    /\ cuts           = 0
    /\ handovers      = 0
    /\ role           = [b \in Brokers |-> "FOLLOWER"]
    /\ epoch          = [b \in Brokers |-> 0]
    /\ sinceWon       = [b \in Brokers |-> 0]
    /\ members        = [b \in Brokers |-> {}]
    /\ sinceSent      = [b \in Brokers |-> [c \in Consumers |-> Cap]]
    /\ trig           = [b \in Brokers |-> "IDLE"]
    /\ phase          = [b \in Brokers |-> "IDLE"]
    /\ runGen         = [b \in Brokers |-> 0]
    /\ stopSet        = [b \in Brokers |-> {}]
    /\ acked          = [b \in Brokers |-> {}]
    /\ asg            = [b \in Brokers |-> NoOwners]
    /\ wQueued        = [b \in Brokers |-> {}]
    /\ zkReqs         = [b \in Brokers |-> <<>>]
    /\ hoAcc          = [b \in Brokers |-> NoTaken]
    /\ topicView      = [b \in Brokers |-> {}]
    /\ cst            = [c \in Consumers |-> "DISCOVERING"]
    /\ cgen           = [c \in Consumers |-> 0]
    /\ cepoch         = [c \in Consumers |-> 0]
    /\ fetchEpoch     = [c \in Consumers |-> 0]
    /\ lease          = [c \in Consumers |-> 0]
    /\ fetching       = [c \in Consumers |-> {}]
    /\ taken          = [c \in Consumers |-> NoTaken]
    /\ chan           = [c \in Consumers |-> None]
    /\ toC            = [c \in Consumers |-> <<>>]
    /\ toB            = [c \in Consumers |-> <<>>]
    /\ leaves         = 0

\* kill -STOP of a broker JVM (fault, bounded by MaxPauses) and kill -CONT:
\* taken at a tick (see Tick).  Only a broker that is or may still be
\* coordinator is paused: a paused follower only idles (safety forces no step)
\* and at worst loses a session that owns no node, which it must reopen before
\* it runs for election; every invariant reads the same states without the
\* pause (docs/verification.md §2), so the budget is kept for pauses that matter.
Pausable == {b \in Brokers : ~paused[b] /\ role[b] # "FOLLOWER"}

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
\*    (Coordinator.onPingTimer).  The ping interval is one tick.  A ping
\*    with nothing ahead of it is received in the same step (OnPing).
\* The clock advances with pz[b]: b is paused during this tick.
TickWith(pz) ==
    LET ack(b) == IF ~pz[b] /\ ZkReachable(b) THEN 0 ELSE Min(SessionTimeout, sinceAck[b] + 1) IN
    /\ LET expiring == {c \in Consumers : cst[c] \in Leased /\ lease[c] = 1}
           pinger(b) == ~pz[b] /\ CanCommandAt(b, ack(b))
           pinged    == {c \in Consumers \ expiring :
                           chan[c] # None /\ Known(chan[c], c) /\ pinger(chan[c])
                           /\ c \in members[chan[c]]}
           \* A ping with nothing ahead of it on its connection is received in
           \* the same step (OnPing folded in: with D = 0 every connection is
           \* empty at a tick, since Tick waits for every delivery);
           \* docs/verification.md §2 says why this is sound.
           direct    == {c \in pinged : toC[c] = <<>>}
           renewed   == {c \in direct : cst[c] \in Leased /\ epoch[chan[c]] >= cepoch[c]}
       IN
       /\ sinceAck'   = [b \in Brokers |-> ack(b)]
       /\ sinceWon'   = [b \in Brokers |-> IF role[b] \in {"WAITING", "HANDING_OVER"}
                                            THEN Min(Cap, sinceWon[b] + 1) ELSE sinceWon[b]]
       \* The timer of a consumer that is not a member is never read (it is set
       \* when the consumer registers): kept at Cap, so that it does not split states.
       /\ sinceSent'  = [b \in Brokers |-> [c \in Consumers |->
                           CASE c \in pinged /\ chan[c] = b -> 0
                             [] c \in members[b]             -> Min(Cap, sinceSent[b][c] + 1)
                             [] OTHER                        -> Cap]]
       /\ lease'      = [c \in Consumers |-> CASE c \in renewed        -> Lease
                                                [] cst[c] \in Leased    -> lease[c] - 1
                                                [] OTHER                -> 0]
       /\ cepoch'     = [c \in Consumers |-> IF c \in renewed THEN epoch[chan[c]] ELSE cepoch[c]]
       /\ cst'        = [c \in Consumers |-> IF c \in expiring THEN "DISCOVERING" ELSE cst[c]]
       /\ cgen'       = [c \in Consumers |-> IF c \in expiring THEN 0 ELSE cgen[c]]
       /\ fetching'   = [c \in Consumers |-> IF c \in expiring THEN {} ELSE fetching[c]]
       /\ taken'      = [c \in Consumers |-> IF c \in expiring THEN NoTaken ELSE taken[c]]
       /\ fetchEpoch' = [c \in Consumers |-> IF c \in expiring THEN 0 ELSE fetchEpoch[c]]
       /\ chan'       = [c \in Consumers |-> IF c \in expiring THEN None ELSE chan[c]]
       /\ toC'        = [c \in Consumers |->
                           IF c \in expiring THEN <<>>
                           ELSE LET aged == [i \in 1..Len(toC[c]) |-> [toC[c][i] EXCEPT !.age = @ + 1]] IN
                                IF c \in pinged \ direct THEN Append(aged, Msg("Ping", epoch[chan[c]], 0, {}))
                                ELSE aged]
       /\ toB'        = [c \in Consumers |-> IF c \in expiring THEN <<>> ELSE toB[c]]
    /\ UNCHANGED <<leaves, topicView, zkVars, link, expiredPending, expiries, cuts,
                   role, epoch, members, trig, phase, runGen, stopSet, acked, asg, handovers, pipeVars>>

\* Pauses begin and end at ticks: the brokers in P are paused (kill -STOP)
\* just before the clock advances, those in R resumed (kill -CONT) just after.
\* Pause(b) and Resume(b) change only paused[b], which no invariant reads and
\* only b's own steps and Tick read; b takes no step while paused, so a pause
\* commutes with every step up to the next tick and a resume with every step
\* back to the previous one: every history has an equivalent one with its
\* pauses and resumes at ticks (docs/verification.md §2).
TickStep(P, R) ==
    /\ \A c \in Consumers : \A i \in 1..Len(toC[c]) : toC[c][i].age < MaxDelay
    /\ pauses + Cardinality(P) <= MaxPauses
    /\ LET pz == [b \in Brokers |-> paused[b] \/ b \in P] IN
       /\ R \subseteq {b \in Brokers : pz[b]}
       /\ paused' = [b \in Brokers |-> pz[b] /\ b \notin R]
       /\ pauses' = pauses + Cardinality(P)
       /\ TickWith(pz)

Tick == \E P \in SUBSET Pausable, R \in SUBSET Brokers : TickStep(P, R)

-----------------------------------------------------------------------------
(* Faults and the environment *)

\* The network between b and ZooKeeper fails (fault; a Toxiproxy cut).  The
\* client will see Disconnected; the core keeps its state (DESIGN §5).
CutZk(b) ==
    /\ link[b] = "UP"
    /\ role[b] # "FOLLOWER"    \* as for Pause: a follower cut off only idles
    /\ cuts < MaxCuts
    /\ link' = [link EXCEPT ![b] = "DOWN"]
    /\ cuts' = cuts + 1
    /\ UNCHANGED <<leaves, zkVars, paused, sinceAck, expiredPending, expiries, pauses, handovers, coordVars, consumerVars,
                   netVars>>

\* The network heals (recovery).
HealZk(b) ==
    /\ link[b] = "DOWN"
    /\ link' = [link EXCEPT ![b] = "UP"]
    /\ UNCHANGED <<leaves, zkVars, paused, sinceAck, expiredPending, expiries, pauses, cuts, coordVars, consumerVars, netVars, handovers>>

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
    \* With D = 0, consumers that discovered b just before its node went
    \* (Discover folded in, see DiscoverAndRegister): their Registers are in
    \* flight to a coordinator that is now a zombie.
    /\ \E D \in IF MaxDelay = 0 /\ coordNode = b
                THEN SUBSET {c \in Consumers : cst[c] = "DISCOVERING" /\ chan[c] = None}
                ELSE {{}} :
       /\ cepoch' = [c \in Consumers |-> IF c \in D THEN Max(cepoch[c], zkEpoch) ELSE cepoch[c]]
       /\ toB'    = [c \in Consumers |-> IF c \in D THEN <<Reply("Register", Max(cepoch[c], zkEpoch), 0)>> ELSE toB[c]]
       /\ cst'    = [c \in Consumers |-> IF c \in D THEN "REGISTERING" ELSE cst[c]]
       /\ chan'   = [c \in Consumers |-> IF c \in D THEN b ELSE chan[c]]
       /\ toC'    = [c \in Consumers |-> IF c \in D THEN <<>> ELSE toC[c]]
    /\ UNCHANGED <<leaves, zkTopic, zkEpoch, zkGen, zkOwners, staleWrite, link, paused, sinceAck, expiredPending, pauses, cuts,
                   coordVars, cgen, fetchEpoch, lease, fetching, taken, handovers, offVars>>

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
    /\ UNCHANGED <<leaves, zkTopic, coordNode, zkEpoch, zkGen, zkOwners, staleWrite, link, paused, expiries, pauses, cuts,
                   coordVars, consumerVars, netVars, handovers, offVars>>

\* The core handles Expired: handleNewSession, a full reset; every connection
\* of this incarnation is closed (seed handleNewSession steps 1-3;
\* Coordinator.onSessionExpired).  Running for election again is Elect.
HandleNewSession(b) ==
    /\ ~paused[b]
    /\ expiredPending[b]
    /\ expiredPending' = [expiredPending EXCEPT ![b] = FALSE]
    /\ ResetCoord(b)
    /\ CloseChannelsOf(b)
    /\ UNCHANGED <<leaves, zkVars, link, paused, sinceAck, expiries, pauses, cuts, handovers>>

\* The topic gains partition p (an operator's kafka-topics --alter: a new
\* partition node under /brokers/topics/[t]; environment, each of
\* NewPartitions at most once).  Its watch fires at the coordinator:
\* OnTopicChange.
AddPartition(p) ==
    /\ p \in NewPartitions \ zkTopic
    /\ zkTopic' = zkTopic \cup {p}
    /\ UNCHANGED <<leaves, zkAlive, coordNode, zkEpoch, zkGen, zkOwners, staleWrite, offVars, envVars, coordVars,
                   consumerVars, netVars>>

-----------------------------------------------------------------------------
(* Election (DESIGN §5) *)

\* Create the ephemeral /consumers/coordinator and bump /consumers/epoch, as one
\* multi (ZkElection.tryElect -> Coordinator.onElected).  A follower whose
\* create got NodeExists watches the node; the one-shot watch fires on its
\* deletion and the follower retries: here, Elect is enabled whenever the node
\* is absent.  Then the post-election lease wait (WAITING), or with LeaseWait
\* off (D4) straight to LEADING with the startup rebalance queued.  The
\* election's setData reads and clears the handover flag: when the previous
\* epoch handed over cleanly nobody fetches, so the lease wait is skipped and
\* only a grace for the members to come back remains (Election.runForElection
\* -> ElectionWon(handover) -> Loader.maybeLoaded; the grace may end at
\* any time: EndLeaseWait is enabled at once).
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
    /\ sinceWon'  = [sinceWon EXCEPT ![b] = IF zkHandover THEN Cap ELSE 0]
    /\ sinceAck'  = [sinceAck EXCEPT ![b] = 0]
    /\ zkHandover' = FALSE
    /\ topicView' = [topicView EXCEPT ![b] = zkTopic]
    /\ UNCHANGED <<leaves, zkTopic, zkAlive, zkGen, zkOwners, staleWrite, link, paused, expiredPending, expiries, pauses, cuts,
                   members, sinceSent, phase, runGen, stopSet, acked, asg, consumerVars, netVars, handovers,
                   zkOffset, offsetRegressed, offsetForeign, offsetLost, pipeVars>>

\* The post-election wait D + L_max x (1 + rho) + margin has passed: every
\* consumer of the previous epoch has self-fenced.  Registrations that came in
\* during the wait are batched: one rebalance (DESIGN §5, D9;
\* Coordinator.onLeaseWaitTimer).
EndLeaseWait(b) ==
    /\ ~paused[b]
    /\ role[b] = "WAITING"
    /\ sinceWon[b] = Cap
    /\ role'     = [role EXCEPT ![b] = "LEADING"]
    /\ trig'     = [trig EXCEPT ![b] = "QUEUED"]
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, epoch, sinceWon, members, sinceSent, phase, runGen, stopSet, acked, asg,
                   consumerVars, netVars, pipeVars>>

\* A fenced write failed its check(/consumers/epoch, epoch) (BadVersion): no
\* longer coordinator; stop commanding at once, reset, close every connection
\* (DESIGN §5; Coordinator.onFencedWriteRejected).
StandDown(b) ==
    /\ ResetCoord(b)
    /\ CloseChannelsOf(b)
    /\ sinceAck' = [sinceAck EXCEPT ![b] = 0]
    /\ UNCHANGED <<leaves, zkVars, link, paused, expiredPending, expiries, pauses, cuts, handovers>>

-----------------------------------------------------------------------------
(* Coordinator: members and pings (DESIGN §5) *)

\* A Register at the head of c's connection to b (Membership.register).
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
       IF role[b] \notin {"WAITING", "LEADING"} \/ epoch[b] < m.epoch
       THEN IF MaxDelay = 0
            THEN \* NOT_COORDINATOR received at once (OnRegisterResponse folded in,
                 \* docs/verification.md §2): the consumer closes and rediscovers.
                 /\ toB'  = [toB EXCEPT ![c] = <<>>]
                 /\ chan' = [chan EXCEPT ![c] = None]
                 /\ cst'  = [cst EXCEPT ![c] = "DISCOVERING"]
                 /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cgen, cepoch, fetchEpoch, lease, fetching, taken,
                                toC>>
            ELSE /\ toB' = [toB EXCEPT ![c] = Tail(@)]
                 /\ toC' = [toC EXCEPT ![c] = Append(@, Msg("NotCoordinator", epoch[b], 0, {}))]
                 /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, consumerVars, chan>>
       ELSE /\ CanCommand(b)
            /\ toB'       = [toB EXCEPT ![c] = Tail(@)]
            /\ members'   = [members EXCEPT ![b] = @ \cup {c}]
            /\ sinceSent' = [sinceSent EXCEPT ![b][c] = 0]
            /\ IF role[b] = "LEADING" THEN RequestRebalance(b) ELSE UNCHANGED trig
            \* A member of the running barrier that registers again (a new
            \* connection: it has dropped every fetcher) counts as stopped; in
            \* STARTING its Start was lost with the old connection, and the
            \* trigger (now RUNNING_DIRTY) owes it the next run.  Without this
            \* the run waits for a response that will never come.
            /\ acked' = IF phase[b] \in {"STOPPING", "STARTING"} /\ c \in stopSet[b]
                        THEN [acked EXCEPT ![b] = @ \cup {c}] ELSE acked
            \* With D = 0 the RegisterResponse is received at once
            \* (OnRegisterResponse folded in, docs/verification.md §2): c is
            \* REGISTERING and the response's epoch is at least the one c sent.
            /\ IF MaxDelay = 0
               THEN /\ cst'    = [cst EXCEPT ![c] = "REGISTERED"]
                    /\ lease'  = [lease EXCEPT ![c] = Lease]
                    /\ cepoch' = [cepoch EXCEPT ![c] = epoch[b]]
                    /\ UNCHANGED <<toC, cgen, fetchEpoch, fetching, taken>>
               ELSE /\ toC' = [toC EXCEPT ![c] = Append(@, Msg("RegisterResponse", epoch[b], 0, {}))]
                    /\ UNCHANGED consumerVars
            /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, phase, runGen, stopSet, asg,
                           chan, pipeVars>>

\* max_ping_retries + 1 pings unanswered: c is declared failed and no longer
\* commanded (Coordinator.onPingTimeout).  Pings go unanswered here when b
\* no longer knows a connection to c (~Known(b, c)).  The declaration is not a
\* step of its own: it is folded into the steps that act on it (RemoveFailed,
\* the barrier of WriteOwners, FinishRun), each of which may treat any member
\* b no longer knows as declared failed (docs/verification.md §2).
MayBeFailed(b) == {c \in members[b] : ~Known(b, c)}

\* A failed member's lease surely ran out (lastSent + D + L x (1 + rho) +
\* margin): it leaves the group, a membership change (Coordinator.onMemberExpired).
RemoveFailed(b, c) ==
    /\ ~paused[b]
    /\ c \in MayBeFailed(b)
    /\ sinceSent[b][c] = Cap
    /\ phase[b] = "IDLE"
    /\ members' = [members EXCEPT ![b] = @ \ {c}]
    /\ sinceSent' = [sinceSent EXCEPT ![b][c] = Cap]   \* a non-member's timer: canonical (see Tick)
    /\ IF role[b] = "LEADING" THEN RequestRebalance(b) ELSE UNCHANGED trig
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, phase, runGen, stopSet, acked, asg,
                   consumerVars, netVars, pipeVars>>

\* A Leave at the head of c's connection (Membership.leave): c is no longer
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
    /\ sinceSent' = [sinceSent EXCEPT ![b][c] = Cap]   \* a non-member's timer: canonical (see Tick)
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
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, phase, runGen, asg, consumerVars, pipeVars>>

\* The topic's partitions changed: the watch fires (TopicPartitionChange),
\* the coordinator re-reads the topic and updates its copy
\* (Loader.topicRead), and every group interested in the topic is
\* triggered (Groups.topicsChanged -> Rebalance.request: IDLE -> QUEUED,
\* RUNNING -> RUNNING_DIRTY).  During the post-election wait the run at its
\* end picks the change up; a handing-over coordinator leaves it to the next
\* one, which reads the topic when elected.  The watch and the read are one
\* step: a late notification only delays the trigger, as a slow read does.
OnTopicChange(b) ==
    /\ ~paused[b]
    /\ role[b] \in {"WAITING", "LEADING"}
    /\ ZkReachable(b)
    /\ topicView[b] # zkTopic
    /\ topicView' = [topicView EXCEPT ![b] = zkTopic]
    /\ IF role[b] = "LEADING" THEN RequestRebalance(b) ELSE UNCHANGED trig
    /\ UNCHANGED <<leaves, zkVars, envVars, role, epoch, sinceWon, members, sinceSent, phase, runGen, stopSet,
                   acked, asg, consumerVars, netVars, pipeVars>>

-----------------------------------------------------------------------------
(* Coordinator: the rebalance run (DESIGN §6, seed rebalance steps 1-5) *)

\* With D = 0 a Stop or Start that has nothing ahead of it on its connection
\* is received in the step that sends it (OnStop / OnStart folded in, as the
\* ping at its tick; docs/verification.md §2 says why this is sound).  T: the
\* consumers it is sent to; the result: those that receive it now.
ReceivedNow(T) == IF MaxDelay = 0 THEN {c \in T : toC[c] = <<>>} ELSE {}

\* OnStop, for the consumers in R receiving Stop(e, g) in the same step.
StopApplies(c, e) == cst[c] \in Leased /\ e >= cepoch[c]
ReceiveStops(R, e, g) ==
    LET S == {c \in R : StopApplies(c, e)} IN
    /\ cst'        = [c \in Consumers |-> IF c \in S THEN "STOPPED" ELSE cst[c]]
    /\ cgen'       = [c \in Consumers |-> IF c \in S THEN g ELSE cgen[c]]
    /\ fetching'   = [c \in Consumers |-> IF c \in S THEN {} ELSE fetching[c]]
    /\ taken'      = [c \in Consumers |-> IF c \in S THEN NoTaken ELSE taken[c]]
    /\ fetchEpoch' = [c \in Consumers |-> IF c \in S THEN 0 ELSE fetchEpoch[c]]
    /\ cepoch'     = [c \in Consumers |-> IF c \in S THEN e ELSE cepoch[c]]
    /\ toB'        = [c \in Consumers |->
                        IF c \in S THEN Append(toB[c], StopReply(e, g, {<<p, taken[c][p]>> : p \in fetching[c]}))
                        ELSE toB[c]]
    /\ UNCHANGED lease

\* OnStart, for the consumers in R, each receiving the Start msg[c] (its
\* partitions and their offsets); the StartResponse of those in A is received
\* by the coordinator in the same step (StartsAnswered), the others' queue.
StartApplies(c, e, g) ==
    /\ cst[c] \in Leased
    /\ e >= cepoch[c]
    /\ \/ cst[c] = "REGISTERED"
       \/ cst[c] = "STOPPED" /\ cgen[c] + 1 = g
ReceiveStarts(R, msg, A) ==
    LET S == {c \in R : StartApplies(c, msg[c].epoch, msg[c].gen)} IN
    /\ cst'        = [c \in Consumers |-> IF c \in S THEN "FETCHING" ELSE cst[c]]
    /\ cgen'       = [c \in Consumers |-> IF c \in S THEN msg[c].gen ELSE cgen[c]]
    /\ fetching'   = [c \in Consumers |-> IF c \in S THEN msg[c].parts ELSE fetching[c]]
    /\ taken'      = [c \in Consumers |->
                        IF c \in S THEN [p \in Partitions |-> IF p \in msg[c].parts THEN OffsetIn(msg[c].offs, p) ELSE 0]
                        ELSE taken[c]]
    /\ fetchEpoch' = [c \in Consumers |-> IF c \in S THEN msg[c].epoch ELSE fetchEpoch[c]]
    /\ cepoch'     = [c \in Consumers |-> IF c \in S THEN msg[c].epoch ELSE cepoch[c]]
    /\ lease'      = [c \in Consumers |-> IF c \in S THEN Lease ELSE lease[c]]
    /\ toB'        = [c \in Consumers |->
                        IF c \in S \ A THEN Append(toB[c], Reply("StartResponse", msg[c].epoch, msg[c].gen))
                        ELSE toB[c]]

\* The consumers of R whose StartResponse b receives in the step that sends
\* their Start: acknowledged (OnStartResponse: b is STARTING, the generation
\* matches, c is in the run), when nothing else is in flight to b from them;
\* docs/verification.md §2.
StartsAnswered(b, R, g) == {c \in R : StartApplies(c, epoch[b], g) /\ toB[c] = <<>>}

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
    /\ LET sent == {c \in members[b] : Known(b, c)}
           now  == ReceivedNow(sent)
       IN
       /\ toC' = [c \in Consumers |->
                    IF c \in sent \ now THEN Append(toC[c], Msg("Stop", epoch[b], zkGen, {})) ELSE toC[c]]
       /\ ReceiveStops(now, epoch[b], zkGen)
    /\ UNCHANGED <<leaves, topicView, zkVars, link, paused, expiredPending, expiries, pauses, cuts, role, epoch, sinceWon, members,
                   sinceSent, asg, chan, handovers, pipeVars>>

\* A StopResponse(g) (Rebalance.stopAnswered).  Late or foreign ones are
\* dropped.  Its offsets are accepted if c answered Start(g) of this
\* coordinator (Member.startedGeneration; c owns what it fetched) and beyond
\* the floor; they are queued, not sent: the owners multi takes them along
\* (Membership.acceptOffsets).
OnStopResponse(b, c) ==
    /\ ~paused[b]
    /\ role[b] # "HANDING_OVER"
    /\ chan[c] = b
    /\ toB[c] # <<>>
    /\ Head(toB[c]).type = "StopResponse"
    /\ toB' = [toB EXCEPT ![c] = Tail(@)]
    /\ IF phase[b] = "STOPPING" /\ Head(toB[c]).gen = runGen[b] /\ c \in stopSet[b]
       THEN /\ acked'   = [acked EXCEPT ![b] = @ \cup {c}]
            /\ wQueued' = [wQueued EXCEPT ![b] = AcceptOffsets(b, c, Head(toB[c]).offs)]
       ELSE UNCHANGED <<acked, wQueued>>
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, members, sinceSent, trig, phase, runGen,
                   stopSet, asg, consumerVars, chan, toC, zkReqs, hoAcc>>

\* The barrier, with the members in F declared failed: every member sent
\* Stop(g) acknowledged it, or was declared failed and its lease surely ran
\* out (DESIGN §6, §7 BarrierSound).
BarrierDone(b, F) ==
    \A c \in stopSet[b] : c \in acked[b] \/ (c \in F /\ sinceSent[b][c] = Cap)

\* The barrier is passed: the assignment is computed over the members that
\* stopped and the partitions the coordinator knows at this moment (any
\* function: the assignor is abstracted; Coordinator.assign reads its copy
\* of the topics when it writes, owners outside it are deleted) and written with one
\* fenced multi: check(/consumers/epoch, epoch), the offsets queued from the
\* Stop answers, owners, generation g + 1 (Rebalance.writeOwners ->
\* WritePipeline; nothing else is in flight for the group while it leads).
\* BadVersion: stand down.  Fencing = FALSE is the seed (D2): no check.
WriteOwners(b) ==
    /\ ~paused[b]
    /\ role[b] = "LEADING"
    /\ phase[b] = "STOPPING"
    /\ ZkReachable(b)
    /\ \E F \in SUBSET MayBeFailed(b) :   \* the members declared failed by now
       /\ BarrierDone(b, F)
       /\ IF Fencing /\ epoch[b] # zkEpoch
          THEN StandDown(b)
          ELSE LET live  == acked[b] \ F
                   parts == topicView[b]   \* the partitions the coordinator knows now
               IN
               \E a0 \in (IF live = {} THEN {[p \in parts |-> None]} ELSE [parts -> live]) :
               LET a == [p \in Partitions |-> IF p \in parts THEN a0[p] ELSE None] IN
                  /\ zkOwners'   = a
                  /\ zkGen'      = runGen[b] + 1
                  /\ staleWrite' = (staleWrite \/ epoch[b] < zkEpoch)
                  /\ CommitOffsets(wQueued[b])
                  /\ wQueued'    = [wQueued EXCEPT ![b] = {}]
                  /\ asg'        = [asg EXCEPT ![b] = a]
                  /\ stopSet'    = [stopSet EXCEPT ![b] = live]
                  /\ acked'      = [acked EXCEPT ![b] = {}]
                  /\ phase'      = [phase EXCEPT ![b] = "WRITTEN"]
                  /\ sinceAck'   = [sinceAck EXCEPT ![b] = 0]
                  /\ UNCHANGED <<leaves, zkTopic, topicView, zkAlive, coordNode, zkEpoch, link, paused, expiredPending, expiries, pauses, cuts,
                                 role, epoch, sinceWon, members, sinceSent, trig, runGen,
                                 consumerVars, netVars, handovers, zkHandover, offsetLost, zkReqs, hoAcc>>

\* Start(g + 1) with its partitions and their committed offsets to every
\* member that stopped (Rebalance.sendStarts; the coordinator's mirror of
\* the offsets is ZooKeeper's: it wrote them itself, see
\* docs/verification.md); a command, so only with a live session.
SendStarts(b) ==
    /\ CanCommand(b)
    /\ role[b] = "LEADING"
    /\ phase[b] = "WRITTEN"
    /\ LET sent == {c \in stopSet[b] : Known(b, c)}
           now  == ReceivedNow(sent)
           g    == runGen[b] + 1
           msg  == [c \in sent |-> StartMsg(epoch[b], g, {p \in Partitions : asg[b][p] = c},
                                            {<<p, zkOffset[p]>> : p \in {q \in Partitions : asg[b][q] = c}})]
           answered == StartsAnswered(b, now, g)
       IN
       /\ toC' = [c \in Consumers |-> IF c \in sent \ now THEN Append(toC[c], msg[c]) ELSE toC[c]]
       /\ ReceiveStarts(now, msg, answered)
       /\ acked' = [acked EXCEPT ![b] = @ \cup answered]
    /\ sinceSent' = [sinceSent EXCEPT ![b] = [c \in Consumers |-> IF c \in stopSet[b] \cap members[b] THEN 0 ELSE @[c]]]
    /\ phase' = [phase EXCEPT ![b] = "STARTING"]
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, members, trig, runGen, stopSet,
                   asg, chan, pipeVars>>

\* A StartResponse(g + 1) (Rebalance.startAnswered).  During a handover
\* the run is aborted (phase IDLE) and the answer is dropped, as in Java.
OnStartResponse(b, c) ==
    /\ ~paused[b]
    /\ chan[c] = b
    /\ toB[c] # <<>>
    /\ Head(toB[c]).type = "StartResponse"
    /\ toB' = [toB EXCEPT ![c] = Tail(@)]
    /\ acked' = IF phase[b] = "STARTING" /\ Head(toB[c]).gen = runGen[b] + 1 /\ c \in stopSet[b]
                THEN [acked EXCEPT ![b] = @ \cup {c}] ELSE acked
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, members, sinceSent, trig, phase, runGen,
                   stopSet, asg, consumerVars, chan, toC, wQueued, zkReqs, hoAcc>>

\* The run ends (seed step 5; Coordinator.onRebalanceDone): every member
\* started, or was declared failed (its removal triggers the next run).
\* RUNNING_DIRTY -> QUEUED, RUNNING -> IDLE.
FinishRun(b) ==
    /\ ~paused[b]
    /\ phase[b] = "STARTING"
    /\ \A c \in stopSet[b] : c \in acked[b] \/ c \in MayBeFailed(b)
    /\ trig'    = [trig EXCEPT ![b] = IF @ = "RUNNING_DIRTY" THEN "QUEUED" ELSE "IDLE"]
    /\ phase'   = [phase EXCEPT ![b] = "IDLE"]
    /\ runGen'  = [runGen EXCEPT ![b] = 0]
    /\ stopSet' = [stopSet EXCEPT ![b] = {}]
    /\ acked'   = [acked EXCEPT ![b] = {}]
    /\ asg'     = [asg EXCEPT ![b] = NoOwners]
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, members, sinceSent, consumerVars, netVars,
                   pipeVars>>

-----------------------------------------------------------------------------
(* Coordinator: graceful handover (DESIGN §5) and ZooKeeper's answers *)

\* Graceful handover begins (Handover.begin, on HandoverRequested:
\* the broker is asked to stop).  A running rebalance is aborted (its pending
\* answers are forgotten); every member is sent Stop(g) of the current
\* generation if commanding is allowed; no more pings.  Offsets still queued
\* go out (WritePipeline.flush).  hoAcc starts with every offset accepted and
\* not yet known committed.  Bounded by MaxHandovers.
BeginHandover(b) ==
    /\ ~paused[b]
    /\ role[b] \in {"WAITING", "LEADING"}
    /\ handovers < MaxHandovers
    /\ LET stops == IF CanCommand(b) THEN {c \in members[b] : Known(b, c)} ELSE {}
       IN
       /\ toC'     = [c \in Consumers |-> IF c \in stops THEN Append(toC[c], Msg("Stop", epoch[b], zkGen, {}))
                                                        ELSE toC[c]]
       /\ stopSet' = [stopSet EXCEPT ![b] = stops]
    /\ handovers' = handovers + 1
    /\ role'    = [role EXCEPT ![b] = "HANDING_OVER"]
    /\ trig'    = [trig EXCEPT ![b] = "IDLE"]
    /\ phase'   = [phase EXCEPT ![b] = "IDLE"]
    /\ runGen'  = [runGen EXCEPT ![b] = zkGen]
    /\ acked'   = [acked EXCEPT ![b] = {}]
    /\ asg'     = [asg EXCEPT ![b] = NoOwners]
    /\ hoAcc'   = [hoAcc EXCEPT ![b] = [p \in Partitions |-> Floor(b, p)]]
    /\ zkReqs'  = [zkReqs EXCEPT ![b] = FlushedReqs(b, zkReqs[b], wQueued[b])]
    /\ wQueued' = [wQueued EXCEPT ![b] = FlushedQueue(zkReqs[b], wQueued[b])]
    /\ UNCHANGED <<leaves, topicView, zkVars, link, paused, sinceAck, expiredPending, expiries, pauses, cuts,
                   epoch, sinceWon, members, sinceSent, consumerVars, chan, toB>>

\* A StopResponse during the handover (Handover.answered): c has
\* stopped; its offsets are accepted as in a run (Membership.acceptOffsets)
\* and sent at once (WritePipeline.flush: behind the multi in flight, if
\* any).  Java matches the answer by request id; here by generation, so an
\* answer to the aborted run's Stop(g) counts too (c has stopped all the same).
\* Once the record is sent, answers are dropped (Handover.maybeHandOver clears
\* handoverAwaiting): a late answer's offsets are not acknowledged.
OnHandoverStopped(b, c) ==
    /\ ~paused[b]
    /\ role[b] = "HANDING_OVER"
    /\ chan[c] = b
    /\ toB[c] # <<>>
    /\ Head(toB[c]).type = "StopResponse"
    /\ toB' = [toB EXCEPT ![c] = Tail(@)]
    /\ LET m == Head(toB[c])
           q == AcceptOffsets(b, c, m.offs)
       IN
       IF m.gen = runGen[b] /\ c \in stopSet[b] /\ ~HandoverSent(b)
       THEN /\ acked'   = [acked EXCEPT ![b] = @ \cup {c}]
            /\ zkReqs'  = [zkReqs EXCEPT ![b] = FlushedReqs(b, zkReqs[b], q)]
            /\ wQueued' = [wQueued EXCEPT ![b] = FlushedQueue(zkReqs[b], q)]
            /\ hoAcc'   = [hoAcc EXCEPT ![b] = [p \in Partitions |->
                              IF HasOffset(m.offs, p) THEN Max(@[p], OffsetIn(m.offs, p))
                              ELSE @[p]]]
       ELSE UNCHANGED <<acked, zkReqs, wQueued, hoAcc>>
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, members, sinceSent, trig, phase, runGen,
                   stopSet, asg, consumerVars, chan, toC>>

\* Every member acknowledged the Stop or its lease surely ran out (the handover
\* deadline), and the post-election lease wait is over (fencedUntil): record
\* the handover (Handover.maybeHandOver).  The record is
\* setData(/consumers/epoch, handover: true, version = epoch): it changes the
\* epoch node's version, so every fenced multi sent after it fails.  With
\* HandoverWaitsForWrites (the fix) it waits until no offset write is queued
\* or in flight; without it (the bug) it goes out behind the multi in flight,
\* ahead of the writes still queued.
HandOver(b) ==
    /\ ~paused[b]
    /\ role[b] = "HANDING_OVER"
    /\ ~HandoverSent(b)
    /\ \A c \in members[b] : c \in acked[b] \/ sinceSent[b][c] = Cap
    /\ sinceWon[b] = Cap
    /\ HandoverWaitsForWrites => (zkReqs[b] = <<>> /\ wQueued[b] = {})
    /\ zkReqs' = [zkReqs EXCEPT ![b] = Append(@, [kind |-> "handover", epoch |-> epoch[b], ops |-> {}])]
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, members, sinceSent, trig, phase, runGen,
                   stopSet, acked, asg, wQueued, hoAcc, consumerVars, netVars>>

\* ZooKeeper answers the oldest request b sent, and b's core handles the answer
\* in the same step (WritePipeline.finished, then flush: the queued offsets
\* go out as the next multi, behind anything sent meanwhile).
\*  - An offset multi: check(/consumers/epoch, epoch) fails (BadVersion) when
\*    the epoch moved on: b stands down (Coordinator.standDown); else it
\*    commits.  Fencing = FALSE: no check.
\*  - The handover record: commits if the epoch is still b's (conditional
\*    setData); either way b resets, deletes its election node and closes
\*    (the WritePipeline.afterWrite callback of Handover.maybeHandOver: Resign, HandedOver).  Here
\*    the broker process restarts as a follower at once.  offsetLost records
\*    whether an offset b accepted is not committed when its record commits.
ZkAnswer(b) ==
    /\ ~paused[b]
    /\ ZkReachable(b)
    /\ zkReqs[b] # <<>>
    /\ LET r == Head(zkReqs[b]) IN
       IF r.kind = "offsets"
       THEN IF Fencing /\ r.epoch # zkEpoch
            THEN StandDown(b)
            ELSE /\ CommitOffsets(r.ops)
                 /\ staleWrite' = (staleWrite \/ r.epoch < zkEpoch)
                 /\ zkReqs'     = [zkReqs EXCEPT ![b] = FlushedReqs(b, Tail(@), wQueued[b])]
                 /\ wQueued'    = [wQueued EXCEPT ![b] = FlushedQueue(Tail(zkReqs[b]), @)]
                 /\ sinceAck'   = [sinceAck EXCEPT ![b] = 0]
                 /\ UNCHANGED <<leaves, zkTopic, topicView, zkAlive, coordNode, zkEpoch, zkGen, zkOwners, zkHandover, offsetLost,
                                link, paused, expiredPending, expiries, pauses, cuts, handovers,
                                role, epoch, sinceWon, members, sinceSent, trig, phase, runGen, stopSet,
                                acked, asg, hoAcc, consumerVars, netVars>>
       ELSE /\ IF zkEpoch = r.epoch
               THEN /\ zkEpoch'    = zkEpoch + 1
                    /\ zkHandover' = TRUE
                    /\ offsetLost' = (offsetLost \/ \E p \in Partitions : hoAcc[b][p] > zkOffset[p])
               ELSE UNCHANGED <<zkEpoch, zkHandover, offsetLost>>
            /\ coordNode' = IF coordNode = b THEN None ELSE coordNode
            /\ ResetCoord(b)
            /\ CloseChannelsOf(b)
            /\ sinceAck' = [sinceAck EXCEPT ![b] = 0]
            /\ UNCHANGED <<leaves, zkTopic, zkAlive, zkGen, zkOwners, staleWrite, zkOffset, offsetRegressed, offsetForeign,
                           link, paused, expiredPending, expiries, pauses, cuts, handovers>>

-----------------------------------------------------------------------------
(* Consumer session core (DESIGN §6) *)

\* Consult any broker (it reads the election node and epoch), connect to the
\* coordinator and send Register(highest_epoch_seen)
\* (ConsumerSession.onConsultResponse).
Discover(c) ==
    /\ MaxDelay > 0    \* with D = 0: DiscoverAndRegister, or inside ZkExpireSession
    /\ cst[c] = "DISCOVERING"
    /\ chan[c] = None
    /\ coordNode # None
    /\ LET e == Max(cepoch[c], zkEpoch) IN
       /\ cepoch' = [cepoch EXCEPT ![c] = e]
       /\ toB'    = [toB EXCEPT ![c] = <<Reply("Register", e, 0)>>]
    /\ cst'  = [cst EXCEPT ![c] = "REGISTERING"]
    /\ chan' = [chan EXCEPT ![c] = coordNode]
    /\ toC'  = [toC EXCEPT ![c] = <<>>]
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cgen, fetchEpoch, lease, fetching, taken>>

\* With D = 0, Discover, the coordinator's HandleRegister and the consumer's
\* OnRegisterResponse as one step (ConsumerSession.onConsultResponse ->
\* Membership.register -> ConsumerSession.onRegisterResponse), taken when
\* the coordinator accepts the Register (docs/verification.md §2: Discover reads only the election node
\* and the epoch, so it can wait until the Register is handled unless one of
\* them changes first; ZkExpireSession sends the Registers that must go
\* before the coordinator's node does).  A Register the coordinator would
\* reject leaves the consumer as it was (it rediscovers): not a step.
CanRegister(c) ==
    /\ MaxDelay = 0
    /\ cst[c] = "DISCOVERING"
    /\ chan[c] = None
    /\ coordNode # None
    /\ role[coordNode] \in {"WAITING", "LEADING"}
    /\ epoch[coordNode] >= Max(cepoch[c], zkEpoch)
    /\ CanCommand(coordNode)
DiscoverAndRegister(c) ==
    /\ CanRegister(c)
    /\ LET b == coordNode IN
       /\ members'   = [members EXCEPT ![b] = @ \cup {c}]
       /\ sinceSent' = [sinceSent EXCEPT ![b][c] = 0]
       /\ IF role[b] = "LEADING" THEN RequestRebalance(b) ELSE UNCHANGED trig
       /\ acked' = IF phase[b] \in {"STOPPING", "STARTING"} /\ c \in stopSet[b]
                   THEN [acked EXCEPT ![b] = @ \cup {c}] ELSE acked
       /\ cst'    = [cst EXCEPT ![c] = "REGISTERED"]
       /\ lease'  = [lease EXCEPT ![c] = Lease]
       /\ cepoch' = [cepoch EXCEPT ![c] = epoch[b]]
       /\ chan'   = [chan EXCEPT ![c] = b]
       /\ toB'    = [toB EXCEPT ![c] = <<>>]
       /\ toC'    = [toC EXCEPT ![c] = <<>>]
    /\ UNCHANGED <<leaves, topicView, zkVars, envVars, role, epoch, sinceWon, phase, runGen, stopSet, asg, pipeVars,
                   cgen, fetchEpoch, fetching, taken>>

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
            /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cgen, fetchEpoch, fetching, chan, toB, taken>>
       ELSE \* rejected: close the connection and rediscover
            /\ cst'   = [cst EXCEPT ![c] = "DISCOVERING"]
            /\ lease' = [lease EXCEPT ![c] = 0]
            /\ chan'  = [chan EXCEPT ![c] = None]
            /\ toC'   = [toC EXCEPT ![c] = <<>>]
            /\ toB'   = [toB EXCEPT ![c] = <<>>]
            /\ cgen'  = [cgen EXCEPT ![c] = 0]
            /\ fetching'   = [fetching EXCEPT ![c] = {}]
            /\ taken'      = [taken EXCEPT ![c] = NoTaken]
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
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cst, cgen, fetchEpoch, fetching, chan, toB, taken>>

\* Stop(g): close every fetcher and clear its queues, then answer with the
\* offsets the application has taken of the partitions it fetched
\* (ConsumerSession.onStop; the seed's second handlePingRequest).
OnStop(c) ==
    /\ toC[c] # <<>>
    /\ Head(toC[c]).type = "Stop"
    /\ toC' = [toC EXCEPT ![c] = Tail(@)]
    /\ ReceiveStops({c}, Head(toC[c]).epoch, Head(toC[c]).gen)
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, chan>>

\* Start(g'): applied only in REGISTERED or in STOPPED(g' - 1), with a valid
\* epoch; starts the fetchers, renews the lease, answers
\* (ConsumerSession.onStart).  Otherwise ILLEGAL_GENERATION (not modelled).
OnStart(c) ==
    /\ toC[c] # <<>>
    /\ Head(toC[c]).type = "Start"
    /\ toC' = [toC EXCEPT ![c] = Tail(@)]
    /\ ReceiveStarts({c}, [x \in {c} |-> Head(toC[c])], {})
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, chan>>

\* The application takes the next record of a partition it fetches: its
\* position advances (an abstract log: positions 0..MaxPos; the consumer
\* runtime's poll loop).
Consume(c, p) ==
    /\ cst[c] = "FETCHING"
    /\ p \in fetching[c]
    /\ taken[c][p] < MaxPos
    /\ taken' = [taken EXCEPT ![c][p] = @ + 1]
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cst, cgen, cepoch, fetchEpoch, lease, fetching, netVars>>

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
    /\ taken'      = [taken EXCEPT ![c] = NoTaken]
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
    /\ taken'      = [taken EXCEPT ![c] = NoTaken]
    /\ fetchEpoch' = [fetchEpoch EXCEPT ![c] = 0]
    /\ UNCHANGED <<leaves, zkVars, envVars, coordVars, cepoch, netVars>>

-----------------------------------------------------------------------------
(* The system *)

BrokerStep(b) ==
    \/ CutZk(b) \/ HealZk(b)
    \/ ZkExpireSession(b) \/ ZkClientExpired(b) \/ HandleNewSession(b)
    \/ Elect(b) \/ EndLeaseWait(b)
    \/ RunStart(b) \/ WriteOwners(b) \/ SendStarts(b) \/ FinishRun(b)
    \/ BeginHandover(b) \/ HandOver(b) \/ ZkAnswer(b) \/ OnTopicChange(b)
    \/ \E c \in Consumers :
         \/ HandleRegister(b, c) \/ RemoveFailed(b, c)
         \/ OnStopResponse(b, c) \/ OnStartResponse(b, c) \/ HandleLeave(b, c)
         \/ OnHandoverStopped(b, c)

ConsumerStep(c) ==
    \/ Discover(c) \/ DiscoverAndRegister(c) \/ OnRegisterResponse(c) \/ OnPing(c) \/ OnStop(c) \/ OnStart(c) \/ OnClosed(c)
    \/ \E p \in Partitions : Consume(c, p)

Next ==
    \/ Tick
    \/ \E b \in Brokers : BrokerStep(b)
    \/ \E c \in Consumers : ConsumerStep(c) \/ Leave(c)
    \/ \E p \in NewPartitions : AddPartition(p)

SafetySpec == Init /\ [][Next]_vars
=============================================================================
