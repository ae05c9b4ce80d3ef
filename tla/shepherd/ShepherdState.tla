---------------------------- MODULE ShepherdState ----------------------------
(***************************************************************************)
(* Shepherd: constants, variables and helpers (CONVENTIONS item 16: the    *)
(* actions are in ShepherdActions, the properties in ShepherdProperties).  *)
(*                                                                          *)
(* One consumer group; every consumer subscribes to one topic with one     *)
(* stream, so an assignment is a function Partitions -> Consumers.  Time   *)
(* is a discrete clock: one Tick is one time unit, and every timer is a    *)
(* counter that saturates where its value stops mattering.  Clock drift    *)
(* rho is 0 in the model (docs/verification.md states the inequalities     *)
(* with rho).                                                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Brokers,         \* broker processes (model values); each runs for election
    Consumers,       \* members of the one group (model values)
    Partitions,      \* partitions the one subscribed topic has or may gain (model values)
    NewPartitions,   \* those of Partitions the topic does not have at first: each may be added once, at any
                     \*   time, also while a rebalance runs (an operator's kafka-topics --alter); {} for none
    None,            \* model value: no broker / no consumer
    SessionTimeout,  \* S: ZooKeeper expires a session no earlier than S ticks after the last request it answered
    Lease,           \* L = ping_interval_ms x (max_ping_retries + 1), in ticks (DESIGN §1)
    MaxDelay,        \* D: a delivered coordinator->consumer message arrives within D ticks
    MaxExpiries,     \* fault bound: server-side session expiries
    MaxPauses,       \* fault bound: process pauses (kill -STOP) of brokers
    MaxCuts,         \* fault bound: network cuts between a broker and ZooKeeper
    MaxLeaves,       \* bound: consumers leaving (Leave) and free to register again
    MaxGen,          \* bound on the generation (model size; the spec needs no more)
    MaxPos,          \* bound on a partition's position (next offset to consume): 0..MaxPos
    MaxHandovers,    \* bound: graceful handovers (DESIGN §5), each followed by a restart of the broker
    \* -- switches that re-introduce a rejected design (negative controls) --
    Fencing,         \* TRUE: every coordinator multi starts with check(/consumers/epoch, epoch) (DESIGN §5, D2)
    LeaseWait,       \* TRUE: no Start until D + L + margin after winning (DESIGN §5, D4)
    CommandGuard,    \* "ELECTED_SESSION": Ping/Start only while now < lastZkAck + S, acks of the
                     \*   session it was elected in (DESIGN §5 as fixed here, D5);
                     \* "ANY_SESSION": DESIGN §5 literally; "UNTIL_EXPIRED": command until
                     \*   told Expired, also while Disconnected (both rejected)
    HandoverWaitsForWrites \* TRUE: the handover record is sent only once the write pipeline is drained
                     \*   (Handover.maybeHandOver as fixed); FALSE: as soon as every Stop is answered (rejected)

ASSUME /\ SessionTimeout \in Nat \ {0}
       /\ Lease \in Nat \ {0}
       /\ MaxDelay \in Nat
       /\ MaxExpiries \in Nat /\ MaxPauses \in Nat /\ MaxGen \in Nat
       /\ MaxCuts \in Nat /\ MaxLeaves \in Nat /\ Fencing \in BOOLEAN /\ LeaseWait \in BOOLEAN
       /\ MaxPos \in Nat /\ MaxHandovers \in Nat /\ HandoverWaitsForWrites \in BOOLEAN
       /\ CommandGuard \in {"ELECTED_SESSION", "ANY_SESSION", "UNTIL_EXPIRED"}
       /\ None \notin Brokers \cup Consumers
       /\ NewPartitions \subseteq Partitions /\ Partitions \ NewPartitions # {}

\* Every election follows the deletion of the election node by an expiry or a
\* handover, but the first; a handover record also changes the version of
\* /consumers/epoch (its setData), so a handover costs two versions.
MaxEpoch == MaxExpiries + 1 + 2 * MaxHandovers
\* A coordinator-side timer at Cap means "the consumer's lease surely ran out":
\* last command sent + D + L + margin (margin = 1 tick).
Cap == MaxDelay + Lease + 1

\* DESIGN §6, the Java enums.
ConsumerStates == {"DISCOVERING", "REGISTERING", "REGISTERED", "FETCHING", "STOPPED"}
TriggerStates  == {"IDLE", "QUEUED", "RUNNING", "RUNNING_DIRTY"}
\* A consumer in these states holds a lease (it has been answered by a coordinator).
Leased == {"REGISTERED", "FETCHING", "STOPPED"}
\* WAITING: elected, in the post-election lease wait; HANDING_OVER: graceful
\* handover (DESIGN §5), stopping the group before it records the handover.
Roles  == {"FOLLOWER", "WAITING", "LEADING", "HANDING_OVER"}
Phases == {"IDLE", "STOPPING", "WRITTEN", "STARTING"}

\* Messages.  Coordinator -> consumer carry an age (ticks in flight).
ToConsumerTypes == {"RegisterResponse", "NotCoordinator", "Ping", "Stop", "Start"}
ToBrokerTypes   == {"Register", "StopResponse", "StartResponse", "Leave"}
\* offs: a set of <<partition, offset>> pairs (Start: where to begin; StopResponse:
\* what the application has taken).  Offsets are "next offset to consume".
Msg(t, e, g, ps)          == [type |-> t, epoch |-> e, gen |-> g, parts |-> ps, offs |-> {}, age |-> 0]
StartMsg(e, g, ps, os)    == [type |-> "Start", epoch |-> e, gen |-> g, parts |-> ps, offs |-> os, age |-> 0]
Reply(t, e, g)            == [type |-> t, epoch |-> e, gen |-> g, offs |-> {}]
StopReply(e, g, os)       == [type |-> "StopResponse", epoch |-> e, gen |-> g, offs |-> os]

VARIABLES
    \* -- ZooKeeper (a linearizable store) --
    zkAlive,         \* [Brokers -> BOOLEAN]: the server holds a live session of the broker
    coordNode,       \* /consumers/coordinator: the broker whose session owns the ephemeral node, or None
    zkEpoch,         \* data version of /consumers/epoch
    zkGen,           \* the group's generation in /consumers/groups/[g]
    zkOwners,        \* [Partitions -> Consumers \cup {None}]: /consumers/groups/[g]/owners
    staleWrite,      \* history: some committed coordinator write carried an epoch below zkEpoch
    zkOffset,        \* [Partitions -> 0..MaxPos]: /consumers/groups/[g]/offsets, the committed offsets
    zkHandover,      \* the handover flag in /consumers/epoch: the previous epoch handed over cleanly
    offsetRegressed, \* history: some committed offset write lowered a committed offset
    offsetForeign,   \* history: some committed offset was not reported by the partition's owner in ZooKeeper
    offsetLost,      \* history: a handover record committed while an offset its coordinator accepted was not (yet)
    zkTopic,         \* SUBSET Partitions: the topic's partitions in ZooKeeper (/brokers/topics/[t]); only grows
    \* -- the brokers' environment: network to ZooKeeper, pauses, the ZooKeeper client --
    link,            \* [Brokers -> {"UP", "DOWN"}]: the network between the broker and ZooKeeper
    paused,          \* [Brokers -> BOOLEAN]: kill -STOP; a paused broker takes no step
    sinceAck,        \* [Brokers -> 0..S]: ticks since the send time of the newest request ZooKeeper answered
    expiredPending,  \* [Brokers -> BOOLEAN]: the adapter opened a new session; the core has not handled Expired yet
    expiries,        \* fault counter
    pauses,          \* fault counter
    cuts,            \* fault counter
    handovers,       \* how many graceful handovers have begun
    \* -- each broker's coordinator state (all reset by handleNewSession) --
    role,            \* [Brokers -> Roles]
    epoch,           \* [Brokers -> 0..MaxEpoch]: the epoch it won (0: none)
    sinceWon,        \* [Brokers -> 0..Cap]: ticks since it won (post-election lease wait)
    members,         \* [Brokers -> SUBSET Consumers]: registered with this incarnation
    sinceSent,       \* [Brokers -> [Consumers -> 0..Cap]]: ticks since the last lease-granting command to c
    trig,            \* [Brokers -> TriggerStates]: the group's rebalance trigger (DESIGN §6)
    phase,           \* [Brokers -> Phases]: where the group's rebalance run is
    runGen,          \* [Brokers -> 0..MaxGen]: the generation g the run ends (it starts g + 1)
    stopSet,         \* [Brokers -> SUBSET Consumers]: members sent Stop(g); after the write, those sent Start(g+1)
    acked,           \* [Brokers -> SUBSET Consumers]: acknowledged Stop(g) (then: Start(g+1))
    asg,             \* [Brokers -> [Partitions -> Consumers \cup {None}]]: the run's assignment
    topicView,       \* [Brokers -> SUBSET Partitions]: the coordinator's copy of the topic's partitions
                     \*   (Coordinator.topics), read when elected and on every TopicPartitionChange
    wQueued,         \* [Brokers -> SUBSET (Partitions \X 0..MaxPos \X Consumers)]: offset writes queued, not sent
                     \*   (WritePipeline: compacted, one per partition; <<p, offset, reporter>>)
    zkReqs,          \* [Brokers -> Seq(request)]: multis sent to ZooKeeper, answered in order (one session);
                     \*   at most one offset multi at a time (one multi in flight per group), and the handover record
    hoAcc,           \* [Brokers -> [Partitions -> 0..MaxPos]]: history, during a handover: the highest offset
                     \*   the coordinator accepted (pending when the handover began, or from a Stop answer)
    \* -- consumers (the session core, DESIGN §6) --
    cst,             \* [Consumers -> ConsumerStates]
    cgen,            \* [Consumers -> 0..MaxGen]: generation of FETCHING(g) / STOPPED(g)
    cepoch,          \* [Consumers -> 0..MaxEpoch]: highest epoch seen
    fetchEpoch,      \* [Consumers -> 0..MaxEpoch]: epoch of the Start it fetches under (0: not fetching)
    lease,           \* [Consumers -> 0..L]: ticks of lease left (0 when not Leased)
    fetching,        \* [Consumers -> SUBSET Partitions]: partitions whose fetchers run now
    taken,           \* [Consumers -> [Partitions -> 0..MaxPos]]: position the application has taken up to, per
                     \*   fetched partition (0 for a partition it does not fetch)
    \* -- connections: one per consumer, to one coordinator incarnation --
    chan,            \* [Consumers -> Brokers \cup {None}]: the broker of the open connection
    toC,             \* [Consumers -> Seq(message)]: coordinator -> consumer, in flight
    toB,             \* [Consumers -> Seq(reply)]: consumer -> coordinator, in flight
    \* -- bounds --
    leaves           \* how many Leave requests have been sent

offVars      == <<zkOffset, zkHandover, offsetRegressed, offsetForeign, offsetLost>>
zkVars       == <<zkAlive, coordNode, zkEpoch, zkGen, zkOwners, staleWrite, offVars, zkTopic>>
envVars      == <<link, paused, sinceAck, expiredPending, expiries, pauses, cuts, handovers>>
pipeVars     == <<wQueued, zkReqs, hoAcc>>
coordVars    == <<role, epoch, sinceWon, members, sinceSent, trig, phase, runGen, stopSet, acked, asg,
                 topicView, pipeVars>>
consumerVars == <<cst, cgen, cepoch, fetchEpoch, lease, fetching, taken>>
netVars      == <<chan, toC, toB>>
vars         == <<zkVars, envVars, coordVars, consumerVars, netVars, leaves>>

Max(a, b) == IF a >= b THEN a ELSE b
Min(a, b) == IF a <= b THEN a ELSE b
NoOwners  == [p \in Partitions |-> None]
NoTaken   == [p \in Partitions |-> 0]
=============================================================================
