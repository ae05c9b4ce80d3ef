package shepherd.testkit;

/**
 * The single default watcher of a simulated client. Both methods default to nothing so a test can listen to only
 * what it checks.
 */
public interface SimZkListener {
    default void onSession(SimZkSessionEvent event) {
    }

    default void onWatch(SimZkWatchEvent event) {
    }
}
