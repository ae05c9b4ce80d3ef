package shepherd.coordination;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import shepherd.coordination.CoordinatorEvent.ElectionWon;
import shepherd.coordination.CoordinatorEvent.RequestReceived;
import shepherd.coordination.defect.Defect;
import shepherd.coordination.group.Core;
import shepherd.coordination.group.Describe;
import shepherd.coordination.group.Groups;
import shepherd.coordination.group.Reads;
import shepherd.coordination.group.Rebalance;
import shepherd.coordination.group.Topics;
import shepherd.coordination.handover.Handover;
import shepherd.coordination.load.Loader;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.DescribeGroupsRequest;
import shepherd.protocol.DescribeGroupsResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Request;
import shepherd.protocol.Responses;

/**
 * The coordinator: the seed's {@code coordinatorStartup}, {@code handleNewSession}, four listeners, "try to request
 * rebalance" and {@code rebalance(group)}, with DESIGN §5–§6's fencing, leases and barrier, as one sans-I/O state
 * machine. {@link #onEvent} takes an event and the time, changes the state and returns the effects for the runtime
 * to execute; it never reads a clock, starts a thread or touches a socket or ZooKeeper.
 *
 * <p>This class holds the role, the epoch and the session, and dispatches each event to the part it concerns:
 * <pre>
 *   event ──▶ Coordinator ──┬─ Session ─────▶ election, session bound, reset (here)
 *                           ├─ Metadata ────▶ load.Loader       (reads, listeners, post-election lease wait)
 *                           ├─ WriteOutcome ▶ group.Groups      (write pipeline → continuations, AfterWrite)
 *                           ├─ Network ─────▶ group.Membership  (Register, OffsetCommit, Leave, answers)
 *                           │                 + Consult, DescribeGroups (here, group.Describe)
 *                           └─ Timer ───────▶ Membership (pings), Rebalance (barrier, retry), Loader, Handover
 *   effects ◀── ZooKeeper | Network | Timer | Observation (CoordinatorEffect)
 * </pre>
 *
 * <h2>How the safety argument maps onto the code</h2>
 * <ul>
 *   <li><b>Fenced writes</b> ({@code group.WritePipeline}): every write is one multi led by {@code
 *       check(/consumers/epoch)}; a failed check stands us down ({@link #standDown}).</li>
 *   <li><b>Commanding needs a live session</b> ({@link Core#canCommand}): no Ping, Stop or Start leaves unless
 *       ZooKeeper answered a request sent less than {@code sessionTimeout × (1 − ρ) − margin} ago, and never while
 *       disconnected: a paused coordinator that wakes up cannot command with a session that may be gone (D5).</li>
 *   <li><b>Barrier</b> ({@link Rebalance}): Start(g+1) leaves only after every participant acknowledged Stop(g),
 *       and after the lease of every member we could not stop is surely over; a lease counts from our last grant
 *       (RegisterResponse, Ping or Start), stretched by D, ρ and the margin.</li>
 *   <li><b>Post-election lease wait</b> (D4, {@link Loader}): the members a new epoch finds in ZooKeeper are fenced
 *       until the leases the previous epoch could have granted are over; re-registrations during the wait are
 *       batched into one run per group at its end (D9); members that did not return are removed.</li>
 *   <li><b>Offsets</b> ({@code group.Membership.acceptOffsets}): only from the owner in the current generation, only
 *       forwards, only through fenced writes, and an OffsetCommit is answered only once its write committed (D10).
 *       The one way down is an operator's reset of an empty group, re-read before the group's next Start
 *       ({@code group.Rebalance.reloadOffsets}).</li>
 * </ul>
 *
 * <p>State is mutated in place inside one call (a coordinator holds thousands of members; copying it per event
 * would cost more than the rest), and every effect of a call is returned together.
 */
public final class Coordinator {

    /** Where the coordinator stands in its epoch; {@link #transitionTo} says which changes are legal. */
    public enum Role {
        /** Not coordinator (running for election, or another broker holds it). */
        FOLLOWER,
        /** Won; reading topics and groups. Registrations wait for the end of the loading. */
        LOADING,
        /** Loaded; waiting out the previous epoch's leases. Registrations are accepted, no Start leaves. */
        LEASE_WAIT,
        ACTIVE,
        /** Graceful handover: stopping every group. */
        HANDING_OVER,
        /** Handed over, or the broker is shutting down. */
        CLOSED;

        /** Every role may fall back to FOLLOWER: handleNewSession's reset, a stand-down, or a finished handover. */
        private Set<Role> next() {
            return switch (this) {
                case FOLLOWER -> EnumSet.of(FOLLOWER, LOADING, CLOSED);
                case LOADING -> EnumSet.of(FOLLOWER, LEASE_WAIT, HANDING_OVER);
                case LEASE_WAIT -> EnumSet.of(FOLLOWER, ACTIVE, HANDING_OVER);
                case ACTIVE -> EnumSet.of(FOLLOWER, HANDING_OVER);
                case HANDING_OVER, CLOSED -> EnumSet.of(FOLLOWER);
            };
        }

        public Role transitionTo(Role to) {
            if (!next().contains(to)) {
                throw new IllegalStateException("Cannot transition from " + this + " to " + to);
            }
            return to;
        }
    }

    /** The offset a Start carries for a partition without a committed offset: apply auto_offset_reset. */
    public static final long OFFSET_NONE = Rebalance.OFFSET_NONE;

    private final Core core;
    private final Groups groups;
    private final Loader loader;
    private final Handover handover;

    private int leaderId = ConsultResponse.NONE;
    private int leaderEpoch = ConsultResponse.NONE;
    private List<BrokerInfo> brokers = List.of();

    public Coordinator(CoordinatorConfig config) {
        this(config, EnumSet.noneOf(Defect.class));
    }

    /** A coordinator with seed defects switched back on: negative controls of the simulation only. */
    public Coordinator(CoordinatorConfig config, Set<Defect> defects) {
        this.core = new Core(config, defects);
        Topics topics = new Topics();
        Reads reads = new Reads(core);
        Handover[] handoverOf = new Handover[1];
        Loader[] loaderOf = new Loader[1];
        this.groups = new Groups(core, topics, reads, (next, ok) -> handoverOf[0].resume(next, ok),
                () -> loaderOf[0].endGraceIfEveryoneIsBack());
        this.loader = new Loader(core, groups, topics, reads);
        this.handover = new Handover(core, groups, new Handover.Host() {
            @Override
            public void reset(boolean keepMembersOpen) {
                Coordinator.this.reset(null, keepMembersOpen);
            }

            @Override
            public List<BrokerInfo> brokers() {
                return brokers;
            }
        });
        handoverOf[0] = handover;
        loaderOf[0] = loader;
    }

    // ================================================================== the one dispatch

    public List<CoordinatorEffect> onEvent(CoordinatorEvent event, long nowMs) {
        core.beginStep(nowMs);
        if (event instanceof CoordinatorEvent.SessionProof proof) {
            core.sessionProved(proof.sentAtMs()); // the session surely lived when the request left
        }
        if (event instanceof CoordinatorEvent.Session session) {
            onSession(session);
        } else if (event instanceof CoordinatorEvent.Metadata metadata) {
            onMetadata(metadata);
        } else if (event instanceof CoordinatorEvent.WriteOutcome outcome) {
            onWriteOutcome(outcome);
        } else if (event instanceof CoordinatorEvent.Network network) {
            onNetwork(network);
        } else if (event instanceof CoordinatorEvent.TimerFired fired) {
            onTimer(fired.timer());
        } else {
            throw new IllegalStateException("unhandled event " + event);
        }
        groups.endStep();
        return core.endStep();
    }

    // ================================================================== views for runtimes, tests and checkers

    public Role role() {
        return core.role();
    }

    public int epoch() {
        return core.epoch();
    }

    public boolean isCoordinator() {
        return core.isCoordinator();
    }

    /** The live-session bound of DESIGN §5 at {@code nowMs}. */
    public boolean canCommandAt(long nowMs) {
        return core.canCommandAt(nowMs);
    }

    public SortedMap<String, GroupView> groups() {
        return groups.views();
    }

    public Optional<GroupView> group(String groupId) {
        return groups.view(groupId);
    }

    // ================================================================== session and election

    private void onSession(CoordinatorEvent.Session event) {
        if (event instanceof CoordinatorEvent.Boot) {
            // coordinatorStartup begins by running for election; the reads follow the win.
            core.emit(new CoordinatorEffect.RunForElection());
        } else if (event instanceof ElectionWon won) {
            // Election + epoch bump, atomic in the adapter; then coordinatorStartup steps 1–6.
            onElectionWon(won);
        } else if (event instanceof CoordinatorEvent.LeaderObserved seen) {
            // Someone else coordinates: remember it for Consult answers.
            leaderId = seen.brokerId();
            leaderEpoch = seen.epoch();
            handover.leaderObserved(seen.epoch());
        } else if (event instanceof CoordinatorEvent.BrokersChanged changed) {
            brokers = changed.brokers();
        } else if (event instanceof CoordinatorEvent.ZkDisconnected) {
            // DESIGN §5: stop commanding at once (canCommand reads it); keep every state.
            core.zkConnected(false);
        } else if (event instanceof CoordinatorEvent.ZkSyncConnected) {
            // Same session back: resume without a reset.
            core.zkConnected(true);
            retryZk();
            groups.rebalance().drainQueue();
        } else if (event instanceof CoordinatorEvent.ZkExpired) {
            onExpired();
        } else if (event instanceof CoordinatorEvent.ZkSynced) {
            // A keep-alive answered: the session bound moved, queued runs may go.
            groups.rebalance().drainQueue();
        } else if (event instanceof CoordinatorEvent.HandoverRequested) {
            handover.begin(loader::refuseHeld);
        }
    }

    private void onElectionWon(ElectionWon won) {
        throwIfEpochDidNotGrow(won.epoch());
        reset(null, false);
        core.transitionTo(Role.LOADING);
        core.beginEpoch(won.epoch());
        leaderId = core.config().brokerId();
        leaderEpoch = won.epoch();
        loader.begin(won.previousHandedOver());
        // Step 5 is the adapter's (it re-arms the session listener itself, D7); keep the session bound fresh.
        core.setTimer(new CoordinatorTimer.KeepAlive(), core.now() + core.config().keepAliveIntervalMs());
    }

    /**
     * Each win bumps {@code /consumers/epoch}, so a smaller or equal epoch means the adapter broke the election. The
     * one allowed exception: without fencing (the negative control) the winner takes the version unbumped, so a
     * broker that wins again after its session expired, with nobody winning in between, gets the same epoch.
     */
    private void throwIfEpochDidNotGrow(int won) {
        int epoch = core.epoch();
        if (won < epoch || won == epoch && !core.defect(Defect.NO_FENCING)) {
            throw new IllegalStateException("epoch must grow: won " + won + " after " + epoch);
        }
    }

    /**
     * handleNewSession: full reset, re-arm, run for election again — unless we are shutting down: the expiry has
     * already removed our election node, which is all a handover has left to do.
     */
    private void onExpired() {
        boolean closing = core.role() == Role.HANDING_OVER || core.role() == Role.CLOSED;
        reset("ZooKeeper session expired", false);
        if (closing) {
            core.transitionTo(Role.CLOSED);
            core.emit(new CoordinatorEffect.HandedOver(core.epoch()));
        } else {
            core.emit(new CoordinatorEffect.RunForElection());
        }
    }

    /**
     * handleNewSession step 1: forget everything of the epoch. Consumers on our connections are told by the close
     * (unless {@code keepMembersOpen}: a finished handover lets them go itself): they rediscover and find the next
     * coordinator.
     */
    private void reset(String why, boolean keepMembersOpen) {
        if (why != null && core.isCoordinator()) {
            core.notice("standing down as coordinator of epoch " + core.epoch() + ": " + why);
        }
        groups.clear(keepMembersOpen);
        handover.clear();
        core.emit(new CoordinatorEffect.CancelAllTimers());
        core.transitionTo(Role.FOLLOWER);
        loader.clear();
        leaderId = ConsultResponse.NONE;
        leaderEpoch = ConsultResponse.NONE;
    }

    /** A fenced write proved a newer epoch: stop at once, then run again like handleNewSession. */
    private void standDown(String why) {
        boolean handingOver = core.role() == Role.HANDING_OVER;
        reset(why, false);
        if (handingOver) {
            handover.closed(false);
            return;
        }
        core.emit(new CoordinatorEffect.Resign(true));
    }

    private void retryZk() {
        if (core.isCoordinator()) {
            groups.retryZk();
        }
    }

    // ================================================================== ZooKeeper's answers

    private void onMetadata(CoordinatorEvent.Metadata event) {
        if (event instanceof CoordinatorEvent.TopicsRead read) {
            loader.topicsRead(read.partitionsByTopic());
        } else if (event instanceof CoordinatorEvent.TopicRead read) {
            loader.topicRead(read.topic(), read.partitions());
        } else if (event instanceof CoordinatorEvent.GroupsRead read) {
            loader.groupsRead(read.groups());
        } else if (event instanceof CoordinatorEvent.GroupRead read) {
            loader.groupRead(read.group(), read.snapshot());
        } else if (event instanceof CoordinatorEvent.MembersRead read) {
            loader.membersRead(read.group());
        } else if (event instanceof CoordinatorEvent.ZkReadFailed failed) {
            loader.readFailed(failed.read());
        } else if (event instanceof CoordinatorEvent.TopicChange) {
            // Seed TopicChangeListener: re-read the topics (re-arming the watch); step 2 happens on the result.
            loader.readIfCoordinator(new ZkRead.Topics());
        } else if (event instanceof CoordinatorEvent.TopicPartitionChange change) {
            // Seed TopicPartitionChangeListener.
            loader.readIfCoordinator(new ZkRead.Topic(change.topic()));
        } else if (event instanceof CoordinatorEvent.GroupChange) {
            // Seed GroupChangeListener: re-read the group list; new groups are read on the result.
            loader.readIfCoordinator(new ZkRead.Groups());
        } else if (event instanceof CoordinatorEvent.GroupMemberChange change) {
            // Seed GroupMemberChangeListener: we write the ids ourselves, so the change is ours or an operator's;
            // re-arm the watch (reading the member list only) and let the necessity check decide.
            loader.memberChange(change.group());
        }
    }

    private void onWriteOutcome(CoordinatorEvent.WriteOutcome event) {
        if (event instanceof CoordinatorEvent.ZkWriteDone done) {
            groups.writeDone(done.writeId());
        } else if (event instanceof CoordinatorEvent.ZkWriteFenced) {
            standDown("a write failed its epoch check: epoch " + core.epoch() + " is no longer current");
        } else if (event instanceof CoordinatorEvent.ZkWriteFailed failed) {
            groups.writeFailed(failed);
            if (failed.unknownOutcome()) {
                core.setTimer(new CoordinatorTimer.ZkRetry(), core.now() + core.config().zkRetryMs());
            }
        }
    }

    // ================================================================== consumers

    private void onNetwork(CoordinatorEvent.Network event) {
        if (event instanceof RequestReceived received) {
            onRequest(received.connectionId(), received.correlationId(), received.request());
        } else if (event instanceof CoordinatorEvent.ResponseReceived received) {
            if (core.role() == Role.HANDING_OVER) {
                handover.answered(received.requestId(), received.response());
            } else {
                groups.membership().answered(received.connectionId(), received.requestId(), received.response());
            }
        } else if (event instanceof CoordinatorEvent.ConnectionPeer peer) {
            // Where a connection comes from: only reported, never decided on.
            groups.peer(peer.connectionId(), peer.peer());
        } else if (event instanceof CoordinatorEvent.ConnectionClosed closed) {
            groups.peerClosed(closed.connectionId());
            loader.connectionClosed(closed.connectionId());
            handover.connectionClosed(closed.connectionId());
            groups.membership().connectionClosed(closed.connectionId());
        }
    }

    private void onRequest(long connectionId, int correlationId, Request request) {
        if (request instanceof ConsultRequest) {
            core.respond(connectionId, correlationId, consult());
        } else if (request instanceof RegisterRequest register) {
            if (!loader.holds(connectionId, correlationId, register)) {
                groups.membership().register(connectionId, correlationId, register);
            }
        } else if (request instanceof OffsetCommitRequest commit) {
            groups.membership().commit(connectionId, correlationId, commit);
        } else if (request instanceof LeaveRequest leave) {
            groups.membership().leave(connectionId, correlationId, leave);
        } else if (request instanceof DescribeGroupsRequest describe) {
            core.respond(connectionId, correlationId, describeGroups(describe));
        } else {
            // Ping, Stop and Start are ours to send; a consumer sending one is confused.
            core.notice("connection " + connectionId + " sent " + request.apiKey() + ", which only a coordinator sends");
            core.respond(connectionId, correlationId, Responses.errorResponse(request.apiKey(), ErrorCode.INVALID_REQUEST));
        }
    }

    private ConsultResponse consult() {
        if (core.isCoordinator()) {
            return new ConsultResponse(ErrorCode.NONE, core.config().brokerId(), core.epoch(), brokers);
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
        Optional<ErrorCode> notNow = core.notServing(-1);
        if (notNow.isPresent()) {
            ConsultResponse known = consult();
            return new DescribeGroupsResponse(notNow.get(), known.coordinatorId(), known.coordinatorEpoch(), List.of());
        }
        return new DescribeGroupsResponse(ErrorCode.NONE, core.config().brokerId(), core.epoch(),
                Describe.describe(groups, r.groupIds()));
    }

    // ================================================================== timers

    private void onTimer(CoordinatorTimer timer) {
        if (timer instanceof CoordinatorTimer.KeepAlive) {
            // Keep the session bound fresh while we coordinate.
            if (core.isCoordinator()) {
                core.emit(new CoordinatorEffect.KeepAlive());
                core.setTimer(timer, core.now() + core.config().keepAliveIntervalMs());
            }
        } else if (timer instanceof CoordinatorTimer.LeaseWaitOver) {
            loader.leaseWaitOver();
        } else if (timer instanceof CoordinatorTimer.PingDue due) {
            groups.membership().pingDue(due.group(), due.consumerId());
        } else if (timer instanceof CoordinatorTimer.Barrier barrier) {
            groups.rebalance().barrierDue(barrier.group());
        } else if (timer instanceof CoordinatorTimer.RetryRebalance retry) {
            groups.rebalance().retry(retry.group());
        } else if (timer instanceof CoordinatorTimer.ZkRetry) {
            // Failed reads and unknown-outcome writes again, once connected.
            if (core.zkConnected()) {
                retryZk();
            } else if (core.isCoordinator()) {
                core.setTimer(timer, core.now() + core.config().zkRetryMs());
            }
        } else if (timer instanceof CoordinatorTimer.HandoverDeadline) {
            handover.deadlinePassed();
        } else if (timer instanceof CoordinatorTimer.HandoverLinger) {
            handover.lingerOver();
        }
    }
}
