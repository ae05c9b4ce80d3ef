------------------------- MODULE ShepherdProperties -------------------------
(***************************************************************************)
(* Shepherd: invariants and temporal properties, with the DESIGN §7 names  *)
(* (the same names as the simulation's InvariantChecker).                  *)
(***************************************************************************)
EXTENDS ShepherdActions

Offsets == SUBSET (Partitions \X (0..MaxPos))
ToCMsgs == [type : ToConsumerTypes, epoch : 0..MaxEpoch, gen : 0..MaxGen,
            parts : SUBSET Partitions, offs : Offsets, age : 0..MaxDelay]
ToBMsgs == [type : ToBrokerTypes, epoch : 0..MaxEpoch, gen : 0..MaxGen, offs : Offsets]
OffsetWrites == SUBSET (Partitions \X (0..MaxPos) \X Consumers)
ZkRequests == [kind : {"offsets", "handover"}, epoch : 1..MaxEpoch, ops : OffsetWrites]

TypeOK ==
    /\ zkAlive        \in [Brokers -> BOOLEAN]
    /\ coordNode      \in Brokers \cup {None}
    /\ zkEpoch        \in 0..MaxEpoch
    /\ zkGen          \in 0..MaxGen
    /\ zkOwners       \in [Partitions -> Consumers \cup {None}]
    /\ staleWrite     \in BOOLEAN
    /\ zkOffset       \in [Partitions -> 0..MaxPos]
    /\ zkTopic        \in SUBSET Partitions
    /\ topicView      \in [Brokers -> SUBSET Partitions]
    /\ zkHandover     \in BOOLEAN
    /\ offsetRegressed \in BOOLEAN
    /\ offsetForeign  \in BOOLEAN
    /\ offsetLost     \in BOOLEAN
    /\ handovers      \in 0..MaxHandovers
    /\ link           \in [Brokers -> {"UP", "DOWN"}]
    /\ paused         \in [Brokers -> BOOLEAN]
    /\ sinceAck       \in [Brokers -> 0..SessionTimeout]
    /\ expiredPending \in [Brokers -> BOOLEAN]
    /\ expiries       \in 0..MaxExpiries
    /\ pauses         \in 0..MaxPauses
    /\ role           \in [Brokers -> Roles]
    /\ epoch          \in [Brokers -> 0..MaxEpoch]
    /\ sinceWon       \in [Brokers -> 0..Cap]
    /\ members        \in [Brokers -> SUBSET Consumers]
    /\ sinceSent      \in [Brokers -> [Consumers -> 0..Cap]]
    /\ trig           \in [Brokers -> TriggerStates]
    /\ phase          \in [Brokers -> Phases]
    /\ runGen         \in [Brokers -> 0..MaxGen]
    /\ stopSet        \in [Brokers -> SUBSET Consumers]
    /\ acked          \in [Brokers -> SUBSET Consumers]
    /\ asg            \in [Brokers -> [Partitions -> Consumers \cup {None}]]
    /\ wQueued        \in [Brokers -> OffsetWrites]
    /\ \A b \in Brokers : \A i \in 1..Len(zkReqs[b]) : zkReqs[b][i] \in ZkRequests
    /\ hoAcc          \in [Brokers -> [Partitions -> 0..MaxPos]]
    /\ cst            \in [Consumers -> ConsumerStates]
    /\ cgen           \in [Consumers -> 0..MaxGen]
    /\ cepoch         \in [Consumers -> 0..MaxEpoch]
    /\ fetchEpoch     \in [Consumers -> 0..MaxEpoch]
    /\ lease          \in [Consumers -> 0..Lease]
    /\ fetching       \in [Consumers -> SUBSET Partitions]
    /\ taken          \in [Consumers -> [Partitions -> 0..MaxPos]]
    /\ chan           \in [Consumers -> Brokers \cup {None}]
    /\ leaves         \in 0..MaxLeaves
    /\ \A c \in Consumers : \A i \in 1..Len(toC[c]) : toC[c][i] \in ToCMsgs
    /\ \A c \in Consumers : \A i \in 1..Len(toB[c]) : toB[c][i] \in ToBMsgs

\* DESIGN §7: the fetch intervals of different consumers never overlap.  The
\* model's "c fetches p" is p \in fetching[c], so: no partition is fetched by
\* two consumers at once.
ExclusiveOwnership ==
    \A c1, c2 \in Consumers : c1 # c2 => fetching[c1] \cap fetching[c2] = {}

\* DESIGN §7: a committed offset never decreases (history: no offset write
\* committed a value below the committed one).
OffsetsNeverGoBackwards ==
    ~offsetRegressed

\* DESIGN §7: ZooKeeper never holds a coordinator write (owners, generation,
\* offsets) whose epoch was stale when it committed; a committed offset never
\* decreases; offsets are written only for the partition's owner in the
\* current generation (the reporter of every committed offset write was the
\* owner recorded in ZooKeeper when it committed).
FencedWrites ==
    /\ ~staleWrite
    /\ OffsetsNeverGoBackwards
    /\ ~offsetForeign

\* Graceful handover (DESIGN §5; not in DESIGN §7): once the handover record
\* of epoch e is written, every offset the coordinator of e acknowledged (in
\* a Stop answer, or pending when the handover began) is committed: the next
\* coordinator starts every partition where its consumer stopped, so a
\* graceful handover re-delivers nothing (docs/consumer.md).  History:
\* checked when the record commits.
HandoverLosesNoOffset ==
    ~offsetLost

\* DESIGN §7: each epoch belongs to one broker; at most one broker acts with
\* the highest epoch, and it holds the election node.
OneCoordinatorPerEpoch ==
    /\ \A b1, b2 \in Brokers :
         (b1 # b2 /\ role[b1] # "FOLLOWER" /\ role[b2] # "FOLLOWER") => epoch[b1] # epoch[b2]
    /\ \A b \in Brokers : (role[b] # "FOLLOWER" /\ epoch[b] = zkEpoch) => coordNode \in {b, None}
    /\ \A b \in Brokers : role[b] # "FOLLOWER" => epoch[b] \in 1..zkEpoch

\* DESIGN §7: a consumer never applies a command whose epoch is below the
\* highest it has seen, nor a Start of a generation it was not stopped for.
\* As state: a fetching consumer fetches under the highest epoch it has seen
\* and in a generation ZooKeeper has recorded.
NoStaleCommandApplied ==
    \A c \in Consumers :
        cst[c] = "FETCHING" => /\ fetchEpoch[c] = cepoch[c]
                               /\ cgen[c] <= zkGen

\* DESIGN §7: Start(g+1) for a partition is sent only after its owner in g
\* acknowledged Stop(g) or its lease surely expired.  As state: while a
\* Start naming p is in flight to c, no other consumer fetches p.
BarrierSound ==
    \A c \in Consumers : \A i \in 1..Len(toC[c]) :
        toC[c][i].type = "Start" =>
            \A c2 \in Consumers \ {c} : toC[c][i].parts \cap fetching[c2] = {}

\* DESIGN §7: every subscribed partition has exactly one owning stream, only
\* subscribed streams own.  The coordinator's copy of the topic holds only
\* partitions that exist.  In a run past its write, the assignment (a function,
\* so at most one owner per partition) owns only partitions that exist; none
\* at all only when no member stopped; else every partition the coordinator
\* knows is owned by a member the run starts, except one it learned after the
\* write (a partition added while the run was in flight), which the next run
\* owes it: the trigger is RUNNING_DIRTY.
AssignmentWellFormed ==
    \A b \in Brokers :
        /\ topicView[b] \subseteq zkTopic
        /\ phase[b] \in {"WRITTEN", "STARTING"} =>
            /\ \A p \in Partitions : asg[b][p] # None => p \in zkTopic
            /\ \/ stopSet[b] = {} /\ asg[b] = NoOwners
               \/ \A p \in topicView[b] :
                     \/ asg[b][p] \in stopSet[b]
                     \/ asg[b][p] = None /\ trig[b] = "RUNNING_DIRTY"

-----------------------------------------------------------------------------
(* Liveness (DESIGN §7), under Fairness: weak fairness on every protocol and *)
(* recovery step (Tick, Resume, HealZk, the client hearing Expired, the core *)
(* handling it, election, the run, the consumers); none on the faults        *)
(* (Pause, CutZk, ZkExpireSession), which are bounded by counters; none on  *)
(* Leave (MaxLeaves = 0 in the liveness run) nor on BeginHandover (an       *)
(* operator's request, bounded by MaxHandovers).                           *)

\* Tick is strongly fair: time passes whenever it is not blocked forever.  A
\* handing-over coordinator holds the election node but answers Register with
\* NOT_COORDINATOR, and a consumer whose lease ran out rediscovers at once, so
\* with weak fairness TLC found a loop of rejected Registers in which time
\* never passes (Tick is disabled while the answer is in flight); a real
\* consumer retries with backoff, and the clock does not stop.
Fairness ==
    /\ SF_vars(TickStep({}, {b \in Brokers : paused[b]}))   \* time passes, and a paused broker resumes
    /\ \A b \in Brokers :
         /\ WF_vars(HealZk(b))
         /\ WF_vars(ZkClientExpired(b)) /\ WF_vars(HandleNewSession(b))
         /\ WF_vars(Elect(b)) /\ WF_vars(EndLeaseWait(b))
         /\ WF_vars(RunStart(b)) /\ WF_vars(WriteOwners(b)) /\ WF_vars(SendStarts(b)) /\ WF_vars(FinishRun(b))
         /\ WF_vars(HandOver(b)) /\ WF_vars(ZkAnswer(b)) /\ WF_vars(OnTopicChange(b))
         /\ \A c \in Consumers :
              /\ WF_vars(HandleRegister(b, c)) /\ WF_vars(RemoveFailed(b, c))
              /\ WF_vars(OnStopResponse(b, c)) /\ WF_vars(OnStartResponse(b, c))
              /\ WF_vars(OnHandoverStopped(b, c))
    /\ \A c \in Consumers : WF_vars(ConsumerStep(c))

LivenessSpec == Init /\ [][Next]_vars /\ Fairness

\* The coordinator that holds the election node and leads.
Leader(b) == role[b] = "LEADING" /\ coordNode = b /\ ~expiredPending[b]

\* EventualCoordinator: from some point on, one broker holds the node and leads.
EventualCoordinator == <>[](\E b \in Brokers : Leader(b))

\* Convergence: after the last fault the group reaches a generation in which
\* every partition is fetched by its owner in ZooKeeper, every consumer is a
\* member, and no run is owed.
Converged ==
    \E b \in Brokers :
        /\ Leader(b)
        /\ trig[b] = "IDLE" /\ phase[b] = "IDLE"
        /\ members[b] = Consumers /\ MayBeFailed(b) = {}
        /\ topicView[b] = zkTopic
        /\ \A p \in zkTopic :
              /\ zkOwners[p] \in Consumers
              /\ p \in fetching[zkOwners[p]]
              /\ cgen[zkOwners[p]] = zkGen
Convergence == <>[]Converged

\* NoLostTrigger: a queued or dirty trigger is run (or its coordinator stands down).
NoLostTrigger ==
    \A b \in Brokers :
        (trig[b] \in {"QUEUED", "RUNNING_DIRTY"}) ~> (trig[b] = "RUNNING" \/ role[b] = "FOLLOWER")

\* NoStuckRebalance: every run ends.
NoStuckRebalance ==
    \A b \in Brokers : (phase[b] # "IDLE") ~> (phase[b] = "IDLE")

\* ExpiredCoordinatorStandsDown: a coordinator whose epoch was superseded (its
\* session expired, another broker won) stops acting.
ExpiredCoordinatorStandsDown ==
    \A b \in Brokers :
        (role[b] # "FOLLOWER" /\ epoch[b] < zkEpoch) ~> (role[b] = "FOLLOWER")

-----------------------------------------------------------------------------
\* Consistency of the model itself (not in DESIGN §7).
LeaseConsistent ==
    \A c \in Consumers : (cst[c] \in Leased) <=> (lease[c] >= 1)

\* The coordinator's timer of a consumer that is not its member is at Cap
\* (never read until the consumer registers, which sets it: kept canonical so
\* that dead values do not split states).
TimersCanonical ==
    \A b \in Brokers : \A c \in Consumers : c \notin members[b] => sinceSent[b][c] = Cap
=============================================================================
