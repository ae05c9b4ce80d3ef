package shepherd.chaos.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import shepherd.chaos.history.Entry;

/**
 * The brokers' part of the history: the facts a broker logs once each (docs/broker.md#logging) read back from its
 * log file as {@link Entry.BrokerEvent}s. The log stamps wall-clock time of day to the millisecond; it is mapped
 * onto the run's {@code nanoTime} scale through one (wall clock, nanoTime) pair taken at the run's start.
 */
public final class BrokerLogs {
    private static final List<String> EVENTS = List.of("election won", "role changed", "zookeeper disconnected",
            "zookeeper reconnected", "zookeeper session expired", "rebalance ended", "handed over", "notice");
    private static final Pattern LINE = Pattern.compile(
            "^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) +\\w+ +\\[[^]]*] shepherd\\.broker\\.BrokerLoop - (.*)$");

    private BrokerLogs() {}

    /** The events of broker {@code broker}'s log; lines of other kinds (and torn ones) are skipped. */
    public static List<Entry> read(Path log, int broker, long startWallMs, long startNanos) {
        List<String> lines;
        try {
            lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
        ZoneId zone = ZoneId.systemDefault();
        LocalDate day = java.time.Instant.ofEpochMilli(startWallMs).atZone(zone).toLocalDate();
        List<Entry> out = new ArrayList<>();
        long previousWall = Long.MIN_VALUE;
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String message = m.group(2);
            String event = EVENTS.stream().filter(message::startsWith).findFirst().orElse(null);
            if (event == null) {
                continue;
            }
            long wall;
            try {
                wall = day.atTime(LocalTime.parse(m.group(1))).atZone(zone).toInstant().toEpochMilli();
            } catch (DateTimeParseException e) {
                continue;
            }
            if (previousWall != Long.MIN_VALUE && wall < previousWall - 12 * 3_600_000L) {
                day = day.plusDays(1); // the run went past midnight
                wall += 24 * 3_600_000L;
            }
            previousWall = wall;
            out.add(new Entry.BrokerEvent(startNanos + (wall - startWallMs) * 1_000_000L, broker, event,
                    message.substring(event.length()).trim()));
        }
        return out;
    }
}
