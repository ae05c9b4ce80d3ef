package shepherd.architecture;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The module graph of DESIGN §2 as data, and a checker of module descriptors against it.
 *
 * <p>A module may require the project modules the table names and, since the graph is layered, anything those
 * reach in turn; third-party modules only where the table names them; and platform modules ({@code java.*},
 * {@code jdk.*}) freely, except the sans-I/O modules {@code shepherd.protocol} and {@code shepherd.coordination},
 * which may see {@code java.base} alone: no threads of their own, no clocks, no sockets, no logging frameworks.
 */
final class ModuleRules {

    /** Project module → the project modules it may require directly (DESIGN §2, "requires"). */
    static final Map<String, Set<String>> PROJECT_EDGES = Map.of(
            "shepherd.protocol", Set.of(),
            "shepherd.coordination", Set.of("shepherd.protocol"),
            "shepherd.zookeeper", Set.of("shepherd.coordination"),
            "shepherd.transport", Set.of("shepherd.protocol"),
            "shepherd.consumer", Set.of("shepherd.protocol", "shepherd.transport"),
            "shepherd.source.file", Set.of("shepherd.consumer"),
            "shepherd.broker", Set.of("shepherd.coordination", "shepherd.zookeeper", "shepherd.transport"),
            "shepherd.cli", Set.of("shepherd.broker", "shepherd.consumer", "shepherd.source.file"),
            "shepherd.testkit", Set.of("shepherd.coordination", "shepherd.consumer", "shepherd.zookeeper"),
            "shepherd.simulation", Set.of("shepherd.testkit"));

    /** Project module → name prefixes of the third-party modules it may require. */
    static final Map<String, List<String>> THIRD_PARTY = Map.of(
            "shepherd.protocol", List.of(),
            "shepherd.coordination", List.of(),
            "shepherd.zookeeper", List.of("org.apache.zookeeper", "org.slf4j"),
            "shepherd.transport", List.of("io.netty.", "org.slf4j"),
            "shepherd.consumer", List.of("org.slf4j"),
            "shepherd.source.file", List.of("org.slf4j"),
            // The metrics bundle (Micrometer + Prometheus as one named module) is the broker's alone: the sans-I/O
            // core reports plain values (Notice kinds) and the broker turns them into meters.
            "shepherd.broker", List.of("org.slf4j", "io.micrometer.prometheus.bundle"),
            "shepherd.cli", List.of("info.picocli", "org.slf4j"),
            "shepherd.testkit", List.of(),
            "shepherd.simulation", List.of());

    /** The modules that must stay sans-I/O: {@code java.base} is their only platform module. */
    static final Set<String> SANS_IO = Set.of("shepherd.protocol", "shepherd.coordination");

    private ModuleRules() {
    }

    /** Every rule the descriptor breaks, as sentences naming the module and the offending {@code requires}. */
    static List<String> violations(ModuleDescriptor descriptor) {
        String module = descriptor.name();
        if (!PROJECT_EDGES.containsKey(module)) {
            return List.of(module + " is not in the module table of DESIGN §2 (add it there and here first)");
        }
        List<String> violations = new ArrayList<>();
        for (Requires requires : descriptor.requires()) {
            String target = requires.name();
            if (!mayRequire(module, target)) {
                violations.add(module + " must not require " + target + " (DESIGN §2: " + allowedText(module) + ")");
            }
        }
        return violations;
    }

    private static boolean mayRequire(String module, String target) {
        if (target.equals("java.base")) {
            return true;
        }
        if (target.startsWith("java.") || target.startsWith("jdk.")) {
            return !SANS_IO.contains(module);
        }
        if (target.startsWith("shepherd.")) {
            return reachable(module).contains(target);
        }
        return THIRD_PARTY.get(module).stream()
                .anyMatch(prefix -> prefix.endsWith(".") ? target.startsWith(prefix) : target.equals(prefix));
    }

    /** The project modules below {@code module}: what its table entries name, and what those reach in turn. */
    static Set<String> reachable(String module) {
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(PROJECT_EDGES.get(module));
        while (!todo.isEmpty()) {
            String next = todo.pop();
            if (seen.add(next)) {
                todo.addAll(PROJECT_EDGES.getOrDefault(next, Set.of()));
            }
        }
        return seen;
    }

    private static String allowedText(String module) {
        String platform = SANS_IO.contains(module) ? "java.base only" : "java.*/jdk.*";
        return "may require " + reachable(module) + ", third party " + THIRD_PARTY.get(module) + ", platform "
                + platform;
    }
}
