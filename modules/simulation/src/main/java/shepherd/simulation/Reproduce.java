package shepherd.simulation;

import java.util.EnumSet;
import java.util.Set;
import shepherd.coordination.defect.Defect;

/**
 * Runs seeds from the command line and prints what each found; for one seed, the whole report (scenario and the
 * end of the trace). Run it with
 * {@code mvn -q -pl modules/simulation exec:java -Dexec.args="--seed 807 --mode LIVENESS"}
 * (after {@code mvn -q install -DskipTests}).
 *
 * <pre>
 *   --seed N        first seed (default 1)
 *   --count K       how many seeds (default 1; with 1 the full report is printed)
 *   --mode M        SAFETY or LIVENESS (default LIVENESS)
 *   --faults F      ALL or ZOMBIE_COORDINATOR (default ALL)
 *   --defect D      NO_FENCING, NO_LEASE_WAIT or DROP_TRIGGERS: a negative control
 *   --grep TEXT     with one seed: also trace the network messages containing TEXT
 * </pre>
 */
public final class Reproduce {
    private Reproduce() {}

    public static void main(String[] args) {
        long seed = 1;
        long count = 1;
        Simulation.Mode mode = Simulation.Mode.LIVENESS;
        Simulation.Faults faults = Simulation.Faults.ALL;
        Set<Defect> defects = EnumSet.noneOf(Defect.class);
        String grep = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(required(args[i], value));
                case "--count" -> count = Long.parseLong(required(args[i], value));
                case "--mode" -> mode = Simulation.Mode.valueOf(required(args[i], value));
                case "--faults" -> faults = Simulation.Faults.valueOf(required(args[i], value));
                case "--defect" -> defects.add(Defect.valueOf(required(args[i], value)));
                case "--grep" -> grep = required(args[i], value);
                default -> throw new IllegalArgumentException("unknown option '" + args[i]
                        + "'; known are --seed, --count, --mode, --faults, --defect, --grep");
            }
            i++;
        }
        if (count == 1) {
            System.out.println(Simulation.describe(seed, mode, defects, faults, grep));
            return;
        }
        int failed = 0;
        long start = System.nanoTime();
        for (long s = seed; s < seed + count; s++) {
            Simulation.Result r = Simulation.run(s, mode, defects, faults);
            if (!r.ok()) {
                failed++;
                System.out.println("seed=" + s + ": " + r.failure().get());
            }
        }
        System.out.printf("%d seeds, %d failed, %.0f seeds/s%n", count, failed, count / ((System.nanoTime() - start) / 1e9));
    }

    private static String required(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }
}
