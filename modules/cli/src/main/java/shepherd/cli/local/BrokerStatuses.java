package shepherd.cli.local;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import shepherd.broker.Broker;
import shepherd.broker.BrokerStatus;

/**
 * Each running broker's {@link BrokerStatus} at one moment, or the exception reading it threw (a broker halted
 * meanwhile), and which of them coordinate.
 */
final class BrokerStatuses {
    private final Map<Integer, Object> statuses;

    private BrokerStatuses(Map<Integer, Object> statuses) {
        this.statuses = statuses;
    }

    static BrokerStatuses of(Map<Integer, Broker> live) {
        Map<Integer, Object> statuses = new LinkedHashMap<>();
        live.forEach((id, broker) -> {
            try {
                statuses.put(id, broker.status());
            } catch (IllegalStateException e) {
                statuses.put(id, e);
            }
        });
        return new BrokerStatuses(statuses);
    }

    /** The brokers whose status says they coordinate (loading, waiting out leases, active or handing over). */
    List<Integer> coordinators() {
        return statuses.entrySet().stream()
                .filter(e -> e.getValue() instanceof BrokerStatus s && s.coordinating())
                .map(Map.Entry::getKey).toList();
    }

    /** Every broker's role, epoch and groups, for the message of a wait that timed out. */
    String describe() {
        if (statuses.isEmpty()) {
            return "no broker is running";
        }
        return statuses.entrySet().stream().map(e -> "broker " + e.getKey() + ": " + (e.getValue()
                        instanceof BrokerStatus s ? s.role() + " epoch " + s.epoch() + " groups " + s.groups().keySet()
                        : "status unreadable (" + e.getValue() + ")"))
                .collect(Collectors.joining(", "));
    }
}
