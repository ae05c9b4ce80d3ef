package shepherd.coordination;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.UnknownAssignorException;
import shepherd.protocol.IdRule;

/**
 * Which assignor each group uses (docs/assignors.md, "Choosing a group's assignor"): {@code defaultName} for a group
 * the coordinator creates, and {@code byGroup} for the groups an operator named, whatever their node in ZooKeeper
 * says. Every name is an installed assignor and every group a valid id, checked here, so a broker with a typo refuses
 * to start rather than rebalance with a fallback.
 *
 * @param defaultName the assignor of a group created by its first registration ({@code range} unless configured)
 * @param byGroup     group id → assignor, overriding the group's node
 */
public record GroupAssignors(String defaultName, Map<String, String> byGroup) {

    /** {@code range} for every group, as the seed does. */
    public static final GroupAssignors DEFAULT = new GroupAssignors(Assignors.DEFAULT_NAME, Map.of());

    /**
     * @throws UnknownAssignorException if a name is not installed (its message lists the installed ones)
     * @throws IllegalArgumentException if a group id breaks the id rule
     */
    public GroupAssignors {
        requireInstalled(defaultName);
        TreeMap<String, String> copy = new TreeMap<>();
        byGroup.forEach((group, name) -> {
            Optional<String> bad = IdRule.violation(group);
            if (bad.isPresent()) {
                throw new IllegalArgumentException("group id " + bad.get());
            }
            requireInstalled(name);
            copy.put(group, name);
        });
        byGroup = Collections.unmodifiableSortedMap(copy);
    }

    /** The assignor of a group the coordinator creates now. */
    public String forNewGroup(String group) {
        return byGroup.getOrDefault(group, defaultName);
    }

    /** The assignor configured for {@code group} over its node's, if an operator named one. */
    public Optional<String> override(String group) {
        return Optional.ofNullable(byGroup.get(group));
    }

    private static void requireInstalled(String name) {
        Assignors.byName(String.valueOf(name)); // throws UnknownAssignorException, listing the installed names
    }
}
