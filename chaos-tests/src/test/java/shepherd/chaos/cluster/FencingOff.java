package shepherd.chaos.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import shepherd.chaos.unsafe.TestSupportJar;

/**
 * The negative control's broker: fencing switched off with {@code test.fencing=disabled}, which a broker accepts
 * only with the test-support provider on its class path (a jar the chaos build writes; the image has none).
 */
final class FencingOff {
    private FencingOff() {}

    static List<String> brokerArguments() {
        return List.of("--set", "test.fencing=disabled");
    }

    static Map<String, String> brokerEnvironment(Path dir) throws IOException {
        return Map.of("CLASSPATH", TestSupportJar.build(dir).toString());
    }
}
