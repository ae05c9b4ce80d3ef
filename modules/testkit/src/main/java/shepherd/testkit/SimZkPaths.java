package shepherd.testkit;

import java.util.Objects;

/** The path syntax the simulated server accepts, and the parent and last name of a path. */
final class SimZkPaths {
    private SimZkPaths() {
    }

    /** The path itself when it is {@code "/"} or absolute with no empty segment; else an IllegalArgumentException. */
    static String validate(String path) {
        Objects.requireNonNull(path, "path");
        if (path.equals("/")) {
            return path;
        }
        if (!path.startsWith("/") || path.endsWith("/") || path.contains("//")) {
            throw new IllegalArgumentException("invalid znode path: " + path);
        }
        return path;
    }

    static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
