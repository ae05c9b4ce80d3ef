package shepherd.chaos.nemesis;

/**
 * A named, reusable fault (the chaos issue's nemeses 1–10): it injects its fault into the cluster of
 * {@link FaultContext}, holds it, heals it, and records both moments. What happens to the system meanwhile is the
 * history's business; a nemesis only breaks things and mends them.
 */
public interface Nemesis {
    /** The number of this nemesis (1–10). */
    int number();

    /** A short name with its variant, e.g. {@code coordinator-zk-partition(stop-phase)}. */
    String name();

    /** Injects, holds and heals the fault. */
    void run(FaultContext context) throws Exception;
}
