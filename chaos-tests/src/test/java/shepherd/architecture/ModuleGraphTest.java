package shepherd.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Fails the build when a module's descriptor breaks the dependency direction of DESIGN §2. The Maven enforcer
 * bans the artifacts (Netty, ZooKeeper, logging) from the sans-I/O modules' dependency trees; this test checks what
 * the compiled descriptors actually {@code require}, for every project module, and proves it can fail.
 */
class ModuleGraphTest {

    @Test
    void everyProjectModuleRespectsTheDependencyDirection() {
        Map<String, ModuleDescriptor> modules = projectModulesOnTheTestPath();
        assertEquals(ModuleRules.PROJECT_EDGES.keySet(), modules.keySet(),
                "every module of DESIGN §2 must be built and checked");
        List<String> violations = new ArrayList<>();
        modules.values().forEach(descriptor -> violations.addAll(ModuleRules.violations(descriptor)));
        assertEquals(List.of(), violations);
    }

    @Test
    void theZooKeeperBundleIsANamedModule() {
        ModuleDescriptor bundle = descriptorOf("org.apache.zookeeper")
                .orElseThrow(() -> new AssertionError("org.apache.zookeeper is not a named module on the path"));
        assertTrue(bundle.exports().stream().anyMatch(e -> e.source().equals("org.apache.zookeeper")));
        assertTrue(!bundle.isAutomatic(), "the bundle must carry a real module descriptor");
    }

    // Negative controls: the checker catches each kind of forbidden edge.

    @Test
    void nettyInTheCoordinationCoreIsRejected() {
        assertRejected(module("shepherd.coordination", "shepherd.protocol", "io.netty.buffer"), "io.netty.buffer");
    }

    @Test
    void zooKeeperInTheCoordinationCoreIsRejected() {
        assertRejected(module("shepherd.coordination", "org.apache.zookeeper"), "org.apache.zookeeper");
    }

    @Test
    void metricsOutsideTheBrokerAreRejected() {
        assertRejected(module("shepherd.coordination", "shepherd.protocol", "io.micrometer.prometheus.bundle"),
                "io.micrometer.prometheus.bundle");
        assertRejected(module("shepherd.consumer", "shepherd.protocol", "shepherd.transport",
                "io.micrometer.prometheus.bundle"), "io.micrometer.prometheus.bundle");
    }

    @Test
    void loggingOrPlatformIoInTheProtocolIsRejected() {
        assertRejected(module("shepherd.protocol", "org.slf4j"), "org.slf4j");
        assertRejected(module("shepherd.protocol", "java.logging"), "java.logging");
    }

    @Test
    void anUpwardEdgeIsRejected() {
        assertRejected(module("shepherd.transport", "shepherd.broker"), "shepherd.broker");
        assertRejected(module("shepherd.consumer", "shepherd.coordination"), "shepherd.coordination");
    }

    @Test
    void aModuleMissingFromTheTableIsRejected() {
        assertEquals(1, ModuleRules.violations(module("shepherd.unplanned")).size());
    }

    @Test
    void edgesTheTableAllowsAreAccepted() {
        assertEquals(List.of(), ModuleRules.violations(
                module("shepherd.broker", "shepherd.protocol", "shepherd.zookeeper", "java.management", "org.slf4j")));
    }

    private static void assertRejected(ModuleDescriptor descriptor, String offending) {
        List<String> violations = ModuleRules.violations(descriptor);
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).contains("must not require " + offending), violations.get(0));
    }

    private static ModuleDescriptor module(String name, String... requires) {
        ModuleDescriptor.Builder builder = ModuleDescriptor.newModule(name);
        for (String target : requires) {
            builder.requires(target);
        }
        return builder.build();
    }

    /** The project's named modules among this test's dependencies (jars or class folders, found by descriptor). */
    private static Map<String, ModuleDescriptor> projectModulesOnTheTestPath() {
        Map<String, ModuleDescriptor> modules = new TreeMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            descriptorAt(Path.of(entry))
                    .filter(d -> d.name().startsWith("shepherd."))
                    .ifPresent(d -> modules.put(d.name(), d));
        }
        return modules;
    }

    private static Optional<ModuleDescriptor> descriptorOf(String name) {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Optional<ModuleDescriptor> descriptor = descriptorAt(Path.of(entry)).filter(d -> d.name().equals(name));
            if (descriptor.isPresent()) {
                return descriptor;
            }
        }
        return Optional.empty();
    }

    /** The explicit descriptor at one class-path entry; automatic modules and unreadable entries are skipped. */
    private static Optional<ModuleDescriptor> descriptorAt(Path entry) {
        try {
            return ModuleFinder.of(entry).findAll().stream()
                    .map(reference -> reference.descriptor())
                    .filter(descriptor -> !descriptor.isAutomatic())
                    .findFirst();
        } catch (FindException e) {
            return Optional.empty();
        }
    }
}
