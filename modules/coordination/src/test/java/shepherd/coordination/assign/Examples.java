package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Compact notation for hand-written examples. */
final class Examples {
    private Examples() {}

    /** Partitions {@code "0-0" … "0-(count-1)"}: broker 0, n from 0. */
    static List<PartitionId> onBroker0(int count) {
        List<PartitionId> partitions = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            partitions.add(new PartitionId(0, n));
        }
        return partitions;
    }

    static List<PartitionId> partitions(String... ids) {
        List<PartitionId> partitions = new ArrayList<>();
        for (String id : ids) {
            partitions.add(PartitionId.parse(id));
        }
        return partitions;
    }

    static List<StreamId> streams(String... ids) {
        List<StreamId> streams = new ArrayList<>();
        for (String id : ids) {
            streams.add(StreamId.parse(id));
        }
        return streams;
    }

    /** Stream → its partitions as {@code "topic/partition"} strings, for readable expectations. */
    static SortedMap<String, List<String>> byStream(Assignment assignment) {
        SortedMap<String, List<String>> readable = new TreeMap<>();
        assignment.byStream().forEach((stream, partitions) -> {
            List<String> names = new ArrayList<>();
            partitions.forEach(tp -> names.add(tp.toString()));
            readable.put(stream.toString(), names);
        });
        return readable;
    }

    /** {@code "c-0", List.of("t/0-0", …), …} as a sorted map, mirroring {@link #byStream}. */
    static SortedMap<String, List<String>> expect(Object... streamThenPartitions) {
        Map<String, List<String>> expected = new LinkedHashMap<>();
        for (int i = 0; i < streamThenPartitions.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<String> partitions = (List<String>) streamThenPartitions[i + 1];
            expected.put((String) streamThenPartitions[i], partitions);
        }
        return new TreeMap<>(expected);
    }
}
