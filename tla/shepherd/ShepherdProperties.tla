------------------------- MODULE ShepherdProperties -------------------------
(***************************************************************************)
(* Shepherd: invariants and temporal properties, with the DESIGN §7 names  *)
(* (the same names as the simulation's InvariantChecker).                  *)
(***************************************************************************)
EXTENDS ShepherdActions

ToCMsgs == [type : ToConsumerTypes, epoch : 0..MaxEpoch, gen : 0..MaxGen,
            parts : SUBSET Partitions, age : 0..MaxDelay]
ToBMsgs == [type : ToBrokerTypes, epoch : 0..MaxEpoch, gen : 0..MaxGen]

TypeOK ==
    /\ zkAlive        \in [Brokers -> BOOLEAN]
    /\ coordNode      \in Brokers \cup {None}
    /\ zkEpoch        \in 0..MaxEpoch
    /\ zkGen          \in 0..MaxGen
    /\ zkOwners       \in [Partitions -> Consumers \cup {None}]
    /\ staleWrite     \in BOOLEAN
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
    /\ failed         \in [Brokers -> SUBSET Consumers]
    /\ sinceSent      \in [Brokers -> [Consumers -> 0..Cap]]
    /\ trig           \in [Brokers -> TriggerStates]
    /\ phase          \in [Brokers -> Phases]
    /\ runGen         \in [Brokers -> 0..MaxGen]
    /\ stopSet        \in [Brokers -> SUBSET Consumers]
    /\ acked          \in [Brokers -> SUBSET Consumers]
    /\ asg            \in [Brokers -> [Partitions -> Consumers \cup {None}]]
    /\ cst            \in [Consumers -> ConsumerStates]
    /\ cgen           \in [Consumers -> 0..MaxGen]
    /\ cepoch         \in [Consumers -> 0..MaxEpoch]
    /\ fetchEpoch     \in [Consumers -> 0..MaxEpoch]
    /\ lease          \in [Consumers -> 0..Lease]
    /\ fetching       \in [Consumers -> SUBSET Partitions]
    /\ chan           \in [Consumers -> Brokers \cup {None}]
    /\ leaves         \in 0..MaxLeaves
    /\ \A c \in Consumers : \A i \in 1..Len(toC[c]) : toC[c][i] \in ToCMsgs
    /\ \A c \in Consumers : \A i \in 1..Len(toB[c]) : toB[c][i] \in ToBMsgs

\* DESIGN §7: the fetch intervals of different consumers never overlap.  The
\* model's "c fetches p" is p \in fetching[c], so: no partition is fetched by
\* two consumers at once.
ExclusiveOwnership ==
    \A c1, c2 \in Consumers : c1 # c2 => fetching[c1] \cap fetching[c2] = {}

\* DESIGN §7: ZooKeeper never holds a coordinator write whose epoch was stale
\* when it committed; owners are members of the generation written.
\* (Offsets are not modelled yet: "never decreases" and "only the owner's"
\* are not checked.)
FencedWrites ==
    /\ ~staleWrite

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
\* subscribed streams own: in ZooKeeper (a function, so at most one owner) the
\* owner of p is a consumer or none only when no member stopped; in a run
\* past its write, every partition is owned by a member it starts.
AssignmentWellFormed ==
    \A b \in Brokers :
        phase[b] \in {"WRITTEN", "STARTING"} =>
            \/ stopSet[b] = {} /\ asg[b] = NoOwners
            \/ \A p \in Partitions : asg[b][p] \in stopSet[b]

-----------------------------------------------------------------------------
(* Liveness (DESIGN §7), under Fairness: weak fairness on every protocol and *)
(* recovery step (Tick, Resume, HealZk, the client hearing Expired, the core *)
(* handling it, election, the run, the consumers); none on the faults        *)
(* (Pause, CutZk, ZkExpireSession), which are bounded by counters; none on  *)
(* Leave (MaxLeaves = 0 in the liveness run).                              *)

Fairness ==
    /\ WF_vars(Tick)
    /\ \A b \in Brokers :
         /\ WF_vars(Resume(b)) /\ WF_vars(HealZk(b))
         /\ WF_vars(ZkClientExpired(b)) /\ WF_vars(HandleNewSession(b))
         /\ WF_vars(Elect(b)) /\ WF_vars(EndLeaseWait(b))
         /\ WF_vars(RunStart(b)) /\ WF_vars(WriteOwners(b)) /\ WF_vars(SendStarts(b)) /\ WF_vars(FinishRun(b))
         /\ \A c \in Consumers :
              /\ WF_vars(HandleRegister(b, c)) /\ WF_vars(DeclareFailed(b, c)) /\ WF_vars(RemoveFailed(b, c))
              /\ WF_vars(OnStopResponse(b, c)) /\ WF_vars(OnStartResponse(b, c))
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
        /\ members[b] = Consumers /\ failed[b] = {}
        /\ \A p \in Partitions :
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
=============================================================================
