package shepherd.examples.blacklist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import shepherd.examples.blacklist.Options.UsageException;

class OptionsTest {

    @Test
    void aCompleteCommandLineIsRead() throws UsageException {
        Options options = Options.parse("--bootstrap", "127.0.0.1:9092", "--group", "audit", "--blacklist",
                "internal-.*|.*-dlq", "--root", "/var/log/shepherd", "--streams", "3");
        assertEquals(new Options("127.0.0.1:9092", "audit", "internal-.*|.*-dlq", "/var/log/shepherd", 3), options);
    }

    @Test
    void streamsDefaultToTwo() throws UsageException {
        Options options = Options.parse("--bootstrap", "b:1", "--group", "g", "--blacklist", "x", "--root", "r");
        assertEquals(Options.STREAMS_DEFAULT, options.streams());
    }

    @Test
    void noArgumentsNameEveryMissingOption() {
        UsageException e = assertThrows(UsageException.class, Options::parse);
        assertEquals("missing --bootstrap, --group, --blacklist, --root", e.getMessage());
    }

    @Test
    void anOptionWithoutItsValueIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> Options.parse("--group", "g", "--blacklist"));
        assertEquals("option --blacklist needs a value", e.getMessage());
    }

    @Test
    void anUnknownOptionIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> Options.parse("--whitelist", "x"));
        assertEquals("unknown option '--whitelist'", e.getMessage());
    }

    @Test
    void aStreamCountOutsideItsRangeIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> Options.parse("--bootstrap", "b:1", "--group",
                "g", "--blacklist", "x", "--root", "r", "--streams", "65"));
        assertEquals("--streams must be a whole number from 1 to 64, got '65'", e.getMessage());
    }
}
