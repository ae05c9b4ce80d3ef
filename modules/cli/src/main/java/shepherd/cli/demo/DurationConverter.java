package shepherd.cli.demo;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code 20s}, {@code 2m}, {@code 1m30s}, {@code 1500ms} or plain seconds ({@code 45}). */
final class DurationConverter implements ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    static Duration parse(String value) {
        String text = value.trim().toLowerCase();
        if (text.matches("\\d+")) {
            return Duration.ofSeconds(Long.parseLong(text));
        }
        Matcher m = PART.matcher(text);
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            });
            end = m.end();
        }
        if (end == 0 || end != text.length()) {
            throw new TypeConversionException("'" + value + "' is no duration: use 20s, 2m, 1m30s or seconds");
        }
        return total;
    }
}
