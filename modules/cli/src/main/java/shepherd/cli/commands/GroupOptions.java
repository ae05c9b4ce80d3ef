package shepherd.cli.commands;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The options every {@code shepherd groups} subcommand takes. */
public final class GroupOptions {
    @Option(names = "--bootstrap", required = true, split = ",", paramLabel = "HOST:PORT[,HOST:PORT...]",
            converter = AddressConverter.class,
            description = "Brokers to ask which broker is the coordinator; any live one will do, the others are "
                    + "tried in turn.")
    List<InetSocketAddress> bootstrap;

    @Option(names = "--file-root", paramLabel = "DIR",
            description = "Root directory of the file partition source (DIR/<topic>/<partition>.log). When given, "
                    + "a LAG column shows, per partition, the offset the next appended record will get minus the "
                    + "committed offset.")
    Path fileRoot;

    @Option(names = "--watch",
            description = "Refresh every --interval until Ctrl-C: in place on a terminal, as repeated blocks "
                    + "otherwise (a pipe or a file). Errors are shown and retried instead of ending the command.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "Time between refreshes with --watch: 500ms, 2s, 1m, or a number of seconds "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0",
            description = "With --watch: stop after N refreshes (default: 0, until Ctrl-C).")
    int count;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
            description = "How long to wait for each broker's answer (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    /** {@code host:port}; an IPv6 literal in brackets ({@code [::1]:7070}). */
    static final class AddressConverter implements ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String value) {
            String text = value.strip();
            int colon = text.lastIndexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new TypeConversionException("'" + value + "' is not HOST:PORT");
            }
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "': port is not a number");
            }
            if (port < 1 || port > 65_535) {
                throw new TypeConversionException("'" + value + "': port must be 1..65535");
            }
            return InetSocketAddress.createUnresolved(host, port);
        }
    }

    /** {@code 500ms}, {@code 2s}, {@code 1m}, or a plain number of seconds; must be positive. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String text = value.strip().toLowerCase(Locale.ROOT);
            Duration d;
            try {
                if (text.endsWith("ms")) {
                    d = Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2).strip()));
                } else if (text.endsWith("s")) {
                    d = Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000));
                } else if (text.endsWith("m")) {
                    d = Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1).strip()) * 60);
                } else {
                    d = Duration.ofMillis(Math.round(Double.parseDouble(text) * 1000));
                }
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a duration (e.g. 500ms, 2s, 1m)");
            }
            if (d.isNegative() || d.isZero()) {
                throw new TypeConversionException("'" + value + "' must be positive");
            }
            return d;
        }
    }
}
