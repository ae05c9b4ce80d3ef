package shepherd.examples.manualcommit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import shepherd.examples.manualcommit.Options.UsageException;

class OptionsTest {

    @Test
    void aCompleteCommandLineIsRead() throws UsageException {
        Options options = Options.parse("--bootstrap", "127.0.0.1:9092", "--group", "billing", "--topic", "orders",
                "--root", "/var/log/orders", "--commit-every", "5");
        assertEquals(new Options("127.0.0.1:9092", "billing", "orders", "/var/log/orders", 5), options);
    }

    @Test
    void commitEveryDefaultsToOneHundred() throws UsageException {
        Options options = Options.parse("--bootstrap", "b:1", "--group", "g", "--topic", "t", "--root", "r");
        assertEquals(Options.COMMIT_EVERY_DEFAULT, options.commitEvery());
    }

    @Test
    void noArgumentsNameEveryMissingOption() {
        UsageException e = assertThrows(UsageException.class, Options::parse);
        assertEquals("missing --bootstrap, --group, --topic, --root", e.getMessage());
    }

    @Test
    void anOptionWithoutItsValueIsRefused() {
        UsageException e = assertThrows(UsageException.class,
                () -> Options.parse("--bootstrap", "--group", "g"));
        assertEquals("option --bootstrap needs a value", e.getMessage());
    }

    @Test
    void anUnknownOptionIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> Options.parse("--grup", "g"));
        assertEquals("unknown option '--grup'", e.getMessage());
    }

    @Test
    void aCommitIntervalBelowOneIsRefused() {
        UsageException e = assertThrows(UsageException.class, () -> Options.parse("--bootstrap", "b:1", "--group",
                "g", "--topic", "t", "--root", "r", "--commit-every", "0"));
        assertEquals("--commit-every must be a whole number of at least 1, got '0'", e.getMessage());
    }
}
