package shepherd.cli.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalLong;
import java.util.ServiceLoader;
import shepherd.consumer.InvalidSourceSettingsException;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionSource;

/**
 * Lag from the {@code file} partition source: the offset the next appended record of a partition will get minus the
 * group's committed offset. The source is found as consumers find it, through {@link ServiceLoader}, so the command
 * reads the logs exactly as a consumer of the group would.
 */
final class GroupLag implements AutoCloseable {
    static final String SOURCE = "file";

    private final PartitionLogs logs;

    private GroupLag(PartitionLogs logs) {
        this.logs = logs;
    }

    /**
     * @throws GroupAdminException the {@code file} source is not installed, or {@code root} is not a directory
     */
    static GroupLag open(Path root) {
        PartitionSource source = ServiceLoader.load(PartitionSource.class).stream()
                .map(ServiceLoader.Provider::get).filter(s -> s.name().equals(SOURCE)).findFirst()
                .orElseThrow(() -> new GroupAdminException("the '" + SOURCE + "' partition source is not installed"));
        try {
            return new GroupLag(source.open(Map.of("root", root.toString())));
        } catch (InvalidSourceSettingsException e) {
            throw new GroupAdminException("--file-root: " + e.getMessage());
        }
    }

    /** Records not consumed yet; empty when nothing is committed (where a consumer starts is its reset policy). */
    OptionalLong lag(String topic, String partition, long committedOffset) {
        if (committedOffset < 0) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Math.max(0, logs.latestOffset(topic, partition) - committedOffset));
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    @Override
    public void close() {
        try {
            logs.close();
        } catch (IOException e) {
            // read-only; nothing to lose
        }
    }
}
