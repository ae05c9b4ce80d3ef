package shepherd.benchmarks.e2e;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * One consumer's {@link System#nanoTime()} stamps of one kind (its stops), kept in time order so the first and the
 * last at or after an instant are found by a binary search. The harness asks after every repetition; walking every
 * stamp of the run instead makes that question 40 % of its main thread late in a long run (outside the measured
 * window, but it lengthens the run). Stamps are compared as {@code a - b}, as {@code nanoTime} values must be.
 */
final class Stamps {
    private long[] nanos = new long[16];
    private int size;

    /** Adds a stamp; one that arrives after a later one still takes its place in time order. */
    void add(long stampNanos) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, 2 * size);
        }
        int at = size;
        while (at > 0 && nanos[at - 1] - stampNanos > 0) {
            nanos[at] = nanos[at - 1];
            at--;
        }
        nanos[at] = stampNanos;
        size++;
    }

    /** The earliest stamp at or after {@code sinceNanos}. */
    OptionalLong firstSince(long sinceNanos) {
        int at = indexOfFirstSince(sinceNanos);
        return at < size ? OptionalLong.of(nanos[at]) : OptionalLong.empty();
    }

    /** The latest stamp, if it is at or after {@code sinceNanos}. */
    OptionalLong lastSince(long sinceNanos) {
        return size > 0 && nanos[size - 1] - sinceNanos >= 0 ? OptionalLong.of(nanos[size - 1]) : OptionalLong.empty();
    }

    int size() {
        return size;
    }

    private int indexOfFirstSince(long sinceNanos) {
        int low = 0;
        int high = size;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (nanos[mid] - sinceNanos >= 0) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }
}
