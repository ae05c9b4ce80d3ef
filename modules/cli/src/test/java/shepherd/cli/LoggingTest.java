package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The levels a command asks for; with slf4j-simple (the tests' binding) only the properties change. */
class LoggingTest {

    @Test
    void quietCommandsSilenceTheZooKeeperClientAndVerboseSelectsInfo() {
        assertEquals("WARN", Logging.configure(false, "WARN"));
        assertEquals("WARN", System.getProperty(Logging.LEVEL_PROPERTY));
        assertEquals("ERROR", System.getProperty(Logging.ZOOKEEPER_LEVEL_PROPERTY));

        assertEquals("INFO", Logging.configure(true, "WARN"));
        assertEquals("INFO", System.getProperty(Logging.LEVEL_PROPERTY));
        assertEquals("WARN", System.getProperty(Logging.ZOOKEEPER_LEVEL_PROPERTY));

        assertEquals("INFO", Logging.configure(false, "INFO"), "the broker's default");
        assertEquals("WARN", Logging.configure(false, "WARN"), "a later command is not stuck with an earlier level");
    }
}
