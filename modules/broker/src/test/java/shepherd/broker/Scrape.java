package shepherd.broker;

import java.util.Map;

/** Reads sample values out of a Prometheus text exposition (format 0.0.4), for assertions. */
final class Scrape {
    private Scrape() {}

    /**
     * The sum of the samples of {@code name} whose labels include every pair of {@code labels}; NaN if there is
     * none (so that an absent series fails an equality assertion rather than reading as 0).
     */
    static double value(String scrape, String name, Map<String, String> labels) {
        double sum = 0;
        boolean found = false;
        for (String line : scrape.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            if (labels.entrySet().stream().allMatch(e -> series.contains(e.getKey() + "=\"" + e.getValue() + "\""))) {
                sum += Double.parseDouble(line.substring(space + 1));
                found = true;
            }
        }
        return found ? sum : Double.NaN;
    }
}
