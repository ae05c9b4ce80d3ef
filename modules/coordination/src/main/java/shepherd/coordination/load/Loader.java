package shepherd.coordination.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import shepherd.coordination.Coordinator.Role;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.defect.Defect;
import shepherd.coordination.group.Core;
import shepherd.coordination.group.GroupState;
import shepherd.coordination.group.Groups;
import shepherd.coordination.group.Reads;
import shepherd.coordination.group.Subscriptions;
import shepherd.coordination.group.Topics;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;

/**
 * After an election: the seed's {@code coordinatorStartup} reads (topics, the group list, every group) and its four
 * listeners, then DESIGN §5's post-election lease wait.
 * <pre>
 *   LOADING ──every read answered──▶ LEASE_WAIT ──the previous epoch's leases are over──▶ ACTIVE
 *   (Registers held)                 (Registers answered, no Start)    (members that did not return removed,
 *                                                                        one run per group, D9)
 * </pre>
 * The members a new epoch finds in ZooKeeper are fenced until the leases the previous epoch could have granted are
 * surely over (D4); after a clean handover nobody fetches, and the wait is only a grace for them to come back.
 */
public final class Loader {
    private final Core core;
    private final Groups groups;
    private final Topics topics;
    private final Reads reads;

    private long wonAtMs;
    private boolean previousHandedOver;
    private boolean topicsLoaded;
    private boolean groupsListed;
    /**
     * Registrations that arrived while the tree was loading, in arrival order: answered once it is loaded rather
     * than refused with COORDINATOR_NOT_READY, which would send each consumer into a growing discovery backoff just
     * as its group could take it (after a handover every member comes back within the loading). Dropped with their
     * connection and on reset; at most one per connection in practice, as a consumer waits for its answer.
     */
    private final List<HeldRegister> held = new ArrayList<>();

    private record HeldRegister(long connectionId, int correlationId, RegisterRequest request) {}

    public Loader(Core core, Groups groups, Topics topics, Reads reads) {
        this.core = core;
        this.groups = groups;
        this.topics = topics;
        this.reads = reads;
    }

    /** Election won: coordinatorStartup steps 1, 2, 3.x, 4.x — read topics and groups; each read arms its watch. */
    public void begin(boolean previousHandedOver) {
        this.wonAtMs = core.now();
        this.previousHandedOver = previousHandedOver;
        reads.read(new ZkRead.Topics());
        reads.read(new ZkRead.Groups());
    }

    /** Forgets the epoch's loading; held registrations are refused (see {@link #refuseHeld}). */
    public void clear() {
        topicsLoaded = false;
        groupsListed = false;
        refuseHeld();
    }

    // ================================================================== registrations while loading

    /** Whether a Register must wait for the end of the loading: it has seen no newer epoch than ours. */
    public boolean holds(long connectionId, int correlationId, RegisterRequest r) {
        if (core.role() != Role.LOADING || r.highestEpochSeen() > core.epoch()) {
            return false;
        }
        held.add(new HeldRegister(connectionId, correlationId, r));
        return true;
    }

    public void connectionClosed(long connectionId) {
        held.removeIf(p -> p.connectionId() == connectionId);
    }

    /**
     * Leaving LOADING other than by finishing it: the registrations held for its end are refused now, as they would
     * have been on arrival, so their consumers rediscover instead of waiting for an answer that would never come.
     */
    public void refuseHeld() {
        for (HeldRegister p : held) {
            core.respond(p.connectionId(), p.correlationId(), new RegisterResponse(ErrorCode.NOT_COORDINATOR,
                    core.epoch(), p.request().consumerId()));
        }
        held.clear();
    }

    // ================================================================== the reads (the seed's listeners)

    public void readIfCoordinator(ZkRead read) {
        if (core.isCoordinator()) {
            reads.read(read);
        }
    }

    public void readFailed(ZkRead read) {
        if (!core.isCoordinator()) {
            return;
        }
        reads.failed(read);
        if (read instanceof ZkRead.Group g) {
            groups.readFailed(g.group());
        }
    }

    /** TopicChangeListener step 2: every group interested in a topic that changed rebalances. */
    public void topicsRead(Map<String, List<PartitionId>> partitionsByTopic) {
        if (!core.isCoordinator()) {
            return;
        }
        Set<String> changed = topics.replaceAll(partitionsByTopic);
        topicsLoaded = true;
        groups.topicsChanged(changed);
        maybeLoaded();
    }

    /** TopicPartitionChangeListener. */
    public void topicRead(String topic, List<PartitionId> partitions) {
        if (core.isCoordinator() && topics.replace(topic, partitions)) {
            groups.topicsChanged(Set.of(topic));
        }
    }

    /** GroupChangeListener steps 1–2: read each group we do not know yet. */
    public void groupsRead(List<String> names) {
        if (!core.isCoordinator()) {
            return;
        }
        for (String name : names) {
            if (!groups.contains(name) && !reads.groupPending(name)) {
                if (Subscriptions.invalidId("group", name).isPresent()) {
                    core.notice("skipping group znode with an invalid name '" + name + "'");
                    continue;
                }
                reads.read(new ZkRead.Group(name));
            }
        }
        groupsListed = true;
        maybeLoaded();
    }

    /** GroupChangeListener steps 3–5, or a re-read of a group we hold. */
    public void groupRead(String name, GroupSnapshot snapshot) {
        if (!core.isCoordinator()) {
            return;
        }
        reads.groupAnswered(name);
        Optional<GroupState> known = groups.get(name);
        if (known.isPresent()) {
            groups.reread(known.get(), snapshot);
            return;
        }
        long since = core.role() == Role.LOADING ? wonAtMs : core.now();
        boolean fence = !core.defect(Defect.NO_LEASE_WAIT) && !previousHandedOver;
        GroupState g = groups.adopt(name, assignorOf(name, snapshot.assignor()), snapshot, since, fence);
        if (core.role() == Role.LOADING) {
            groups.rebalance().queue(g); // seed 2.3, batched after the wait (D9)
        } else {
            groups.rebalance().request(g);
        }
        maybeLoaded();
    }

    /**
     * The assignor of a group found in ZooKeeper: the one an operator configured for it, else the one its node
     * records. A configured one that differs is used from now on and written with the group's next generation; the
     * necessity check then rebalances the group if the new assignor moves anything.
     */
    private String assignorOf(String group, String recorded) {
        Optional<String> configured = core.config().assignors().override(group);
        if (configured.isEmpty() || configured.get().equals(recorded)) {
            return recorded;
        }
        core.notice("group '" + group + "': assignor '" + configured.get() + "' configured, '" + recorded
                + "' recorded: using '" + configured.get() + "'");
        return configured.get();
    }

    /**
     * The ids of a group we hold changed — nearly always by our own registration or removal, already acted on. The
     * watch must be re-armed, and the member list is all that re-arming needs: the mirror of owners, offsets and
     * generation is ours (fenced writes), and an operator's offsets reset is picked up by the offsets re-read of
     * an emptied group. So one children read, not the whole subtree (O(members + partitions) requests), which would
     * compete with the rebalance this very change started for the same ZooKeeper session. A pending group read
     * re-arms the watch itself.
     */
    public void memberChange(String group) {
        if (core.isCoordinator() && groups.contains(group) && !reads.groupPending(group)) {
            reads.read(new ZkRead.Members(group));
        }
    }

    /** The member list after a member change: as the whole re-read did, the necessity check decides. */
    public void membersRead(String group) {
        if (core.isCoordinator()) {
            groups.get(group).ifPresent(g -> groups.rebalance().request(g));
        }
    }

    // ================================================================== the post-election lease wait

    /** All reads of coordinatorStartup answered: begin the post-election lease wait. */
    private void maybeLoaded() {
        if (core.role() != Role.LOADING || !topicsLoaded || !groupsListed || !reads.noGroupPending()) {
            return;
        }
        core.transitionTo(Role.LEASE_WAIT);
        long endMs = core.now();
        if (previousHandedOver) {
            endMs = core.now() + core.config().handoverGraceMs(); // nobody fetches; time for the members to return
        } else if (!core.defect(Defect.NO_LEASE_WAIT)) {
            endMs = Math.max(endMs, groups.fencedUntilMax());
        }
        core.setTimer(new CoordinatorTimer.LeaseWaitOver(), endMs);
        List<HeldRegister> registers = List.copyOf(held);
        held.clear();
        registers.forEach(p -> groups.membership().register(p.connectionId(), p.correlationId(), p.request()));
        endGraceIfEveryoneIsBack(); // nobody recorded, or everyone came back while we loaded
    }

    /**
     * After a clean handover nobody fetches, so the wait is only a grace for the recorded members to come back
     * (DESIGN §9: a graceful handover should leave every group stable within 200 ms). Once every one of them has
     * registered again and been answered, there is nothing left to wait for.
     */
    public void endGraceIfEveryoneIsBack() {
        if (core.role() != Role.LEASE_WAIT || !previousHandedOver || !groups.everyoneBack()) {
            return;
        }
        core.cancelTimer(new CoordinatorTimer.LeaseWaitOver());
        leaseWaitOver();
    }

    /** End of the lease wait: remove the members that did not return, then one run per group (D9). */
    public void leaseWaitOver() {
        if (core.role() != Role.LEASE_WAIT) {
            return;
        }
        core.transitionTo(Role.ACTIVE);
        groups.leaseWaitOver(core.epoch());
        groups.rebalance().drainQueue();
    }
}
