package shepherd.broker;

import java.util.Map;
import java.util.TreeMap;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.Registration;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.protocol.DecodeException;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * Runs the coordinator's code before the broker may have to coordinate: a broker usually waits as a standby, and the
 * first takeover of its JVM ran that code for the first time — class loading and the interpreter made a graceful
 * handover to a fresh standby take 0.5 s where a warm one takes a fraction (docs/performance.md). Each round, on
 * private state and without any I/O, goes through what a coordinator taking over does: the znode codec both ways for
 * a recorded group, a core ({@link CoreRig}) that wins after a clean handover and loads that group, its members
 * registering again, the rebalance, pings, a member leaving and coming back, a handover of its own; and every
 * message the core sends or answers through the wire codec. Rounds repeat until the time budget
 * ({@code warmup.ms}) is spent.
 */
final class Warmup {
    static final int MEMBERS = 4;
    static final int PARTITIONS = 64;
    private static final int ROUNDS_MAX = 1_000;

    private Warmup() {}

    /** @return the rounds run within {@code budgetMs} (at least one, unless the budget is 0) */
    static int run(long budgetMs) {
        if (budgetMs <= 0) {
            return 0;
        }
        long deadline = System.nanoTime() + budgetMs * 1_000_000;
        FrameCodec codec = new FrameCodec();
        int rounds = 0;
        do {
            round(codec, message -> { });
            rounds++;
        } while (System.nanoTime() - deadline < 0 && rounds < ROUNDS_MAX);
        return rounds;
    }

    /** One round; {@code seen} is shown every message after the codec (tests); returns the rig, CLOSED by then. */
    static CoreRig round(FrameCodec codec, java.util.function.Consumer<shepherd.protocol.Message> seen) {
        CoreRig rig = new CoreRig(PARTITIONS, throughZnodeCodec(recordedGroup()), true);
        rig.onMessage = message -> {
            throughWireCodec(codec, message);
            seen.accept(message);
        };
        for (long c = 1; c <= MEMBERS; c++) {
            rig.join(c); // the last one ends the handover grace: the rebalance runs in its settle
        }
        int generation = rig.generation();
        for (long c = 1; c <= MEMBERS; c++) {
            rig.pingDue(c);
            rig.answerPing(c, generation);
        }
        rig.leave(1);
        rig.join(1);
        rig.handOver();
        return rig;
    }

    /** The group a previous coordinator left: its members, their partitions and committed offsets. */
    static GroupSnapshot recordedGroup() {
        Map<String, Registration> registrations = new TreeMap<>();
        for (long c = 1; c <= MEMBERS; c++) {
            registrations.put(CoreRig.consumerId(c), Registration.of(CoreRig.register(c)));
        }
        Map<TopicPartition, StreamId> owners = new TreeMap<>();
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            TopicPartition tp = TopicPartition.of(CoreRig.TOPIC, "1-" + p);
            owners.put(tp, new StreamId(CoreRig.consumerId(1 + p % MEMBERS), 0));
            offsets.put(tp, 1_000L + p);
        }
        return GroupSnapshot.of(1, "range", registrations, owners, offsets);
    }

    /** Encoded and decoded as a write and the next coordinator's loading would: what comes out is what went in. */
    private static GroupSnapshot throughZnodeCodec(GroupSnapshot g) {
        String path = "/warm-up";
        try {
            ZnodeCodec.GroupValue group = ZnodeCodec.decodeGroup(path,
                    ZnodeCodec.encodeGroup(new ZnodeCodec.GroupValue(g.generation(), g.assignor())));
            Map<String, Registration> registrations = new TreeMap<>();
            for (Map.Entry<String, Registration> e : g.registrations().entrySet()) {
                registrations.put(e.getKey(), ZnodeCodec.decodeRegistration(path,
                        ZnodeCodec.encodeRegistration(e.getValue())));
            }
            Map<TopicPartition, StreamId> owners = new TreeMap<>();
            for (Map.Entry<TopicPartition, StreamId> e : g.owners().entrySet()) {
                owners.put(e.getKey(), ZnodeCodec.decodeOwner(path, ZnodeCodec.encodeOwner(
                        new ZnodeCodec.OwnerValue(e.getValue(), g.generation()))).owner());
            }
            Map<TopicPartition, Long> offsets = new TreeMap<>();
            for (Map.Entry<TopicPartition, Long> e : g.offsets().entrySet()) {
                offsets.put(e.getKey(), ZnodeCodec.decodeOffset(path, ZnodeCodec.encodeOffset(e.getValue())));
            }
            return GroupSnapshot.of(group.generation(), group.assignor(), registrations, owners, offsets);
        } catch (ZnodeFormatException e) {
            throw new IllegalStateException("the znode codec does not read back what it wrote: " + e, e);
        }
    }

    private static void throughWireCodec(FrameCodec codec, shepherd.protocol.Message message) {
        Frame frame = message instanceof Request r ? Frame.request(1, r) : Frame.response(1, (Response) message);
        try {
            codec.decodeSized(codec.encode(frame));
        } catch (DecodeException e) {
            throw new IllegalStateException("the wire codec does not read back what it wrote: " + e, e);
        }
    }
}
