package shepherd.coordination;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import shepherd.coordination.assign.PartitionId;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.Request;
import shepherd.protocol.Response;

/**
 * What the runtime tells the coordinator core: ZooKeeper session events, election outcomes, read and write
 * results, watch firings (the seed's four listeners), consumer traffic and timer firings. Events that answer a
 * ZooKeeper request carry {@code sentAtMs}, the time the runtime issued it: the newest such time of an answer that
 * passed the session check ({@link SessionProof}) bounds how long our session surely lives (DESIGN §5, commanding
 * needs a live session).
 */
public sealed interface CoordinatorEvent {

    /** The session, the election and the other brokers: the coordinator's own standing. */
    sealed interface Session extends CoordinatorEvent {}

    /** The seed's listeners: what ZooKeeper holds of topics and groups, read or changed. */
    sealed interface Metadata extends CoordinatorEvent {}

    /** The outcome of one of our fenced writes. */
    sealed interface WriteOutcome extends CoordinatorEvent {}

    /** Consumer traffic and connections. */
    sealed interface Network extends CoordinatorEvent {}

    /** A timer of ours fired. */
    sealed interface Timer extends CoordinatorEvent {}

    /** Answers of ZooKeeper; {@code sentAtMs} is when the request left. */
    sealed interface ZkAnswer extends CoordinatorEvent {
        long sentAtMs();
    }

    /**
     * An answer that passed ZooKeeper's session check at the leader (a write, or the revalidation of a reconnect), so
     * the session lived when its request left: only these refresh DESIGN §5's {@code lastZkAck}. A read is answered
     * by whichever member holds the connection, which may still hold one of a session the ensemble has ended
     * (docs/zookeeper-layout.md, obligation 2): a read's answer proves the connection, not the session.
     */
    sealed interface SessionProof extends ZkAnswer {}

    // ------------------------------------------------------------------ session and election

    /** The broker starts: run for election (seed coordinatorStartup, before step 1). */
    record Boot() implements Session {}

    /** The ZooKeeper connection is lost; the session may still live. Stop commanding at once. */
    record ZkDisconnected() implements Session {}

    /** The ZooKeeper connection is back with the same session. Resume, without a reset. */
    record ZkSyncConnected(long sentAtMs) implements SessionProof, Session {}

    /** The session expired: seed handleNewSession — full reset, re-arm everything, run for election again. */
    record ZkExpired() implements Session {}

    /**
     * We hold {@code /consumers/coordinator} and bumped {@code /consumers/epoch} to {@code epoch} in the same multi;
     * {@code previousHandedOver} says whether the previous epoch recorded a clean handover.
     */
    record ElectionWon(int epoch, boolean previousHandedOver, long sentAtMs) implements SessionProof, Session {}

    /** Another broker is coordinator (for Consult answers); the adapter keeps watching and retries by itself. */
    record LeaderObserved(int brokerId, int epoch) implements Session {}

    /** The live brokers, from {@code /brokers/ids} (for Consult answers). */
    record BrokersChanged(List<BrokerInfo> brokers) implements Session {
        public BrokersChanged {
            brokers = List.copyOf(brokers);
        }
    }

    /** A keep-alive came back: a write that changes nothing (a version check), so it passed the session check. */
    record ZkSynced(long sentAtMs) implements SessionProof, Session {}

    // ------------------------------------------------------------------ reads and watches

    /** Result of {@link ZkRead.Topics}: every topic with its partitions. */
    record TopicsRead(Map<String, List<PartitionId>> partitionsByTopic, long sentAtMs) implements ZkAnswer, Metadata {
        public TopicsRead {
            partitionsByTopic = Map.copyOf(partitionsByTopic);
        }
    }

    /** Result of {@link ZkRead.Topic}; an empty list when the topic is gone. */
    record TopicRead(String topic, List<PartitionId> partitions, long sentAtMs) implements ZkAnswer, Metadata {
        public TopicRead {
            Objects.requireNonNull(topic, "topic");
            partitions = List.copyOf(partitions);
        }
    }

    /** Result of {@link ZkRead.Groups}. */
    record GroupsRead(List<String> groups, long sentAtMs) implements ZkAnswer, Metadata {
        public GroupsRead {
            groups = List.copyOf(groups);
        }
    }

    /** Result of {@link ZkRead.Group}. */
    record GroupRead(String group, GroupSnapshot snapshot, long sentAtMs) implements ZkAnswer, Metadata {
        public GroupRead {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(snapshot, "snapshot");
        }
    }

    /** Result of {@link ZkRead.Members}: the consumer ids registered in ZooKeeper, sorted. */
    record MembersRead(String group, List<String> consumerIds, long sentAtMs) implements ZkAnswer, Metadata {
        public MembersRead {
            Objects.requireNonNull(group, "group");
            consumerIds = List.copyOf(consumerIds);
        }
    }

    /** A read failed (connection loss, session gone); the core retries it later if it still matters. */
    record ZkReadFailed(ZkRead read, String reason) implements Metadata {
        public ZkReadFailed {
            Objects.requireNonNull(read, "read");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Seed TopicChangeListener: the children of {@code /brokers/topics} changed. */
    record TopicChange() implements Metadata {}

    /** Seed TopicPartitionChangeListener: the partitions of {@code topic} changed. */
    record TopicPartitionChange(String topic) implements Metadata {
        public TopicPartitionChange {
            Objects.requireNonNull(topic, "topic");
        }
    }

    /** Seed GroupChangeListener: the children of {@code /consumers/groups} changed. */
    record GroupChange() implements Metadata {}

    /** Seed GroupMemberChangeListener: the children of {@code /consumers/groups/[g]/ids} changed. */
    record GroupMemberChange(String group) implements Metadata {
        public GroupMemberChange {
            Objects.requireNonNull(group, "group");
        }
    }

    // ------------------------------------------------------------------ writes

    /** The fenced multi {@code writeId} committed. */
    record ZkWriteDone(long writeId, long sentAtMs) implements SessionProof, WriteOutcome {}

    /** The multi failed its {@code check(/consumers/epoch, epoch)}: we are no longer coordinator. */
    record ZkWriteFenced(long writeId, long sentAtMs) implements SessionProof, WriteOutcome {}

    /**
     * The multi's outcome is unknown (connection loss: it may have been applied) or it was refused for another
     * reason ({@code unknownOutcome == false}).
     */
    record ZkWriteFailed(long writeId, boolean unknownOutcome, String reason) implements WriteOutcome {
        public ZkWriteFailed {
            Objects.requireNonNull(reason, "reason");
        }
    }

    // ------------------------------------------------------------------ consumers

    /**
     * Where connection {@code connectionId} comes from, as the runtime sees it: the numeric IP address of its peer,
     * a plain string (the core does no I/O and knows no sockets). Sent once, before the connection's first request;
     * only reported (DescribeGroups' member host). A runtime that never sends it (the simulation) leaves every host
     * unknown, and nothing else changes.
     */
    record ConnectionPeer(long connectionId, String peer) implements Network {
        public ConnectionPeer {
            Objects.requireNonNull(peer, "peer");
        }
    }

    /** A consumer sent a request on connection {@code connectionId}. */
    record RequestReceived(long connectionId, int correlationId, Request request) implements Network {
        public RequestReceived {
            Objects.requireNonNull(request, "request");
        }
    }

    /** A consumer answered the request {@code requestId} we sent with {@link CoordinatorEffect.SendRequest}. */
    record ResponseReceived(long connectionId, long requestId, Response response) implements Network {
        public ResponseReceived {
            Objects.requireNonNull(response, "response");
        }
    }

    /** A connection closed (either side, or cut). */
    record ConnectionClosed(long connectionId) implements Network {}

    /** A timer set with {@link CoordinatorEffect.SetTimer} reached its deadline. */
    record TimerFired(CoordinatorTimer timer) implements Timer {
        public TimerFired {
            Objects.requireNonNull(timer, "timer");
        }
    }

    /** Graceful shutdown asked for: hand over (DESIGN §5). */
    record HandoverRequested() implements Session {}
}
