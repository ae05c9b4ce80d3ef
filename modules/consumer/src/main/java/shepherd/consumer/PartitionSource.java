package shepherd.consumer;

import java.util.Map;

/**
 * Where records come from: a service ({@code uses} in {@code shepherd.consumer}, {@code provides} in a source
 * module) that the consumer finds by {@link #name()} through {@link java.util.ServiceLoader}. The built-in
 * {@code file} source ({@code shepherd.source.file}) reads {@code <root>/<topic>/<partition>.log}.
 *
 * <p>A provider needs a public no-argument constructor (or a static {@code provider()} method) and holds no state:
 * each consumer calls {@link #open} once with its own settings and closes what it got at shutdown.
 */
public interface PartitionSource {

    /** The name applications choose this source by ({@code ConsumerConfig.Builder#source}), e.g. {@code "file"}. */
    String name();

    /**
     * Opens the source with the consumer's settings (for {@code file}: {@code root}).
     *
     * @throws InvalidSourceSettingsException a missing or invalid setting, naming the key and the offending value
     */
    PartitionLogs open(Map<String, String> settings);
}
