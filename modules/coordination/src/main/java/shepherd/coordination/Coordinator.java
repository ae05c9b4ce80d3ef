package shepherd.coordination;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.CoordinatorEffect.CancelAllTimers;
import shepherd.coordination.CoordinatorEffect.CancelTimer;
import shepherd.coordination.CoordinatorEffect.CloseConnection;
import shepherd.coordination.CoordinatorEffect.Notice;
import shepherd.coordination.CoordinatorEffect.Read;
import shepherd.coordination.CoordinatorEffect.Respond;
import shepherd.coordination.CoordinatorEffect.SendRequest;
import shepherd.coordination.CoordinatorEffect.SetTimer;
import shepherd.coordination.CoordinatorEvent.BrokersChanged;
import shepherd.coordination.CoordinatorEvent.ConnectionClosed;
import shepherd.coordination.CoordinatorEvent.ConnectionPeer;
import shepherd.coordination.CoordinatorEvent.ElectionWon;
import shepherd.coordination.CoordinatorEvent.GroupMemberChange;
import shepherd.coordination.CoordinatorEvent.GroupRead;
import shepherd.coordination.CoordinatorEvent.GroupsRead;
import shepherd.coordination.CoordinatorEvent.LeaderObserved;
import shepherd.coordination.CoordinatorEvent.RequestReceived;
import shepherd.coordination.CoordinatorEvent.ResponseReceived;
import shepherd.coordination.CoordinatorEvent.TimerFired;
import shepherd.coordination.CoordinatorEvent.TopicPartitionChange;
import shepherd.coordination.CoordinatorEvent.TopicRead;
import shepherd.coordination.CoordinatorEvent.TopicsRead;
import shepherd.coordination.CoordinatorEvent.ZkReadFailed;
import shepherd.coordination.CoordinatorEvent.ZkWriteDone;
import shepherd.coordination.CoordinatorEvent.ZkWriteFailed;
import shepherd.coordination.CoordinatorEvent.ZkWriteFenced;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.ApiKey;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.DescribeGroupsRequest;
import shepherd.protocol.DescribeGroupsResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.GroupDescription;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.MemberDescription;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionDescription;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.Responses;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;

/**
 * The coordinator: the seed's {@code coordinatorStartup}, {@code handleNewSession}, four listeners, "try to request
 * rebalance" and {@code rebalance(group)}, with DESIGN §5–§6's fencing, leases and barrier, as one sans-I/O state
 * machine. {@link #onEvent} takes an event and the time, changes the state and returns the effects for the runtime
 * to execute; it never reads a clock, starts a thread or touches a socket or ZooKeeper.
 *
 * <h2>How the safety argument maps onto the code</h2>
 * <ul>
 *   <li><b>Fenced writes</b> ({@link WritePipeline}): every write is one multi led by {@code check(/consumers/epoch)};
 *       a failed check stands us down ({@link #standDown}).</li>
 *   <li><b>Commanding needs a live session</b> ({@link #canCommand}): no Ping, Stop or Start leaves unless ZooKeeper
 *       answered a request sent less than {@code sessionTimeout × (1 − ρ) − margin} ago, and never while
 *       disconnected: a paused coordinator that wakes up cannot command with a session that may be gone (D5).</li>
 *   <li><b>Barrier</b> ({@link Run}): Start(g+1) leaves only after every participant acknowledged Stop(g), and after
 *       the lease of every member we could not stop is surely over ({@link GroupState#fencedUntil}); a lease counts
 *       from our last grant (RegisterResponse, Ping or Start), stretched by D, ρ and the margin.</li>
 *   <li><b>Post-election lease wait</b> (D4): the members a new epoch finds in ZooKeeper are fenced until the leases
 *       the previous epoch could have granted are over; re-registrations during the wait are batched into one run
 *       per group at its end (D9); members that did not return are removed.</li>
 *   <li><b>Offsets</b> ({@link #acceptOffsets}): only from the owner in the current generation, only forwards, only
 *       through fenced writes, and an OffsetCommit is answered only once its write committed (D10). The one way
 *       down is an operator's reset of an empty group, re-read before the group's next Start ({@link
 *       #reloadOffsets}).</li>
 * </ul>
 *
 * <p>State is mutated in place inside one call (a coordinator holds thousands of members; copying it per event
 * would cost more than the rest), but only here, and every effect of a call is returned together.
 */
public final class Coordinator {

    /** Where the coordinator stands in its epoch. */
    public enum Role {
        /** Not coordinator (running for election, or another broker holds it). */
        FOLLOWER,
        /** Won; reading topics and groups. Registrations get COORDINATOR_NOT_READY. */
        LOADING,
        /** Loaded; waiting out the previous epoch's leases. Registrations are accepted, no Start leaves. */
        LEASE_WAIT,
        ACTIVE,
        /** Graceful handover: stopping every group. */
        HANDING_OVER,
        /** Handed over, or the broker is shutting down. */
        CLOSED
    }

    /** The offset a Start carries for a partition without a committed offset: apply auto_offset_reset. */
    public static final long OFFSET_NONE = -1;

    private record Pending(String group, String consumerId, ApiKey kind, int generation) {}

    private final CoordinatorConfig config;
    private final Set<Defect> defects;

    private Role role = Role.FOLLOWER;
    private int epoch = -1;
    private long wonAtMs;
    private boolean previousHandedOver;
    private boolean zkConnected = true;
    private long lastZkAckMs = Long.MIN_VALUE;
    private int leaderId = ConsultResponse.NONE;
    private int leaderEpoch = ConsultResponse.NONE;
    private List<BrokerInfo> brokers = List.of();

    private final TreeMap<String, List<PartitionId>> topics = new TreeMap<>();
    private boolean topicsLoaded;
    private boolean groupsListed;
    private final Set<String> groupReadsPending = new TreeSet<>();
    /** Group reads issued and not answered yet (answer or failure), per group: see {@link #reloadOffsets}. */
    private final Map<String, Integer> groupReadsOutstanding = new TreeMap<>();
    private final Set<ZkRead> failedReads = new LinkedHashSet<>();
    private final TreeMap<String, GroupState> groups = new TreeMap<>();
    /**
     * Groups whose removal of a member is held for the owners multi of the run it starts ({@link #removeMember}):
     * flushed at the end of the step in which that run stops being about to write owners without having written them.
     */
    private final Set<GroupState> heldForOwners = new LinkedHashSet<>();
    private final WritePipeline writes = new WritePipeline(new WritePipeline.Host() {
        @Override
        public void emit(CoordinatorEffect effect) {
            Coordinator.this.emit(effect);
        }

        @Override
        public int epoch() {
            return epoch;
        }

        @Override
        public boolean fenced() {
            return !defects.contains(Defect.NO_FENCING);
        }

        @Override
        public void readBack(GroupState g) {
            read(new ZkRead.Group(g.id));
        }

        @Override
        public long nowMs() {
            return now;
        }
    });
    private final Map<Long, String[]> connections = new HashMap<>();
    /**
     * The peer of every open connection the runtime told us about, member's or not ({@link ConnectionPeer}): a
     * connection may Consult first and Register later. Forgotten on {@link ConnectionClosed}, so it is bounded by the
     * runtime's open connections; kept across {@link #reset}, because a connection outlives an epoch (a consumer that
     * only consulted stays connected) and its address does not change.
     */
    private final Map<Long, String> peers = new HashMap<>();
    private final Map<Long, Pending> requests = new HashMap<>();
    private final Map<Long, String[]> handoverAwaiting = new HashMap<>();
    /**
     * Registrations that arrived while the tree was loading, in arrival order: answered once it is loaded rather
     * than refused with COORDINATOR_NOT_READY, which would send each consumer into a growing discovery backoff just
     * as its group could take it (after a handover every member comes back within the loading). Dropped with their
     * connection and on reset; at most one per connection in practice, as a consumer waits for its answer.
     */
    private final List<ParkedRegister> parkedRegisters = new ArrayList<>();
    private long nextRequestId = 1;

    private record ParkedRegister(long connectionId, int correlationId, RegisterRequest request) {}

    /**
     * Handed over, the members' connections still open until the next coordinator is known (or a bound passes):
     * closed earlier, the members would rediscover while no broker can name a coordinator and back off. Null when
     * not lingering.
     */
    private List<Long> lingering;

    private List<CoordinatorEffect> out;
    private long now;

    public Coordinator(CoordinatorConfig config) {
        this(config, EnumSet.noneOf(Defect.class));
    }

    /** A coordinator with seed defects switched back on: negative controls of the simulation only. */
    public Coordinator(CoordinatorConfig config, Set<Defect> defects) {
        this.config = config;
        this.defects = defects.isEmpty() ? EnumSet.noneOf(Defect.class) : EnumSet.copyOf(defects);
    }

    // ================================================================== the one switch

    public List<CoordinatorEffect> onEvent(CoordinatorEvent event, long nowMs) {
        out = new ArrayList<>();
        now = nowMs;
        if (event instanceof CoordinatorEvent.SessionProof proof) {
            lastZkAckMs = Math.max(lastZkAckMs, proof.sentAtMs()); // the session surely lived when it left
        }
        if (event instanceof CoordinatorEvent.Boot) {
            // coordinatorStartup begins by running for election; the reads follow the win.
            emit(new CoordinatorEffect.RunForElection());
        } else if (event instanceof ElectionWon won) {
            // Election + epoch bump, atomic in the adapter; then coordinatorStartup steps 1–6.
            onElectionWon(won);
        } else if (event instanceof LeaderObserved seen) {
            // Someone else coordinates: remember it for Consult answers.
            leaderId = seen.brokerId();
            leaderEpoch = seen.epoch();
            if (lingering != null && seen.epoch() > epoch) {
                endLinger();
            }
        } else if (event instanceof BrokersChanged changed) {
            brokers = changed.brokers();
        } else if (event instanceof CoordinatorEvent.ZkDisconnected) {
            // DESIGN §5: stop commanding at once (canCommand reads zkConnected); keep every state.
            zkConnected = false;
        } else if (event instanceof CoordinatorEvent.ZkSyncConnected) {
            // Same session back: resume without a reset.
            zkConnected = true;
            retryZk();
            drainQueue();
        } else if (event instanceof CoordinatorEvent.ZkExpired) {
            // handleNewSession: full reset, re-arm, run for election again — unless we are shutting down: the
            // expiry has already removed our election node, which is all a handover has left to do.
            boolean closing = role == Role.HANDING_OVER || role == Role.CLOSED;
            reset("ZooKeeper session expired");
            if (closing) {
                role = Role.CLOSED;
                emit(new CoordinatorEffect.HandedOver(epoch));
            } else {
                emit(new CoordinatorEffect.RunForElection());
            }
        } else if (event instanceof CoordinatorEvent.ZkSynced) {
            drainQueue();
        } else if (event instanceof TopicsRead read) {
            onTopicsRead(read.partitionsByTopic());
        } else if (event instanceof TopicRead read) {
            onTopicRead(read.topic(), read.partitions());
        } else if (event instanceof GroupsRead read) {
            onGroupsRead(read.groups());
        } else if (event instanceof GroupRead read) {
            onGroupRead(read.group(), read.snapshot());
        } else if (event instanceof CoordinatorEvent.MembersRead read) {
            onMembersRead(read.group());
        } else if (event instanceof ZkReadFailed failed) {
            onReadFailed(failed);
        } else if (event instanceof CoordinatorEvent.TopicChange) {
            // Seed TopicChangeListener: re-read the topics (re-arming the watch); step 2 happens on the result.
            readIfLeader(new ZkRead.Topics());
        } else if (event instanceof TopicPartitionChange change) {
            // Seed TopicPartitionChangeListener.
            readIfLeader(new ZkRead.Topic(change.topic()));
        } else if (event instanceof CoordinatorEvent.GroupChange) {
            // Seed GroupChangeListener: re-read the group list; new groups are read on the result.
            readIfLeader(new ZkRead.Groups());
        } else if (event instanceof GroupMemberChange change) {
            // Seed GroupMemberChangeListener: we write the ids ourselves, so the change is ours or an operator's;
            // re-arm the watch (reading the member list only) and let the necessity check decide.
            onGroupMemberChange(change.group());
        } else if (event instanceof ZkWriteDone done) {
            writes.finished(done.writeId(), true);
        } else if (event instanceof ZkWriteFenced fenced) {
            standDown("a write failed its epoch check: epoch " + epoch + " is no longer current");
        } else if (event instanceof ZkWriteFailed failed) {
            writes.failed(failed);
            if (failed.unknownOutcome()) {
                emit(new SetTimer(new CoordinatorTimer.ZkRetry(), now + config.zkRetryMs()));
            }
        } else if (event instanceof RequestReceived received) {
            onRequest(received.connectionId(), received.correlationId(), received.request());
        } else if (event instanceof ResponseReceived received) {
            onResponse(received.connectionId(), received.requestId(), received.response());
        } else if (event instanceof ConnectionPeer peer) {
            // Where a connection comes from: only reported, never decided on.
            peers.put(peer.connectionId(), peer.peer());
        } else if (event instanceof ConnectionClosed closed) {
            peers.remove(closed.connectionId());
            parkedRegisters.removeIf(p -> p.connectionId() == closed.connectionId());
            if (lingering != null) {
                lingering.remove(closed.connectionId());
            }
            onConnectionClosed(closed.connectionId());
        } else if (event instanceof TimerFired fired) {
            onTimer(fired.timer());
        } else if (event instanceof CoordinatorEvent.HandoverRequested) {
            beginHandover();
        } else {
            throw new IllegalStateException("unhandled event " + event);
        }
        releaseHeldWrites();
        List<CoordinatorEffect> effects = out;
        out = null;
        return effects;
    }

    // ================================================================== views for runtimes, tests and checkers

    public Role role() {
        return role;
    }

    public int epoch() {
        return epoch;
    }

    public boolean isCoordinator() {
        return role != Role.FOLLOWER && role != Role.CLOSED;
    }

    /** The live-session bound of DESIGN §5 at {@code nowMs}. */
    public boolean canCommandAt(long nowMs) {
        return isCoordinator() && (defects.contains(Defect.NO_FENCING)
                || zkConnected && nowMs < config.commandableUntilMs(lastZkAckMs));
    }

    public SortedMap<String, GroupView> groups() {
        TreeMap<String, GroupView> views = new TreeMap<>();
        groups.forEach((id, g) -> views.put(id, GroupView.of(g)));
        return views;
    }

    public Optional<GroupView> group(String groupId) {
        return Optional.ofNullable(groups.get(groupId)).map(GroupView::of);
    }

    /**
     * The group's generation, or −1 if there is no such group. Unlike {@link #group} it copies nothing: a runtime
     * may ask it after every event for every group with a run in flight (a failover runs all of them at once).
     */
    public int generationOf(String groupId) {
        GroupState g = groups.get(groupId);
        return g == null ? -1 : g.generation;
    }

    /** Whether a run of the group is in flight (false if there is no such group); copies nothing, as above. */
    public boolean runningOf(String groupId) {
        GroupState g = groups.get(groupId);
        return g != null && g.run != null;
    }

    /** {@link GroupView#stable()} of the group (false if there is no such group); copies nothing, as above. */
    public boolean stableOf(String groupId) {
        GroupState g = groups.get(groupId);
        return g != null && g.stable();
    }

    /** The group's members (empty if there is no such group): a copy of their ids only, not of the group. */
    public SortedSet<String> membersOf(String groupId) {
        GroupState g = groups.get(groupId);
        return g == null ? Collections.emptySortedSet()
                : Collections.unmodifiableSortedSet(new TreeSet<>(g.members.keySet()));
    }

    /** How many partitions the group's owners record (0 if there is no such group); copies nothing. */
    public int ownedPartitionsOf(String groupId) {
        GroupState g = groups.get(groupId);
        return g == null ? 0 : g.owners.size();
    }

    // ================================================================== election, session, reset

    private void onElectionWon(ElectionWon won) {
        throwIfEpochDidNotGrow(won.epoch());
        reset(null);
        role = Role.LOADING;
        epoch = won.epoch();
        wonAtMs = now;
        previousHandedOver = won.previousHandedOver();
        leaderId = config.brokerId();
        leaderEpoch = epoch;
        zkConnected = true;
        // coordinatorStartup 1, 2, 3.x, 4.x: read topics and groups; each read arms its listener's watch.
        read(new ZkRead.Topics());
        read(new ZkRead.Groups());
        // Step 5 is the adapter's (it re-arms the session listener itself, D7); keep the session bound fresh.
        emit(new SetTimer(new CoordinatorTimer.KeepAlive(), now + config.keepAliveIntervalMs()));
    }

    /**
     * Each win bumps {@code /consumers/epoch}, so a smaller or equal epoch means the adapter broke the election. The
     * one allowed exception: without fencing (the negative control) the winner takes the version unbumped, so a
     * broker that wins again after its session expired, with nobody winning in between, gets the same epoch.
     */
    private void throwIfEpochDidNotGrow(int won) {
        if (won < epoch || won == epoch && !defects.contains(Defect.NO_FENCING)) {
            throw new IllegalStateException("epoch must grow: won " + won + " after " + epoch);
        }
    }

    /**
     * handleNewSession step 1: forget everything of the epoch. Consumers on our connections are told by the close:
     * they rediscover and find the next coordinator.
     */
    private void reset(String why) {
        if (why != null && isCoordinator()) {
            emit(new Notice("standing down as coordinator of epoch " + epoch + ": " + why));
        }
        for (long connectionId : new TreeSet<>(connections.keySet())) {
            emit(new CloseConnection(connectionId));
        }
        if (lingering != null) {
            lingering.forEach(id -> emit(new CloseConnection(id)));
            lingering = null;
        }
        emit(new CancelAllTimers());
        role = Role.FOLLOWER;
        topics.clear();
        topicsLoaded = false;
        groupsListed = false;
        groupReadsPending.clear();
        groupReadsOutstanding.clear();
        failedReads.clear();
        groups.clear();
        writes.clear();
        heldForOwners.clear();
        connections.clear();
        requests.clear();
        handoverAwaiting.clear();
        refuseParkedRegisters();
        leaderId = ConsultResponse.NONE;
        leaderEpoch = ConsultResponse.NONE;
    }

    /**
     * Leaving LOADING other than by finishing it: the registrations held for its end are refused now, as they would
     * have been on arrival, so their consumers rediscover instead of waiting for an answer that would never come.
     */
    private void refuseParkedRegisters() {
        for (ParkedRegister p : parkedRegisters) {
            respond(p.connectionId(), p.correlationId(), new RegisterResponse(ErrorCode.NOT_COORDINATOR, epoch,
                    p.request().consumerId()));
        }
        parkedRegisters.clear();
    }

    /** A fenced write proved a newer epoch: stop at once, then run again like handleNewSession. */
    private void standDown(String why) {
        boolean handingOver = role == Role.HANDING_OVER;
        reset(why);
        if (handingOver) {
            role = Role.CLOSED;
            emit(new CoordinatorEffect.Resign(false));
            emit(new CoordinatorEffect.HandedOver(epoch));
            return;
        }
        emit(new CoordinatorEffect.Resign(true));
    }

    private boolean canCommand() {
        return canCommandAt(now);
    }

    // ================================================================== metadata reads (the seed's listeners)

    private void read(ZkRead read) {
        if (read instanceof ZkRead.Group g) {
            groupReadsPending.add(g.group());
            groupReadsOutstanding.merge(g.group(), 1, Integer::sum);
        }
        emit(new Read(read));
    }

    /** A group read was answered or failed: one fewer outstanding. */
    private void groupReadAnswered(String group) {
        groupReadsOutstanding.computeIfPresent(group, (name, n) -> n > 1 ? n - 1 : null);
    }

    private void readIfLeader(ZkRead read) {
        if (isCoordinator()) {
            read(read);
        }
    }

    private void onReadFailed(ZkReadFailed failed) {
        if (!isCoordinator()) {
            return;
        }
        failedReads.add(failed.read());
        emit(new SetTimer(new CoordinatorTimer.ZkRetry(), now + config.zkRetryMs()));
        if (failed.read() instanceof ZkRead.Group read) {
            groupReadAnswered(read.group());
            GroupState g = groups.get(read.group());
            if (g != null) {
                reloadOffsets(g); // it may have waited for this read to be out of the way
            }
        }
    }

    private void retryZk() {
        if (!isCoordinator()) {
            return;
        }
        List<ZkRead> reads = new ArrayList<>(failedReads);
        failedReads.clear();
        reads.forEach(this::read);
        writes.retry();
    }

    /** TopicChangeListener step 2 / TopicPartitionChangeListener: every interested group, wildcard or not. */
    private void onTopicsRead(Map<String, List<PartitionId>> partitionsByTopic) {
        if (!isCoordinator()) {
            return;
        }
        Set<String> changed = new TreeSet<>();
        for (String topic : union(topics.keySet(), partitionsByTopic.keySet())) {
            List<PartitionId> now = sorted(partitionsByTopic.getOrDefault(topic, List.of()));
            if (!now.equals(topics.getOrDefault(topic, List.of()))) {
                changed.add(topic);
            }
        }
        topics.clear();
        partitionsByTopic.forEach((topic, partitions) -> topics.put(topic, sorted(partitions)));
        topicsLoaded = true;
        topicsChanged(changed);
        maybeLoaded();
    }

    private void onTopicRead(String topic, List<PartitionId> partitions) {
        if (!isCoordinator()) {
            return;
        }
        List<PartitionId> next = sorted(partitions);
        if (next.equals(topics.getOrDefault(topic, List.of()))) {
            return;
        }
        if (next.isEmpty()) {
            topics.remove(topic); // D12: a vanished topic; check 3.3 drops its owners
        } else {
            topics.put(topic, next);
        }
        topicsChanged(Set.of(topic));
    }

    private void topicsChanged(Set<String> changed) {
        for (GroupState g : groups.values()) {
            boolean interested = g.members.values().stream().anyMatch(m -> changed.stream()
                    .anyMatch(t -> Subscriptions.interestedIn(m.registration.subscription(), t)));
            boolean owned = g.owners.keySet().stream().anyMatch(tp -> changed.contains(tp.topic()));
            if (interested || owned) {
                requestRebalance(g);
            }
        }
    }

    /** GroupChangeListener steps 1–2: read each group we do not know yet. */
    private void onGroupsRead(List<String> names) {
        if (!isCoordinator()) {
            return;
        }
        for (String name : names) {
            if (!groups.containsKey(name) && !groupReadsPending.contains(name)) {
                if (Subscriptions.invalidId("group", name).isPresent()) {
                    emit(new Notice("skipping group znode with an invalid name '" + name + "'"));
                    continue;
                }
                read(new ZkRead.Group(name));
            }
        }
        groupsListed = true;
        maybeLoaded();
    }

    /**
     * The assignor of a group found in ZooKeeper: the one an operator configured for it, else the one its node
     * records. A configured one that differs is used from now on and written with the group's next generation; the
     * necessity check then rebalances the group if the new assignor moves anything.
     */
    private String assignorOf(String group, String recorded) {
        Optional<String> configured = config.assignors().override(group);
        if (configured.isEmpty() || configured.get().equals(recorded)) {
            return recorded;
        }
        emit(new Notice("group '" + group + "': assignor '" + configured.get() + "' configured, '" + recorded
                + "' recorded: using '" + configured.get() + "'"));
        return configured.get();
    }

    /**
     * GroupChangeListener steps 3–5, for a group found in ZooKeeper. Its recorded members are not confirmed: they
     * were registered with an earlier epoch, which may still have granted them a lease; they are fenced until that
     * lease is surely over (DESIGN §5, post-election lease wait).
     */
    private void onGroupRead(String name, GroupSnapshot snapshot) {
        if (!isCoordinator()) {
            return;
        }
        groupReadsPending.remove(name);
        groupReadAnswered(name);
        GroupState known = groups.get(name);
        if (known != null) {
            boolean reloaded = known.offsetsStale && known.reloadIssued;
            if (reloaded) {
                adoptOffsets(known, snapshot);
            }
            if (known.resolving) {
                writes.resolve(known, snapshot);
            } else {
                requestRebalance(known); // a re-read after a member change: the necessity check decides
            }
            if (reloaded) {
                drain(known); // the run it held back (requestRebalance leaves a QUEUED group alone)
            } else {
                reloadOffsets(known); // it may have waited for this read to be out of the way
            }
            return;
        }
        GroupState g = new GroupState(name, assignorOf(name, snapshot.assignor()));
        g.generation = snapshot.generation();
        g.owners = new TreeMap<>(snapshot.owners());
        g.offsets.putAll(snapshot.offsets());
        long since = role == Role.LOADING ? wonAtMs : now;
        snapshot.registrations().forEach((consumerId, registration) -> {
            Optional<String> invalid = Subscriptions.invalid(name, consumerId, registration);
            if (invalid.isPresent()) {
                // Written by an older version or by hand: skip it, say so once, disturb nothing else. The member
                // will be told INVALID_REGISTRATION if it registers with it again.
                emit(new Notice("group '" + name + "': skipping the recorded registration of '" + consumerId + "': "
                        + invalid.get()));
                return;
            }
            g.members.put(consumerId, new Member(consumerId, registration));
            if (!defects.contains(Defect.NO_LEASE_WAIT) && !previousHandedOver) {
                g.fencedUntil.put(consumerId, config.leaseSurelyOverMs(since, registration.leaseMs()));
            }
        });
        g.offsetsStale = g.members.isEmpty(); // nobody holds the group: an operator may reset it before one joins
        groups.put(name, g);
        if (role == Role.LOADING) {
            g.trigger = g.trigger.transitionTo(TriggerState.QUEUED); // seed 2.3, batched after the wait (D9)
        } else {
            requestRebalance(g);
        }
        maybeLoaded();
    }

    /**
     * The ids of a group we hold changed — nearly always by our own registration or removal, already acted on. The
     * watch must be re-armed, and the member list is all that re-arming needs: the mirror of owners, offsets and
     * generation is ours (fenced writes), and an operator's offsets reset is picked up by {@link #reloadOffsets}'s
     * own group read. So one children read, not the whole subtree (O(members + partitions) requests), which would
     * compete with the rebalance this very change started for the same ZooKeeper session. A pending group read
     * re-arms the watch itself.
     */
    private void onGroupMemberChange(String group) {
        GroupState g = groups.get(group);
        if (isCoordinator() && g != null && !groupReadsPending.contains(group)) {
            read(new ZkRead.Members(group));
        }
    }

    /** The member list after a member change: as the whole re-read did, the necessity check decides. */
    private void onMembersRead(String group) {
        GroupState g = groups.get(group);
        if (isCoordinator() && g != null) {
            requestRebalance(g);
        }
    }

    /** All reads of coordinatorStartup answered: begin the post-election lease wait. */
    private void maybeLoaded() {
        if (role != Role.LOADING || !topicsLoaded || !groupsListed || !groupReadsPending.isEmpty()) {
            return;
        }
        role = Role.LEASE_WAIT;
        long endMs = now;
        if (previousHandedOver) {
            endMs = now + config.handoverGraceMs(); // nobody fetches; give the members time to come back
        } else if (!defects.contains(Defect.NO_LEASE_WAIT)) {
            for (GroupState g : groups.values()) {
                endMs = Math.max(endMs, g.fencedUntilMax());
            }
        }
        emit(new SetTimer(new CoordinatorTimer.LeaseWaitOver(), endMs));
        List<ParkedRegister> parked = List.copyOf(parkedRegisters);
        parkedRegisters.clear();
        parked.forEach(p -> onRegister(p.connectionId(), p.correlationId(), p.request()));
        endHandoverGraceIfEveryoneIsBack(); // nobody recorded, or everyone came back while we loaded
    }

    /**
     * After a clean handover nobody fetches, so the wait is only a grace for the recorded members to come back
     * (DESIGN §9: a graceful handover should leave every group stable within 200 ms). Once every one of them has
     * registered again and been answered, there is nothing left to wait for.
     */
    private void endHandoverGraceIfEveryoneIsBack() {
        if (role != Role.LEASE_WAIT || !previousHandedOver) {
            return;
        }
        for (GroupState g : groups.values()) {
            for (Member m : g.members.values()) {
                if (!m.confirmed || m.grantSentMs == Member.NEVER) {
                    return;
                }
            }
        }
        emit(new CancelTimer(new CoordinatorTimer.LeaseWaitOver()));
        onLeaseWaitOver();
    }

    /** End of the lease wait: remove the members that did not return, then one run per group (D9). */
    private void onLeaseWaitOver() {
        if (role != Role.LEASE_WAIT) {
            return;
        }
        role = Role.ACTIVE;
        for (GroupState g : groups.values()) {
            for (Member m : new ArrayList<>(g.members.values())) {
                if (!m.confirmed) {
                    removeMember(g, m, "did not re-register after the election of epoch " + epoch);
                }
            }
            if (g.trigger == TriggerState.IDLE) {
                g.trigger = g.trigger.transitionTo(TriggerState.QUEUED);
            }
        }
        drainQueue();
    }

    // ================================================================== consumer requests

    private void onRequest(long connectionId, int correlationId, Request request) {
        if (request instanceof ConsultRequest) {
            respond(connectionId, correlationId, consult());
        } else if (request instanceof RegisterRequest register) {
            onRegister(connectionId, correlationId, register);
        } else if (request instanceof OffsetCommitRequest commit) {
            onOffsetCommit(connectionId, correlationId, commit);
        } else if (request instanceof LeaveRequest leave) {
            onLeave(connectionId, correlationId, leave);
        } else if (request instanceof DescribeGroupsRequest describe) {
            respond(connectionId, correlationId, describeGroups(describe));
        } else {
            // Ping, Stop and Start are ours to send; a consumer sending one is confused.
            emit(new Notice("connection " + connectionId + " sent " + request.apiKey() + ", which only a coordinator sends"));
            respond(connectionId, correlationId, Responses.errorResponse(request.apiKey(), ErrorCode.INVALID_REQUEST));
        }
    }

    private ConsultResponse consult() {
        if (isCoordinator()) {
            return new ConsultResponse(ErrorCode.NONE, config.brokerId(), epoch, brokers);
        }
        return new ConsultResponse(ErrorCode.NONE, leaderId, leaderEpoch, brokers);
    }

    /**
     * DescribeGroups: the groups as this coordinator holds them, read-only (no write, no membership, the asking
     * connection stays nobody's). Only the serving coordinator answers: a follower's picture of a group would be
     * ZooKeeper's without the members' pings and the run in progress. Its NOT_COORDINATOR names the coordinator it
     * knows of, as Consult would, so a client can go there directly.
     */
    private DescribeGroupsResponse describeGroups(DescribeGroupsRequest r) {
        Optional<ErrorCode> notNow = notServing(-1);
        if (notNow.isPresent()) {
            ConsultResponse known = consult();
            return new DescribeGroupsResponse(notNow.get(), known.coordinatorId(), known.coordinatorEpoch(), List.of());
        }
        Collection<String> ids = r.groupIds().isEmpty() ? groups.keySet() : r.groupIds();
        List<GroupDescription> described = new ArrayList<>(ids.size());
        for (String id : ids) {
            GroupState g = groups.get(id);
            described.add(g == null ? GroupDescription.unknown(id) : describe(g));
        }
        return new DescribeGroupsResponse(ErrorCode.NONE, config.brokerId(), epoch, described);
    }

    /**
     * One group: its members with the peer of their current connection (none when disconnected or not told) and
     * their last Ping answer's age by our clock, and every partition it owns or has an offset for (the mirror of
     * ZooKeeper: committed values, not reports still being written).
     */
    private GroupDescription describe(GroupState g) {
        String state = g.run == null ? g.trigger.name() : g.trigger.name() + "/" + g.run.phase.name();
        List<MemberDescription> members = new ArrayList<>(g.members.size());
        for (Member m : g.members.values()) {
            long ageMs = m.pingAnsweredMs == Member.NEVER ? MemberDescription.NEVER
                    : Math.max(0, now - m.pingAnsweredMs);
            String host = m.connected() ? peers.getOrDefault(m.connectionId, MemberDescription.HOST_UNKNOWN)
                    : MemberDescription.HOST_UNKNOWN;
            members.add(new MemberDescription(m.consumerId, host, m.registration.subscription(),
                    m.registration.pingIntervalMs(), ageMs));
        }
        TreeSet<TopicPartition> described = new TreeSet<>(g.owners.keySet());
        described.addAll(g.offsets.keySet());
        List<PartitionDescription> partitions = new ArrayList<>(described.size());
        for (TopicPartition tp : described) {
            StreamId owner = g.owners.get(tp);
            partitions.add(new PartitionDescription(tp.topic(), tp.partition().toString(),
                    owner == null ? null : owner.consumerId(),
                    owner == null ? PartitionDescription.NO_STREAM : owner.n(),
                    g.offsets.getOrDefault(tp, PartitionDescription.OFFSET_NONE)));
        }
        return new GroupDescription(g.id, ErrorCode.NONE, g.generation, state, members, partitions);
    }

    /** Registration handling and validation (DESIGN §3 Register, D11). */
    private void onRegister(long connectionId, int correlationId, RegisterRequest r) {
        if (role == Role.LOADING && r.highestEpochSeen() <= epoch) {
            parkedRegisters.add(new ParkedRegister(connectionId, correlationId, r)); // answered once loaded
            return;
        }
        Optional<ErrorCode> notNow = notServing(r.highestEpochSeen());
        if (notNow.isPresent()) {
            respond(connectionId, correlationId, new RegisterResponse(notNow.get(), epoch, r.consumerId()));
            return;
        }
        Registration registration = Registration.of(r);
        Optional<String> invalid = Subscriptions.invalid(r.groupId(), r.consumerId(), registration);
        if (invalid.isPresent()) {
            emit(new Notice("rejected registration of consumer '" + r.consumerId() + "' in group '" + r.groupId()
                    + "' on connection " + connectionId + ": " + invalid.get()));
            respond(connectionId, correlationId, new RegisterResponse(ErrorCode.INVALID_REGISTRATION, epoch, r.consumerId()));
            return;
        }
        GroupState g = groups.get(r.groupId());
        if (g == null) {
            g = new GroupState(r.groupId(), config.assignors().forNewGroup(r.groupId()));
            groups.put(g.id, g);
            g.queue(new ZkOp.PutGroup(g.id, 0, g.assignor));
        }
        Member m = g.members.get(r.consumerId());
        if (m != null && m.connectionId == connectionId && m.confirmed && m.registration.equals(registration)) {
            // The same Register again (its answer was lost): answer again, change nothing — but not before the
            // write of the first is durable (it may still be in flight, and may fail).
            Member same = m;
            GroupState group = g;
            writes.afterWrite(g, (ok, nowMs) -> {
                if (group.members.get(same.consumerId) == same && same.connectionId == connectionId) {
                    grantAndRespond(same, connectionId, correlationId, new RegisterResponse(
                            ok ? ErrorCode.NONE : ErrorCode.UNKNOWN, epoch, same.consumerId));
                }
            });
            return;
        }
        boolean recorded = m != null; // in ZooKeeper as m.registration: written by us, or loaded at the election
        if (m != null) {
            forgetIncarnation(g, m); // the old connection, if any, can no longer be commanded
        } else {
            m = new Member(r.consumerId(), registration);
            g.members.put(m.consumerId, m);
        }
        // A recorded member coming back with the registration ZooKeeper holds (every member after a handover or a
        // failover) needs no write: its answer goes out at once instead of behind a multi per group.
        boolean changed = !recorded || !m.registration.equals(registration);
        m.registration = registration;
        m.confirmed = true;
        m.connectionId = connectionId;
        m.missedPings = 0;
        m.pingAnsweredMs = Member.NEVER;
        m.barrierMisses = 0;
        m.startedGeneration = -1;
        m.pingRequestId = Member.NO_REQUEST;
        connections.put(connectionId, new String[] {g.id, m.consumerId});
        if (changed) {
            g.queue(new ZkOp.PutRegistration(g.id, m.consumerId, registration));
        }
        GroupState group = g;
        Member member = m;
        writes.afterWrite(g, (ok, nowMs) -> {
            if (group.members.get(member.consumerId) != member) {
                return; // removed meanwhile; that path answered
            }
            if (member.connectionId == connectionId) {
                grantAndRespond(member, connectionId, correlationId, new RegisterResponse(
                        ok ? ErrorCode.NONE : ErrorCode.UNKNOWN, epoch, member.consumerId));
            }
            // Even when its connection closed while the write was in flight: pings are what notice it is gone.
            emit(new SetTimer(new CoordinatorTimer.PingDue(group.id, member.consumerId),
                    now + member.registration.pingIntervalMs()));
            requestRebalance(group);
            endHandoverGraceIfEveryoneIsBack();
        });
    }

    /**
     * A consumer id registers anew while we still hold an earlier incarnation of it: that one may still be fetching
     * (a duplicate process, or our close not yet seen), so its lease is waited out before its partitions move.
     */
    private void forgetIncarnation(GroupState g, Member m) {
        if (m.connected()) {
            connections.remove(m.connectionId);
            emit(new CloseConnection(m.connectionId));
        }
        fenceLease(g, m);
        m.connectionId = Member.NO_CONNECTION;
        if (g.run != null) {
            g.run.drop(m.consumerId);
            markDirty(g);
            advanceRun(g); // it may have been the last one the run waited for
        }
    }

    private void fenceLease(GroupState g, Member m) {
        if (m.grantSentMs != Member.NEVER) {
            g.fencedUntil.merge(m.consumerId, config.leaseSurelyOverMs(m.grantSentMs, m.registration.leaseMs()), Math::max);
        }
    }

    /** OffsetCommit: the member's own partitions of the current generation, forwards only, fenced (D10). */
    private void onOffsetCommit(long connectionId, int correlationId, OffsetCommitRequest r) {
        Optional<ErrorCode> notNow = notServing(-1);
        if (notNow.isEmpty() && r.coordinatorEpoch() != epoch) {
            notNow = Optional.of(r.coordinatorEpoch() < epoch ? ErrorCode.STALE_COORDINATOR_EPOCH : ErrorCode.NOT_COORDINATOR);
        }
        if (notNow.isPresent()) {
            respond(connectionId, correlationId, OffsetCommitResponse.error(notNow.get()));
            return;
        }
        GroupState g = groups.get(r.groupId());
        Member m = g == null ? null : g.members.get(r.consumerId());
        if (m == null || m.connectionId != connectionId) {
            respond(connectionId, correlationId, OffsetCommitResponse.error(ErrorCode.UNKNOWN_CONSUMER));
            return;
        }
        if (r.generation() != g.generation || m.startedGeneration != g.generation) {
            respond(connectionId, correlationId, OffsetCommitResponse.error(ErrorCode.ILLEGAL_GENERATION));
            return;
        }
        List<PartitionResult> results = acceptOffsets(g, m, r.offsets());
        writes.afterWrite(g, (ok, nowMs) -> respond(connectionId, correlationId, ok
                ? new OffsetCommitResponse(ErrorCode.NONE, results)
                : OffsetCommitResponse.error(ErrorCode.UNKNOWN)));
    }

    /** Leave: write its last offsets, remove it, rebalance the rest. */
    private void onLeave(long connectionId, int correlationId, LeaveRequest r) {
        Optional<ErrorCode> notNow = notServing(-1);
        if (notNow.isPresent()) {
            respond(connectionId, correlationId, LeaveResponse.error(notNow.get()));
            return;
        }
        GroupState g = groups.get(r.groupId());
        Member m = g == null ? null : g.members.get(r.consumerId());
        if (m == null || m.connectionId != connectionId) {
            respond(connectionId, correlationId, LeaveResponse.error(ErrorCode.UNKNOWN_CONSUMER));
            return;
        }
        if (r.offsets() != null && m.startedGeneration == g.generation) {
            acceptOffsets(g, m, r.offsets());
        }
        // The session core sends Leave only after its fetchers are closed, so nothing is left to wait out. The
        // connection stays open for the answer (the consumer closes it); it is no member's any more.
        connections.remove(connectionId);
        m.connectionId = Member.NO_CONNECTION;
        removeMember(g, m, null);
        writes.afterWrite(g, (ok, nowMs) -> respond(connectionId, correlationId,
                ok ? LeaveResponse.ok() : LeaveResponse.error(ErrorCode.UNKNOWN)), !heldForOwners.contains(g));
    }

    private Optional<ErrorCode> notServing(int highestEpochSeen) {
        if (role == Role.LOADING) {
            return Optional.of(ErrorCode.COORDINATOR_NOT_READY);
        }
        if (role != Role.ACTIVE && role != Role.LEASE_WAIT) {
            return Optional.of(ErrorCode.NOT_COORDINATOR);
        }
        if (highestEpochSeen > epoch) {
            // The consumer has seen a newer coordinator: we are deposed and do not know it yet.
            emit(new Notice("a consumer has seen epoch " + highestEpochSeen + ", newer than ours (" + epoch + ")"));
            return Optional.of(ErrorCode.NOT_COORDINATOR);
        }
        return Optional.empty();
    }

    /**
     * Queues the offsets the member may write and says per partition why not otherwise: it must own the partition
     * in the current generation (NOT_OWNER); an offset not beyond the committed one is acknowledged but not written
     * (a retried or reordered report must never move a committed offset backwards).
     */
    private List<PartitionResult> acceptOffsets(GroupState g, Member m, List<PartitionOffset> offsets) {
        List<PartitionResult> results = new ArrayList<>(offsets.size());
        if (g.ownersChanging()) {
            // The owners of the next generation are being written or started: a report of the old generation that
            // arrives now could land after them and be written for a partition its reporter no longer owns. (The
            // write can outlive its run: a handover aborts the run, not the multi already sent.)
            offsets.forEach(po -> results.add(new PartitionResult(po.topic(), po.partition(), ErrorCode.REBALANCE_IN_PROGRESS)));
            return results;
        }
        for (PartitionOffset po : offsets) {
            Optional<TopicPartition> tp = parse(po);
            StreamId owner = tp.map(g.owners::get).orElse(null);
            if (owner == null || !owner.consumerId().equals(m.consumerId) || po.offset() < 0) {
                results.add(new PartitionResult(po.topic(), po.partition(), ErrorCode.NOT_OWNER));
                continue;
            }
            long floor = g.offsetFloor(tp.get());
            if (po.offset() > floor) {
                g.queue(new ZkOp.PutOffset(g.id, tp.get(), po.offset(), m.consumerId));
            }
            results.add(new PartitionResult(po.topic(), po.partition(), ErrorCode.NONE));
        }
        return results;
    }

    private static Optional<TopicPartition> parse(PartitionOffset po) {
        try {
            return Optional.of(TopicPartition.of(po.topic(), po.partition()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    // ================================================================== consumer responses and closes

    private void onResponse(long connectionId, long requestId, Response response) {
        Pending p = requests.remove(requestId);
        if (p == null) {
            return; // answer to a request of a reset or finished run
        }
        if (role == Role.HANDING_OVER) {
            onHandoverStopped(requestId, p, response);
            return;
        }
        GroupState g = groups.get(p.group());
        Member m = g == null ? null : g.members.get(p.consumerId());
        if (m == null || m.connectionId != connectionId) {
            return; // from an incarnation we no longer command
        }
        if (response instanceof PingResponse ping) {
            onPingAnswered(g, m, requestId, ping);
        } else if (response instanceof StopResponse stop) {
            onStopAnswered(g, m, requestId, stop);
        } else if (response instanceof StartResponse start) {
            onStartAnswered(g, m, requestId, p.generation(), start);
        }
    }

    private void onConnectionClosed(long connectionId) {
        String[] owner = connections.remove(connectionId);
        if (owner == null) {
            return;
        }
        GroupState g = groups.get(owner[0]);
        Member m = g == null ? null : g.members.get(owner[1]);
        if (m == null || m.connectionId != connectionId) {
            return;
        }
        // It cannot be commanded any more; its lease runs out by itself. Pings count it missing until it returns.
        fenceLease(g, m);
        m.connectionId = Member.NO_CONNECTION;
        if (g.run != null && g.run.participants.contains(m.consumerId)) {
            g.run.drop(m.consumerId);
            markDirty(g);
            advanceRun(g);
        }
    }

    // ================================================================== pings and failure detection

    private void onPingDue(GroupState g, Member m) {
        if (role != Role.ACTIVE && role != Role.LEASE_WAIT) {
            return;
        }
        boolean unanswered = m.pingRequestId != Member.NO_REQUEST;
        if (unanswered || !m.connected()) {
            m.missedPings++;
            requests.remove(m.pingRequestId);
            m.pingRequestId = Member.NO_REQUEST;
            emit(new Notice(Notice.Kind.PING_MISSED, "group '" + g.id + "': consumer '" + m.consumerId
                    + "' missed ping " + m.missedPings + " of " + (m.registration.maxPingRetries() + 1)));
        }
        if (m.missedPings > m.registration.maxPingRetries()) {
            // DESIGN §5: max_ping_retries + 1 consecutive unanswered pings.
            removeMember(g, m, "missed " + m.missedPings + " pings");
            requestRebalance(g);
            return;
        }
        if (m.connected() && canCommand()) {
            PingRequest ping = new PingRequest(epoch, g.generation, (short) m.missedPings);
            m.pingRequestId = send(g, m, ping, g.generation);
        }
        emit(new SetTimer(new CoordinatorTimer.PingDue(g.id, m.consumerId), now + m.registration.pingIntervalMs()));
    }

    private void onPingAnswered(GroupState g, Member m, long requestId, PingResponse ping) {
        if (requestId != m.pingRequestId) {
            return;
        }
        m.pingRequestId = Member.NO_REQUEST;
        if (ping.errorCode() != ErrorCode.NONE) {
            return; // STALE_COORDINATOR_EPOCH and friends: not an answer; the next PingDue counts it
        }
        m.missedPings = 0;
        m.pingAnsweredMs = now;
        if (ping.offsets() != null && m.startedGeneration == g.generation && ping.generation() == g.generation) {
            acceptOffsets(g, m, ping.offsets());
            writes.flush(g);
        }
    }

    /**
     * A member is gone (failed, left, or did not return after an election): stop commanding it, wait out whatever
     * lease we gave it, delete its registration, and let the group rebalance.
     */
    private void removeMember(GroupState g, Member m, String why) {
        if (why != null) {
            emit(new Notice(Notice.Kind.MEMBER_FAILED, "group '" + g.id + "': removing consumer '" + m.consumerId
                    + "': " + why));
            fenceLease(g, m);
        }
        if (m.connected()) {
            connections.remove(m.connectionId);
            emit(new CloseConnection(m.connectionId));
            m.connectionId = Member.NO_CONNECTION;
        }
        requests.remove(m.pingRequestId);
        g.members.remove(m.consumerId);
        if (g.members.isEmpty()) {
            // From now on `shepherd offsets reset` may write the group's offsets: see reloadOffsets.
            g.offsetsStale = true;
            g.reloadIssued = false;
        }
        emit(new CancelTimer(new CoordinatorTimer.PingDue(g.id, m.consumerId)));
        g.queue(new ZkOp.DeleteRegistration(g.id, m.consumerId));
        if (g.run != null) {
            g.run.drop(m.consumerId);
            markDirty(g);
            advanceRun(g);
        }
        requestRebalance(g);
        if (why == null && ownersWriteAhead(g)) {
            // A Leave: the removal and the last offsets ride the run's owners multi. Sent on their own, they were
            // still in flight when the Stop round ended in half the leaves measured, and the owners multi (one write
            // per group at a time) waited for them (docs/performance-log.md). A failed member's run waits out its lease
            // before writing owners, so its removal goes at once.
            heldForOwners.add(g);
        } else {
            writes.flush(g);
        }
    }

    /** A run of the group is in its Stop round: its owners multi follows the last Stop answer. */
    private static boolean ownersWriteAhead(GroupState g) {
        return g.run != null && g.run.phase == Run.Phase.STOPPING;
    }

    /**
     * Sends what {@link #removeMember} held for an owners multi that is not about to come: the run ended or was
     * abandoned (a handover), or it waits out a failed member's lease. Checked after every step, so nothing is held
     * past the step in which that became so; a Stop round that times out sends it too ({@link #stopRoundOver}). A
     * Leave's answer waits at most one Stop timeout longer than it would for a write of its own.
     */
    private void releaseHeldWrites() {
        if (heldForOwners.isEmpty()) {
            return;
        }
        for (Iterator<GroupState> it = heldForOwners.iterator(); it.hasNext(); ) {
            GroupState g = it.next();
            if (groups.get(g.id) != g) {
                it.remove();
            } else if (!ownersWriteAhead(g)) {
                it.remove();
                writes.flush(g);
            }
        }
    }

    // ================================================================== the trigger ("try to request rebalance")

    /** The seed's "try to request rebalance", with the dirty flag instead of the dropping CAS (D1). */
    private void requestRebalance(GroupState g) {
        switch (g.trigger) {
            case IDLE -> {
                g.trigger = g.trigger.transitionTo(TriggerState.QUEUED);
                drain(g);
            }
            case RUNNING -> markDirty(g);
            case QUEUED -> {
                if (g.offsetsStale) {
                    drain(g); // held back for a re-read that the change (a first member, the last one gone) may decide
                }
            }
            case RUNNING_DIRTY -> { }
        }
    }

    private void markDirty(GroupState g) {
        if (g.trigger == TriggerState.RUNNING && !defects.contains(Defect.DROP_TRIGGERS)) {
            g.trigger = g.trigger.transitionTo(TriggerState.RUNNING_DIRTY);
        }
    }

    private void drainQueue() {
        if (role != Role.ACTIVE) {
            return;
        }
        for (GroupState g : new ArrayList<>(groups.values())) {
            if (g.trigger == TriggerState.QUEUED) {
                drain(g);
            }
        }
    }

    /** The request handler: runs a queued group once we may command (groups run side by side). */
    private void drain(GroupState g) {
        if (role != Role.ACTIVE || g.trigger != TriggerState.QUEUED || !canCommand()) {
            return;
        }
        if (g.offsetsStale && !g.members.isEmpty()) {
            reloadOffsets(g); // the run would Start members with offsets an operator may have reset; onGroupRead drains
            return;
        }
        g.trigger = g.trigger.transitionTo(TriggerState.RUNNING);
        if (!beginRun(g)) {
            endRun(g, true);
        }
    }

    /**
     * Re-reads a group that has been empty before its next run may Start anyone. While a group has no registration
     * in ZooKeeper, {@code shepherd offsets reset} may write its offsets (DESIGN §4); our mirror never sees that
     * write, and a Start with the mirror's offsets would silently undo the reset (or, for a lowered offset, skip the
     * records the operator wants replayed). So the mirror's offsets stop counting when the last member goes
     * ({@link #removeMember}; a group loaded without members starts so), {@link #drain} holds back any run of a
     * group that has members again, and the answer of this read replaces the offsets ({@link #adoptOffsets}).
     *
     * <p>Which read counts. The reset is legal only before the group's first new registration reaches ZooKeeper,
     * so the read must be ordered after that registration; and an older read must not be taken for it:
     * <ol>
     *   <li>the last member leaves; our DeleteRegistration trips the member watch, and a read R1 goes out;</li>
     *   <li>R1 reads offset 500; the operator then resets it to 100;</li>
     *   <li>consumer c registers; its registration is written;</li>
     *   <li>R1's answer arrives: taking it for the re-read would Start c at 500, undoing the reset.</li>
     * </ol>
     * Hence: the read goes out only once the group's writes have drained (its registration committed or failed;
     * ZooKeeper answers one session's requests in order, so the read sees it) and only when no older read of the
     * group is outstanding; from then on every answer of a group read comes from a read issued after the
     * registration, so the first one ends the staleness ({@link GroupState#reloadIssued}). Counting answers in
     * order would not do: a group read is several requests, and two of them may finish in either order. A read
     * that fails is retried (later, so still after the registration) and counts the same. An election or a session
     * expiry forgets the group and reads it anew, which is as good. If the group empties again while the read is
     * out, the flag is cleared and the answer ignored: the next member needs a read after its own registration.
     *
     * <p>Invariants: offsets never move backwards because of our own reports — only an operator's value, read from
     * ZooKeeper, may lower them (FencedWrites keeps comparing reports with the adopted offsets); nobody is started
     * before the read, so ExclusiveOwnership and the barrier are untouched (the run that follows is an ordinary
     * one). Only the offsets are adopted: the generation, owners and assignor are written by coordinators alone,
     * fenced, so the mirror of them is exact.
     */
    private void reloadOffsets(GroupState g) {
        if (!g.offsetsStale || g.reloadIssued || g.members.isEmpty() || groups.get(g.id) != g) {
            return;
        }
        if (!g.writesDrained()) {
            writes.afterWrite(g, (ok, nowMs) -> reloadOffsets(g));
            return;
        }
        if (groupReadsOutstanding.containsKey(g.id)) {
            return; // its answer (onGroupRead) or failure (onReadFailed) calls again
        }
        g.reloadIssued = true;
        read(new ZkRead.Group(g.id));
    }

    /** The answer of {@link #reloadOffsets}'s read: ZooKeeper's offsets replace ours, an operator's reset included. */
    private void adoptOffsets(GroupState g, GroupSnapshot snapshot) {
        if (!g.offsets.equals(snapshot.offsets())) {
            emit(new Notice("group '" + g.id + "': offsets changed in ZooKeeper while the group was empty (an"
                    + " operator's reset); adopting " + snapshot.offsets()));
        }
        g.offsets.clear();
        g.offsets.putAll(snapshot.offsets());
        g.offsetsStale = false;
        g.reloadIssued = false;
    }

    // ================================================================== rebalance(group)

    /** Seed rebalance steps 1–3: compute, check necessity; step 4.1 when necessary. False: nothing to do. */
    private boolean beginRun(GroupState g) {
        List<Member> live = g.members.values().stream().filter(Member::connected).toList();
        Assignment target = assign(g, live);
        if (!necessary(g, target, live)) {
            return false;
        }
        Run run = new Run(g.generation);
        g.run = run;
        live.forEach(m -> run.participants.add(m.consumerId));
        // Members we cannot reach are not stopped by us: their leases are waited out.
        g.members.values().stream().filter(m -> !m.connected()).forEach(m -> fenceLease(g, m));
        for (Member m : live) {
            run.awaiting.put(send(g, m, new StopRequest(epoch, run.endingGeneration), run.endingGeneration), m.consumerId);
        }
        emit(new SetTimer(new CoordinatorTimer.Barrier(g.id), now + config.stopTimeoutMs()));
        advanceRun(g);
        return true;
    }

    /**
     * Seed check 3.1–3.5, plus one the seed did not need: 3.6, a member that has not acknowledged a Start of the
     * current generation in this epoch fetches nothing (it re-registered, or the epoch is new) and must be started.
     */
    private boolean necessary(GroupState g, Assignment target, List<Member> live) {
        if (g.owners.isEmpty()) {
            return target.size() > 0 || live.stream().anyMatch(m -> m.startedGeneration != g.generation); // 3.1
        }
        for (TopicPartition tp : target.owners().keySet()) {
            if (!g.owners.containsKey(tp)) {
                return true; // 3.2
            }
        }
        for (TopicPartition tp : g.owners.keySet()) {
            if (!topicHas(tp)) {
                return true; // 3.3
            }
        }
        if (!target.owners().equals(g.owners)) {
            return true; // 3.4
        }
        return live.stream().anyMatch(m -> m.startedGeneration != g.generation); // 3.6, else 3.5
    }

    /**
     * The topic, as last read, still has the partition. A binary search: every list in {@link #topics} comes from
     * {@link #sorted}, and a linear {@code contains} per owned partition made check 3.3 quadratic in the group's
     * partitions (8,192 partitions: 77 ms of the loop per two rebalances; docs/performance-log.md).
     */
    private boolean topicHas(TopicPartition tp) {
        List<PartitionId> partitions = topics.get(tp.topic());
        return partitions != null && Collections.binarySearch(partitions, tp.partition()) >= 0;
    }

    /** Seed step 2: the assignment over the members that can take part. */
    private Assignment assign(GroupState g, Collection<Member> participants) {
        Map<String, Map<String, Integer>> streams = new TreeMap<>();
        for (Member m : participants) {
            streams.put(m.consumerId, Subscriptions.streamsByTopic(m.registration.subscription(), topics.keySet()));
        }
        Map<String, List<PartitionId>> partitions = new TreeMap<>();
        streams.values().forEach(s -> s.keySet().forEach(t -> {
            List<PartitionId> ps = topics.get(t);
            if (ps != null) {
                partitions.put(t, ps);
            }
        }));
        Map<TopicPartition, StreamId> current = new TreeMap<>(g.owners);
        AssignmentInput input = AssignmentInput.fromSubscriptions(partitions, streams, current);
        Assignment assignment = Assignors.find(g.assignor).orElseGet(Assignors::defaultAssignor).assign(input);
        emit(new CoordinatorEffect.Assigned(g.id, input, assignment));
        return assignment;
    }

    private void onStopAnswered(GroupState g, Member m, long requestId, StopResponse stop) {
        Run run = g.run;
        if (run == null || run.phase != Run.Phase.STOPPING || !run.awaiting.containsKey(requestId)) {
            return;
        }
        if (stop.errorCode() != ErrorCode.NONE) {
            return; // not stopped; the barrier deadline retries or fails it
        }
        run.awaiting.remove(requestId);
        run.stopped.add(m.consumerId);
        m.barrierMisses = 0;
        if (stop.offsets() != null && m.startedGeneration == run.endingGeneration) {
            acceptOffsets(g, m, stop.offsets());
        }
        advanceRun(g);
    }

    private void onStartAnswered(GroupState g, Member m, long requestId, int generation, StartResponse start) {
        Run run = g.run;
        if (run == null || run.phase != Run.Phase.STARTING || !run.awaiting.containsKey(requestId)) {
            return;
        }
        if (start.errorCode() != ErrorCode.NONE) {
            emit(new Notice("group '" + g.id + "': consumer '" + m.consumerId + "' refused Start(" + generation
                    + "): " + start.errorCode()));
            endRun(g, false);
            return;
        }
        run.awaiting.remove(requestId);
        m.startedGeneration = generation;
        advanceRun(g);
    }

    /** Moves the run on as far as it can go now. */
    private void advanceRun(GroupState g) {
        Run run = g.run;
        if (run == null) {
            return;
        }
        if (run.phase == Run.Phase.STOPPING && run.awaiting.isEmpty()) {
            run.phase = Run.Phase.LEASES;
        }
        if (run.phase == Run.Phase.LEASES) {
            g.fencedUntil.values().removeIf(until -> until <= now);
            if (!g.fencedUntil.isEmpty()) {
                emit(new SetTimer(new CoordinatorTimer.Barrier(g.id), g.fencedUntilMax()));
                return;
            }
            writeOwners(g, run);
        }
        if (run.phase == Run.Phase.STARTING && run.awaiting.isEmpty()) {
            endRun(g, true);
        }
    }

    /**
     * Seed step 4 between Stop and Start: one fenced multi with owners, generation and the Stop offsets. Only the
     * owner nodes whose stream changes are written (and those of partitions no longer assigned deleted): the multi is
     * atomic and leads with the epoch check, so after it the tree's owners are exactly the target's either way, and an
     * owner node's generation says when its stream was given the partition (docs/zookeeper-layout.md).
     */
    private void writeOwners(GroupState g, Run run) {
        run.phase = Run.Phase.WRITING;
        emit(new CancelTimer(new CoordinatorTimer.Barrier(g.id)));
        List<Member> participants = run.participants.stream().map(g.members::get)
                .filter(m -> m != null && m.connected()).toList();
        run.target = assign(g, participants);
        g.queue(new ZkOp.PutGroup(g.id, run.newGeneration(), g.assignor));
        for (TopicPartition tp : g.owners.keySet()) {
            if (run.target.ownerOf(tp).isEmpty()) {
                g.queue(new ZkOp.DeleteOwner(g.id, tp));
            }
        }
        run.target.owners().forEach((tp, stream) -> {
            if (!stream.equals(g.owners.get(tp))) {
                g.queue(new ZkOp.PutOwner(g.id, tp, stream, run.newGeneration()));
            }
        });
        writes.afterWrite(g, (ok, nowMs) -> {
            if (g.run != run) {
                return;
            }
            if (ok) {
                sendStarts(g, run);
            } else {
                endRun(g, false);
            }
        });
    }

    /** Seed 4.2–4.3: Start(g+1) to every participant with its share and offsets; wait for every answer. */
    private void sendStarts(GroupState g, Run run) {
        run.phase = Run.Phase.STARTING;
        if (!canCommand()) {
            endRun(g, false); // retried with backoff once commanding is possible again
            return;
        }
        SortedMap<String, SortedMap<TopicPartition, StreamId>> byConsumer = run.target.byConsumer();
        for (String consumerId : run.participants) {
            Member m = g.members.get(consumerId);
            if (m == null || !m.connected()) {
                continue;
            }
            List<PartitionAssignment> assigned = new ArrayList<>();
            byConsumer.getOrDefault(consumerId, new TreeMap<>()).forEach((tp, stream) -> assigned.add(
                    new PartitionAssignment(tp.topic(), tp.partition().toString(),
                            g.offsets.getOrDefault(tp, OFFSET_NONE), stream.n())));
            StartRequest start = new StartRequest(epoch, run.newGeneration(), assigned);
            run.awaiting.put(send(g, m, start, run.newGeneration()), consumerId);
        }
        emit(new SetTimer(new CoordinatorTimer.Barrier(g.id), now + config.startTimeoutMs()));
        advanceRun(g);
    }

    /** The barrier timer: a Stop round is over, the fenced leases are, or the Start round timed out. */
    private void onBarrierTimer(GroupState g) {
        Run run = g.run;
        if (run == null) {
            return;
        }
        switch (run.phase) {
            case STOPPING -> stopRoundOver(g, run);
            case LEASES -> advanceRun(g);
            case STARTING -> endRun(g, false); // seed step 5: the wait timed out
            case WRITING -> { }
        }
    }

    /** Members that missed the Stop round: ask again, or declare them failed after barrierMissesMax rounds (D8). */
    private void stopRoundOver(GroupState g, Run run) {
        if (heldForOwners.remove(g)) {
            writes.flush(g); // a member is late: a Leave's answer does not wait for the retried Stops
        }
        if (!canCommand()) {
            emit(new SetTimer(new CoordinatorTimer.Barrier(g.id), now + config.stopTimeoutMs()));
            return; // not their fault; try again when we may command
        }
        for (Map.Entry<Long, String> e : new ArrayList<>(run.awaiting.entrySet())) {
            run.awaiting.remove(e.getKey());
            requests.remove(e.getKey());
            Member m = g.members.get(e.getValue());
            if (m == null) {
                continue;
            }
            if (++m.barrierMisses >= config.barrierMissesMax()) {
                removeMember(g, m, "missed " + m.barrierMisses + " Stop rounds");
                if (g.run != run) {
                    return;
                }
            } else if (m.connected()) {
                run.awaiting.put(send(g, m, new StopRequest(epoch, run.endingGeneration), run.endingGeneration), m.consumerId);
            }
        }
        emit(new SetTimer(new CoordinatorTimer.Barrier(g.id), now + config.backoffMs(1 + maxMisses(g, run)) + config.stopTimeoutMs()));
        advanceRun(g);
    }

    private static int maxMisses(GroupState g, Run run) {
        return run.participants.stream().map(g.members::get).filter(m -> m != null)
                .mapToInt(m -> m.barrierMisses).max().orElse(0);
    }

    /** Seed step 5 with D8: a failed run is retried with backoff; a dirty run is queued again. */
    private void endRun(GroupState g, boolean ok) {
        Run run = g.run;
        g.run = null;
        if (run != null) {
            run.awaiting.keySet().forEach(requests::remove);
            emit(new CancelTimer(new CoordinatorTimer.Barrier(g.id)));
        }
        if (ok) {
            g.failedRuns = 0;
            g.trigger = g.trigger.transitionTo(g.trigger == TriggerState.RUNNING_DIRTY ? TriggerState.QUEUED : TriggerState.IDLE);
            drain(g);
            return;
        }
        g.failedRuns++;
        g.trigger = g.trigger.transitionTo(TriggerState.IDLE);
        emit(new SetTimer(new CoordinatorTimer.RetryRebalance(g.id), now + config.backoffMs(g.failedRuns)));
    }

    // ================================================================== graceful handover

    /** DESIGN §5: stop every group (acknowledged, or its lease over), record the handover, resign. */
    private void beginHandover() {
        if (role != Role.ACTIVE && role != Role.LEASE_WAIT && role != Role.LOADING) {
            reset(null);
            role = Role.CLOSED;
            emit(new CoordinatorEffect.Resign(false));
            emit(new CoordinatorEffect.HandedOver(epoch));
            return;
        }
        role = Role.HANDING_OVER;
        refuseParkedRegisters();
        long deadline = now;
        for (GroupState g : groups.values()) {
            if (g.run != null) {
                g.run.awaiting.keySet().forEach(requests::remove);
                g.run = null;
                emit(new CancelTimer(new CoordinatorTimer.Barrier(g.id)));
            }
            deadline = Math.max(deadline, g.fencedUntilMax());
            for (Member m : g.members.values()) {
                emit(new CancelTimer(new CoordinatorTimer.PingDue(g.id, m.consumerId)));
                if (m.grantSentMs != Member.NEVER) {
                    deadline = Math.max(deadline, config.leaseSurelyOverMs(m.grantSentMs, m.registration.leaseMs()));
                }
                if (m.connected() && canCommand()) {
                    long id = send(g, m, new StopRequest(epoch, g.generation), g.generation);
                    handoverAwaiting.put(id, new String[] {g.id, m.consumerId});
                }
            }
        }
        emit(new SetTimer(new CoordinatorTimer.HandoverDeadline(), deadline));
        maybeHandOver(false);
    }

    private void onHandoverStopped(long requestId, Pending p, Response response) {
        if (handoverAwaiting.remove(requestId) == null || !(response instanceof StopResponse stop)) {
            return;
        }
        GroupState g = groups.get(p.group());
        Member m = g == null ? null : g.members.get(p.consumerId());
        if (stop.errorCode() != ErrorCode.NONE) {
            handoverAwaiting.put(requestId, new String[] {p.group(), p.consumerId()}); // wait out its lease instead
            return;
        }
        if (m != null && stop.offsets() != null && m.startedGeneration == g.generation) {
            acceptOffsets(g, m, stop.offsets());
            writes.flush(g);
        }
        maybeHandOver(false);
    }

    private void maybeHandOver(boolean deadlinePassed) {
        if (role != Role.HANDING_OVER || writes.handover.inFlight != null
                || !(deadlinePassed || handoverAwaiting.isEmpty())) {
            return;
        }
        // The handover record changes /consumers/epoch, so a fenced write still queued behind it would fail its
        // epoch check: the offsets the Stop answers carried must be durable first (a consumer would otherwise
        // re-deliver everything since its last ping). One group at a time; its callback looks again.
        for (GroupState g : groups.values()) {
            if (g.inFlight != null || !g.queued.isEmpty()) {
                writes.afterWrite(g, (ok, nowMs) -> maybeHandOver(deadlinePassed));
                return;
            }
        }
        handoverAwaiting.clear();
        emit(new CancelTimer(new CoordinatorTimer.HandoverDeadline()));
        writes.handover.queue(new ZkOp.PutHandover(epoch));
        int ourEpoch = epoch;
        writes.afterWrite(writes.handover, (ok, nowMs) -> {
            List<Long> members = new ArrayList<>(new TreeSet<>(connections.keySet()));
            connections.clear(); // so that reset leaves them open: letMembersGo closes them
            reset(null);
            role = Role.CLOSED;
            emit(new CoordinatorEffect.Resign(false));
            boolean standby = brokers.stream().anyMatch(b -> b.id() != config.brokerId());
            if (ok && standby && !members.isEmpty()) {
                lingering = members;
                emit(new SetTimer(new CoordinatorTimer.HandoverLinger(), now + config.handoverGraceMs()));
            } else {
                letMembersGo(members, ourEpoch);
            }
        });
    }

    /**
     * The next coordinator is known (our Consult answers name it from now on), or waiting for it took too long: close
     * the members' connections, so they rediscover and find it at once, and finish the handover.
     */
    private void endLinger() {
        List<Long> members = lingering;
        lingering = null;
        emit(new CancelTimer(new CoordinatorTimer.HandoverLinger()));
        letMembersGo(members, epoch);
    }

    /** The last step of a handover: the members' connections closed, the runtime told it is over. */
    private void letMembersGo(List<Long> members, int handedOverEpoch) {
        members.forEach(id -> emit(new CloseConnection(id)));
        emit(new CoordinatorEffect.HandedOver(handedOverEpoch));
    }

    // ================================================================== timers

    private void onTimer(CoordinatorTimer timer) {
        if (timer instanceof CoordinatorTimer.KeepAlive) {
            if (isCoordinator()) {
                emit(new CoordinatorEffect.KeepAlive());
                emit(new SetTimer(timer, now + config.keepAliveIntervalMs()));
            }
        } else if (timer instanceof CoordinatorTimer.LeaseWaitOver) {
            onLeaseWaitOver();
        } else if (timer instanceof CoordinatorTimer.PingDue due) {
            GroupState g = groups.get(due.group());
            Member m = g == null ? null : g.members.get(due.consumerId());
            if (m != null) {
                onPingDue(g, m);
            }
        } else if (timer instanceof CoordinatorTimer.Barrier barrier) {
            GroupState g = groups.get(barrier.group());
            if (g != null) {
                onBarrierTimer(g);
            }
        } else if (timer instanceof CoordinatorTimer.RetryRebalance retry) {
            GroupState g = groups.get(retry.group());
            if (g != null && role == Role.ACTIVE) {
                requestRebalance(g);
            }
        } else if (timer instanceof CoordinatorTimer.ZkRetry) {
            if (zkConnected) {
                retryZk();
            } else if (isCoordinator()) {
                emit(new SetTimer(timer, now + config.zkRetryMs()));
            }
        } else if (timer instanceof CoordinatorTimer.HandoverDeadline) {
            maybeHandOver(true);
        } else if (timer instanceof CoordinatorTimer.HandoverLinger && lingering != null) {
            endLinger();
        }
    }

    // ================================================================== sending

    /** Sends a command; it renews the member's lease when it leaves (Ping, Start) — Stop does not. */
    private long send(GroupState g, Member m, Request request, int generation) {
        long id = nextRequestId++;
        if (!m.connected() || !canCommand()) {
            return id; // never leaves: counts as unanswered
        }
        requests.put(id, new Pending(g.id, m.consumerId, request.apiKey(), generation));
        if (!(request instanceof StopRequest)) {
            m.grantSentMs = now;
        }
        emit(new SendRequest(m.connectionId, id, request));
        return id;
    }

    private void grantAndRespond(Member m, long connectionId, int correlationId, Response response) {
        m.grantSentMs = now;
        respond(connectionId, correlationId, response);
    }

    private void respond(long connectionId, int correlationId, Response response) {
        emit(new Respond(connectionId, correlationId, response));
    }

    private void emit(CoordinatorEffect effect) {
        out.add(effect);
    }

    /** A topic's partitions as {@link #topics} holds them: in order, each once ({@link #topicHas} searches them). */
    private static List<PartitionId> sorted(Collection<PartitionId> partitions) {
        return partitions.stream().sorted().distinct().toList();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }
}
