package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.GroupView;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.GroupDescription;
import shepherd.protocol.MemberDescription;
import shepherd.protocol.PartitionDescription;

/** The groups as this coordinator holds them, read-only: DescribeGroups answers, and views for status and tests. */
public final class Describe {
    private Describe() {}

    /** DescribeGroups of {@code ids} (every group when empty), for a coordinator that serves. */
    public static List<GroupDescription> describe(Groups groups, Collection<String> ids) {
        Collection<String> which = ids.isEmpty() ? groups.all.keySet() : ids;
        List<GroupDescription> described = new ArrayList<>(which.size());
        for (String id : which) {
            GroupState g = groups.all.get(id);
            described.add(g == null ? GroupDescription.unknown(id) : describe(groups, g));
        }
        return described;
    }

    /**
     * One group: its members with the peer of their current connection (none when disconnected or not told) and
     * their last Ping answer's age by our clock, and every partition it owns or has an offset for (the mirror of
     * ZooKeeper: committed values, not reports still being written).
     */
    private static GroupDescription describe(Groups groups, GroupState g) {
        long now = groups.core.now();
        String state = g.run == null ? g.trigger.name() : g.trigger.name() + "/" + g.run.phase.name();
        List<MemberDescription> members = new ArrayList<>(g.members.size());
        for (Member m : g.members.values()) {
            long ageMs = m.pingAnsweredMs == Member.NEVER ? MemberDescription.NEVER
                    : Math.max(0, now - m.pingAnsweredMs);
            String host = m.connected() ? groups.peers.getOrDefault(m.connectionId, MemberDescription.HOST_UNKNOWN)
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

    /** A copy of the group for status pages, tests and checkers; it shares nothing with the group. */
    static GroupView view(GroupState g) {
        TreeSet<String> connected = new TreeSet<>();
        TreeMap<String, Integer> started = new TreeMap<>();
        g.members.values().forEach(m -> {
            if (m.connected()) {
                connected.add(m.consumerId);
            }
            started.put(m.consumerId, m.startedGeneration);
        });
        List<String> awaiting = new ArrayList<>();
        if (g.inFlight != null) {
            g.inFlight.callbacks.forEach(c -> awaiting.add(c.describe()));
        }
        g.queuedCallbacks.forEach(c -> awaiting.add(c.describe()));
        return new GroupView(g.id, g.generation, g.trigger, g.run != null,
                Collections.unmodifiableSortedSet(new TreeSet<>(g.members.keySet())),
                Collections.unmodifiableSortedSet(connected), Collections.unmodifiableSortedMap(started),
                Collections.unmodifiableSortedMap(new TreeMap<>(g.owners)),
                Collections.unmodifiableSortedMap(new TreeMap<>(g.offsets)), List.copyOf(awaiting));
    }
}
