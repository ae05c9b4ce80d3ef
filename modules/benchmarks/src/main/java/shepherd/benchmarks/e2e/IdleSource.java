package shepherd.benchmarks.e2e;

import java.util.List;
import java.util.Map;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionReader;
import shepherd.consumer.PartitionSource;
import shepherd.consumer.SourceRecord;

/**
 * A source whose every partition is empty and whose readers block until their fetcher is closed (interrupted).
 * The harness measures coordination, not reading: the {@code file} source polls an idle log every 10 ms, which for
 * 1,024 fetcher threads on a 2-core machine would be most of the CPU and would be measured with everything else.
 * Fetchers still start and stop per partition and generation exactly as with any source.
 */
final class IdleSource implements PartitionSource {
    @Override
    public String name() {
        return "idle";
    }

    @Override
    public PartitionLogs open(Map<String, String> settings) {
        return new PartitionLogs() {
            @Override
            public long earliestOffset(String topic, String partition) {
                return 0;
            }

            @Override
            public long latestOffset(String topic, String partition) {
                return 0;
            }

            @Override
            public PartitionReader reader(String topic, String partition, long offset) {
                return new PartitionReader() {
                    @Override
                    public List<SourceRecord> read(int maxRecords, long waitMs) throws InterruptedException {
                        Thread.sleep(Long.MAX_VALUE); // until the fetcher is closed: it interrupts this thread
                        return List.of();
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
