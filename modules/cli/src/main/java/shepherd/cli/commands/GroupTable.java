package shepherd.cli.commands;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table: a header row, left-aligned columns two spaces apart, no trailing blanks. */
final class GroupTable {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    GroupTable(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    GroupTable row(Object... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException(cells.length + " cells for " + columns + " columns");
        }
        String[] text = new String[columns];
        for (int i = 0; i < columns; i++) {
            text[i] = String.valueOf(cells[i]);
        }
        rows.add(text);
        return this;
    }

    boolean isEmpty() {
        return rows.size() == 1;
    }

    String render() {
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(row[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
