package shepherd.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version stamped into {@code version.properties} by the build, and the Java runtime it runs on. */
final class VersionProvider implements IVersionProvider {
    static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("shepherd/cli/version.properties is missing from the build");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String[] getVersion() {
        Runtime.Version java = Runtime.version();
        return new String[] {
            "shepherd " + version(),
            "Java " + java + " (" + System.getProperty("java.vm.name") + ")"
        };
    }
}
