package shepherd.cli.demo;

/**
 * Keeps the brokers' and consumers' INFO logs out of the demo's view unless {@code --verbose}. Both bindings read
 * their level once, when the first logger is created, and the demo's classes create none before this runs:
 * <ul>
 *   <li>the image's Logback reads the root level from {@code shepherd.log.level} ({@code logback.xml});</li>
 *   <li>slf4j-simple (tests, class-path runs) reads {@code org.slf4j.simpleLogger.defaultLogLevel}.</li>
 * </ul>
 * A value the user set already ({@code -Dshepherd.log.level=DEBUG} in {@code JDK_JAVA_OPTIONS}) wins.
 */
final class QuietLogs {
    static final String LOGBACK_LEVEL = "shepherd.log.level";
    static final String SIMPLE_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    private QuietLogs() {}

    static void apply(boolean verbose) {
        String level = verbose ? "INFO" : "WARN";
        if (System.getProperty(LOGBACK_LEVEL) == null) {
            System.setProperty(LOGBACK_LEVEL, level);
        }
        if (System.getProperty(SIMPLE_LEVEL) == null) {
            System.setProperty(SIMPLE_LEVEL, level.toLowerCase());
        }
    }
}
