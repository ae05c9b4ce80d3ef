package shepherd.source.file;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import shepherd.consumer.InvalidSourceSettingsException;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionSource;

/**
 * The {@code file} source: checks the settings and opens a {@link FileLogs} on {@code root}. Public with a public
 * no-argument constructor only because {@link java.util.ServiceLoader} needs that of a provider on the class path;
 * the package is not exported.
 */
public final class FileSource implements PartitionSource {
    static final String NAME = "file";

    /** The directory holding {@code <topic>/<partition>.log}; must exist when the consumer starts. */
    static final String ROOT = "root";

    private static final Set<String> KNOWN_SETTINGS = Set.of(ROOT);

    public FileSource() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public PartitionLogs open(Map<String, String> settings) {
        Objects.requireNonNull(settings, "settings");
        throwIfUnknownSettings(settings);
        return new FileLogs(rootDirectory(settings.get(ROOT)), FileLogs.RECORD_BYTES_MAX);
    }

    /** A typo in a key would otherwise be ignored silently and the consumer would read from somewhere else. */
    private static void throwIfUnknownSettings(Map<String, String> settings) {
        Set<String> unknown = new TreeSet<>(settings.keySet());
        unknown.removeAll(KNOWN_SETTINGS);
        if (!unknown.isEmpty()) {
            String first = unknown.iterator().next();
            throw new InvalidSourceSettingsException(first, "unknown setting" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown) + " for source " + NAME + "; known settings: "
                    + new TreeSet<>(KNOWN_SETTINGS));
        }
    }

    /**
     * The root must exist now: a missing directory is far more often a typo or an unmounted volume than a source
     * that will appear later, and waiting on it would look like an idle topic. (Missing topic directories and log
     * files under it are normal and read as empty logs.)
     */
    private static Path rootDirectory(String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidSourceSettingsException(ROOT, "setting " + ROOT + " is required (got "
                    + (value == null ? "nothing" : "'" + value + "'") + "): the directory holding "
                    + "<topic>/<partition>.log");
        }
        Path root;
        try {
            root = Path.of(value);
        } catch (InvalidPathException e) {
            throw new InvalidSourceSettingsException(ROOT, "setting " + ROOT + "='" + value + "' is not a valid path: "
                    + e.getReason());
        }
        if (!Files.isDirectory(root)) {
            throw new InvalidSourceSettingsException(ROOT, "setting " + ROOT + "='" + value + "' is not an existing "
                    + "directory" + (Files.exists(root) ? "" : " (it does not exist)"));
        }
        return root.toAbsolutePath().normalize();
    }
}
