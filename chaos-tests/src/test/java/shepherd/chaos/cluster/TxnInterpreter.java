package shepherd.chaos.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import shepherd.chaos.cluster.ZkTxn.ZkOp;
import shepherd.chaos.history.Entry;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * Turns committed ZooKeeper transactions, in zxid order, into history entries: who was elected with which epoch,
 * which coordinator writes committed under which epoch, and every committed offset and owner value (DESIGN §4, §5).
 *
 * <p><b>Terms.</b> A session that creates {@code /consumers/coordinator} starts a term (the node's data names the
 * broker). The term's epoch is settled by whichever comes first of that session's acts:
 * <ol>
 *   <li>a {@code setData} of {@code /consumers/epoch} (the bump; in the broker it shares a multi with the create):
 *       the epoch is the version it produced, and {@code Elected} is stamped with the bump's zxid;</li>
 *   <li>a write under {@code /consumers/groups} without a bump before it (a build with fencing switched off): the
 *       epoch is the version {@code /consumers/epoch} had when the term began, and {@code Elected} is stamped with
 *       the create's zxid, where it takes the place the election had in the order. Two such coordinators then share
 *       an epoch, which is what {@code OneCoordinatorPerEpoch} must see.</li>
 * </ol>
 * A term that never bumps nor writes (a broker killed between the two) elected nobody and yields no entry. Later
 * {@code setData}s of {@code /consumers/epoch} by the same session (the handover flag) do not start a new term.
 *
 * <p><b>Writes.</b> Every applied transaction touching {@code /consumers/groups/...} from a session holding a term
 * is a {@code Written} under the version of its {@code check(/consumers/epoch, v)} if it has one, else under the
 * term's epoch. Such writes from sessions that never held a term (the admin CLI, a test) are not coordinator writes:
 * they yield no {@code Written} and are counted in {@link Result#foreignGroupWrites()}. Their values are still
 * committed values, so they do yield {@code OffsetRead}s and {@code OwnerRead}s.
 *
 * <p><b>Time.</b> A transaction's {@code timeMs} (the leader's wall clock) is mapped onto this JVM's
 * {@link System#nanoTime()} through one pair captured at the run's start, and each entry is stamped at least 1 ns
 * after the one before: among these entries history order is zxid order.
 */
final class TxnInterpreter {
    private static final String GROUPS_PREFIX = ZkPaths.GROUPS + "/";

    /** The entries, and how many stored values could not be decoded. */
    record Result(List<Entry> entries, int garbageValues, int foreignGroupWrites) {}

    /** One session's hold on {@code /consumers/coordinator}. */
    private static final class Term {
        final int broker;
        final long createZxid;
        final int epochAtCreate;
        final Slot electedSlot; // where Elected goes if no bump settles the epoch first
        Integer epoch; // null until settled

        Term(int broker, long createZxid, int epochAtCreate, Slot electedSlot) {
            this.broker = broker;
            this.createZxid = createZxid;
            this.epochAtCreate = epochAtCreate;
            this.electedSlot = electedSlot;
        }
    }

    /** A place in the output order; {@code make} stays null if nothing ends up there. */
    private static final class Slot {
        final long timeMs;
        LongFunction<Entry> make;

        Slot(long timeMs, LongFunction<Entry> make) {
            this.timeMs = timeMs;
            this.make = make;
        }
    }

    private final List<Slot> slots = new ArrayList<>();
    private final Map<Long, Term> terms = new HashMap<>();
    private int epochVersion = -1; // -1 while /consumers/epoch does not exist
    private int garbageValues;
    private int foreignGroupWrites;

    private TxnInterpreter() {}

    /**
     * @param txns committed transactions in zxid order (failed ones are skipped)
     * @param wallMsAtStart {@link System#currentTimeMillis()} taken together with {@code nanoAtStart}
     */
    static Result interpret(List<ZkTxn> txns, long wallMsAtStart, long nanoAtStart) {
        TxnInterpreter interpreter = new TxnInterpreter();
        for (ZkTxn txn : txns) {
            if (txn.applied()) {
                interpreter.apply(txn);
            }
        }
        return new Result(interpreter.stamp(wallMsAtStart, nanoAtStart), interpreter.garbageValues,
                interpreter.foreignGroupWrites);
    }

    private void apply(ZkTxn txn) {
        List<Slot> reads = new ArrayList<>();
        List<ZkOp> groupOps = new ArrayList<>();
        Integer checkedEpoch = null;
        for (ZkOp op : txn.ops()) {
            if (op.path().equals(ZkPaths.COORDINATOR) && op.kind() == ZkOp.Kind.CREATE) {
                beginTerm(txn, op);
            } else if (op.path().equals(ZkPaths.EPOCH)) {
                checkedEpoch = op.kind() == ZkOp.Kind.CHECK ? Integer.valueOf(op.version()) : checkedEpoch;
                epochChanged(txn, op);
            } else if (op.path().startsWith(GROUPS_PREFIX)) {
                groupOps.add(op);
                read(txn, op).ifPresent(reads::add);
            }
        }
        if (!groupOps.isEmpty()) {
            written(txn, groupOps, checkedEpoch);
        }
        slots.addAll(reads);
    }

    private void beginTerm(ZkTxn txn, ZkOp create) {
        int broker;
        try {
            broker = ZnodeCodec.decodeCoordinator(create.path(), create.data());
        } catch (ZnodeFormatException e) {
            garbageValues++;
            broker = -1;
        }
        Slot slot = new Slot(txn.timeMs(), null);
        slots.add(slot);
        terms.put(txn.session(), new Term(broker, txn.zxid(), epochVersion, slot));
    }

    /** Tracks the epoch's data version; the first bump of a term settles its epoch. */
    private void epochChanged(ZkTxn txn, ZkOp op) {
        switch (op.kind()) {
            case CREATE -> epochVersion = 0;
            case DELETE -> epochVersion = -1;
            case SET_DATA -> {
                epochVersion = op.version();
                Term term = terms.get(txn.session());
                if (term != null && term.epoch == null) {
                    term.epoch = op.version();
                    int broker = term.broker;
                    int epoch = op.version();
                    slots.add(new Slot(txn.timeMs(), nano -> new Entry.Elected(nano, broker, epoch, txn.zxid())));
                }
            }
            case CHECK -> { } // changes nothing
        }
    }

    private void written(ZkTxn txn, List<ZkOp> groupOps, Integer checkedEpoch) {
        Term term = terms.get(txn.session());
        if (term == null) {
            foreignGroupWrites++;
            return;
        }
        if (term.epoch == null) {
            // Writing without a bump: it acts under the epoch it found (fencing off). Elected takes the create's place.
            term.epoch = term.epochAtCreate;
            int broker = term.broker;
            int epoch = term.epochAtCreate;
            long zxid = term.createZxid;
            term.electedSlot.make = nano -> new Entry.Elected(nano, broker, epoch, zxid);
        }
        int epoch = checkedEpoch != null ? checkedEpoch : term.epoch;
        int broker = term.broker;
        String what = describe(txn, groupOps);
        slots.add(new Slot(txn.timeMs(), nano -> new Entry.Written(nano, broker, epoch, txn.zxid(), what)));
    }

    /** {@code setData /consumers/groups/g/offsets/t/0 (+2 more)}: the first group path, and how many others. */
    static String describe(ZkTxn txn, List<ZkOp> groupOps) {
        ZkOp first = groupOps.get(0);
        String more = groupOps.size() == 1 ? "" : " (+" + (groupOps.size() - 1) + " more)";
        return txn.type() + ": " + first.kind() + " " + first.path() + more;
    }

    /** An OffsetRead or OwnerRead for a value written to an offsets or owners node. */
    private Optional<Slot> read(ZkTxn txn, ZkOp op) {
        if (op.kind() != ZkOp.Kind.CREATE && op.kind() != ZkOp.Kind.SET_DATA) {
            return Optional.empty();
        }
        // /consumers/groups/<g>/<offsets|owners>/<topic>/<partition>
        String[] parts = op.path().substring(GROUPS_PREFIX.length()).split("/", -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        String group = parts[0];
        String topic = parts[2];
        String partition = parts[3];
        try {
            return switch (parts[1]) {
                case "offsets" -> {
                    long offset = ZnodeCodec.decodeOffset(op.path(), op.data());
                    yield Optional.of(new Slot(txn.timeMs(), nano -> new Entry.OffsetRead(nano, group,
                            topic, partition, offset)));
                }
                case "owners" -> {
                    ZnodeCodec.OwnerValue owner = ZnodeCodec.decodeOwner(op.path(), op.data());
                    yield Optional.of(new Slot(txn.timeMs(), nano -> new Entry.OwnerRead(nano, group,
                            topic, partition, owner.owner().consumerId(), owner.generation())));
                }
                default -> Optional.empty();
            };
        } catch (ZnodeFormatException e) {
            garbageValues++;
            return Optional.empty();
        }
    }

    /** Builds the entries in order, each at least 1 ns after the one before. */
    private List<Entry> stamp(long wallMsAtStart, long nanoAtStart) {
        List<Entry> entries = new ArrayList<>();
        long previous = Long.MIN_VALUE;
        for (Slot slot : slots) {
            if (slot.make == null) {
                continue;
            }
            long mapped = nanoAtStart + (slot.timeMs - wallMsAtStart) * 1_000_000L;
            long nano = previous == Long.MIN_VALUE ? mapped : Math.max(previous + 1, mapped);
            entries.add(slot.make.apply(nano));
            previous = nano;
        }
        return entries;
    }
}
