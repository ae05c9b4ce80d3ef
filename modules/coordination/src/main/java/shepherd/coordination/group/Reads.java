package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.ZkRead;

/**
 * The coordinator's ZooKeeper reads: issued, failed and retried. For group reads it also keeps which are pending
 * (the group is not known yet, or is being re-read) and how many are outstanding per group, which is what the
 * offsets re-read of an emptied group must know ({@code Rebalance.reloadOffsets}).
 */
public final class Reads {
    private final Core core;
    private final Set<String> groupsPending = new TreeSet<>();
    /** Group reads issued and not answered yet (answer or failure), per group. */
    private final Map<String, Integer> groupsOutstanding = new TreeMap<>();
    private final Set<ZkRead> failed = new LinkedHashSet<>();

    public Reads(Core core) {
        this.core = core;
    }

    public void read(ZkRead read) {
        if (read instanceof ZkRead.Group g) {
            groupsPending.add(g.group());
            groupsOutstanding.merge(g.group(), 1, Integer::sum);
        }
        core.emit(new CoordinatorEffect.Read(read));
    }

    /** A read of the group was answered: it is known now, and one fewer read of it is outstanding. */
    public void groupAnswered(String group) {
        groupsPending.remove(group);
        groupFinished(group);
    }

    /** A read failed: retried after {@code zkRetryMs}. */
    public void failed(ZkRead read) {
        failed.add(read);
        core.setTimer(new CoordinatorTimer.ZkRetry(), core.now() + core.config().zkRetryMs());
        if (read instanceof ZkRead.Group g) {
            groupFinished(g.group());
        }
    }

    /** Issues every failed read again. */
    public void retry() {
        List<ZkRead> again = new ArrayList<>(failed);
        failed.clear();
        again.forEach(this::read);
    }

    public boolean groupPending(String group) {
        return groupsPending.contains(group);
    }

    public boolean noGroupPending() {
        return groupsPending.isEmpty();
    }

    boolean groupOutstanding(String group) {
        return groupsOutstanding.containsKey(group);
    }

    public void clear() {
        groupsPending.clear();
        groupsOutstanding.clear();
        failed.clear();
    }

    private void groupFinished(String group) {
        groupsOutstanding.computeIfPresent(group, (name, n) -> n > 1 ? n - 1 : null);
    }
}
