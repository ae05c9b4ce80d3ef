package shepherd.consumer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A partition source in memory for tests: {@link #append} records, readers wait for them. */
public final class MemorySource implements PartitionSource {
    private final Map<String, List<byte[]>> logs = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "memory";
    }

    /** Appends {@code "<topic>/<partition>:<offset>"} records until the log has {@code count}. */
    public void fill(String topic, String partition, int count) {
        List<byte[]> log = log(topic, partition);
        synchronized (log) {
            while (log.size() < count) {
                log.add((topic + "/" + partition + ":" + log.size()).getBytes(StandardCharsets.UTF_8));
            }
            log.notifyAll();
        }
    }

    private List<byte[]> log(String topic, String partition) {
        return logs.computeIfAbsent(topic + "/" + partition, k -> new ArrayList<>());
    }

    @Override
    public PartitionLogs open(Map<String, String> settings) {
        if (!settings.isEmpty()) {
            throw new InvalidSourceSettingsException(settings.keySet().iterator().next(), "memory takes no settings");
        }
        return new PartitionLogs() {
            @Override
            public long earliestOffset(String topic, String partition) {
                return 0;
            }

            @Override
            public long latestOffset(String topic, String partition) {
                List<byte[]> log = log(topic, partition);
                synchronized (log) {
                    return log.size();
                }
            }

            @Override
            public PartitionReader reader(String topic, String partition, long offset) {
                List<byte[]> log = log(topic, partition);
                return new PartitionReader() {
                    private long next = offset;

                    @Override
                    public List<SourceRecord> read(int maxRecords, long waitMs) throws InterruptedException {
                        synchronized (log) {
                            if (log.size() <= next) {
                                log.wait(waitMs);
                            }
                            List<SourceRecord> out = new ArrayList<>();
                            while (next < log.size() && out.size() < maxRecords) {
                                out.add(new SourceRecord(next, log.get((int) next)));
                                next++;
                            }
                            return out;
                        }
                    }

                    @Override
                    public void close() {}
                };
            }

            @Override
            public void close() {}
        };
    }
}
