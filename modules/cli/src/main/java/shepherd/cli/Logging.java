package shepherd.cli;

import java.lang.reflect.Method;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log level of a command: {@code INFO} with {@code --verbose}, otherwise the command's own default ({@code WARN}
 * for the administration commands, whose output is their result; {@code INFO} for {@code shepherd broker}, whose
 * log is the cluster's story).
 *
 * <p>How: the image's {@code logback.xml} sets the root level from the system property {@value #LEVEL_PROPERTY}
 * ({@code ${shepherd.log.level:-INFO}}), and {@link #configure} sets that property before the first logger is
 * created. This keeps {@code shepherd.cli} free of a compile-time dependency on Logback (it requires
 * {@code org.slf4j} only; the binding is a runtime module found through {@code ServiceLoader}). A command therefore
 * must call {@link #configure} before anything creates a logger: no static loggers in command classes.
 *
 * <p>If Logback was configured earlier in this JVM (a second command in one process, as in tests), the root level
 * is also set on the running Logback through reflection on its public API. With any other binding (slf4j-simple in
 * the tests) nothing else happens: the property is simply unused.
 *
 * <p>An explicit {@code -Dshepherd.log.level=...} of the operator is kept unless {@code --verbose} is given.
 */
public final class Logging {
    /** The system property {@code logback.xml} reads the root level from. */
    public static final String LEVEL_PROPERTY = "shepherd.log.level";
    /**
     * The system property {@code logback.xml} reads the level of the ZooKeeper client's loggers from: {@code ERROR}
     * when the root is quieter than INFO, since the client logs every refused connection attempt at WARN with a stack
     * trace (the commands report an unreachable ZooKeeper in one line), {@code WARN} otherwise.
     */
    public static final String ZOOKEEPER_LEVEL_PROPERTY = "shepherd.log.level.zookeeper";
    private static final String ZOOKEEPER_LOGGER = "org.apache.zookeeper";
    /** What {@code --verbose} selects. */
    public static final String VERBOSE_LEVEL = "INFO";
    private static final String LOGBACK_LOGGER = "ch.qos.logback.classic.Logger";
    private static final String LOGBACK_LEVEL = "ch.qos.logback.classic.Level";

    /** The operator's {@code -Dshepherd.log.level}, read at the first {@link #configure} (later ones are ours). */
    private static String operatorLevel;
    private static boolean operatorLevelRead;

    private Logging() {}

    /**
     * Sets the root level for a command: {@value #VERBOSE_LEVEL} if {@code verbose}, else the operator's explicit
     * level if there is one, else {@code defaultLevel} (e.g. {@code "WARN"}).
     *
     * @return the level in force
     */
    public static synchronized String configure(boolean verbose, String defaultLevel) {
        if (!operatorLevelRead) {
            operatorLevel = System.getProperty(LEVEL_PROPERTY);
            operatorLevelRead = true;
        }
        String level = verbose ? VERBOSE_LEVEL : operatorLevel != null ? operatorLevel : defaultLevel;
        boolean quiet = level.equalsIgnoreCase("WARN") || level.equalsIgnoreCase("ERROR")
                || level.equalsIgnoreCase("OFF");
        String zookeeperLevel = quiet ? "ERROR" : "WARN";
        System.setProperty(LEVEL_PROPERTY, level);
        System.setProperty(ZOOKEEPER_LEVEL_PROPERTY, zookeeperLevel);
        applyToRunningLogback(Logger.ROOT_LOGGER_NAME, level);
        applyToRunningLogback(ZOOKEEPER_LOGGER, zookeeperLevel);
        return level;
    }

    /** Sets the level of a Logback logger if Logback is the binding; does nothing otherwise. */
    private static void applyToRunningLogback(String name, String level) {
        Logger logger = LoggerFactory.getLogger(name);
        if (!logger.getClass().getName().equals(LOGBACK_LOGGER)) {
            return;
        }
        try {
            Class<?> levelClass = Class.forName(LOGBACK_LEVEL, true, logger.getClass().getClassLoader());
            Object logbackLevel = levelClass.getMethod("toLevel", String.class).invoke(null, level);
            Method setLevel = logger.getClass().getMethod("setLevel", levelClass);
            setLevel.invoke(logger, logbackLevel);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // A Logback without this API: the level from logback.xml stays, which is only noisier or quieter.
        }
    }
}
