package io.breakerctl.cli.output;

import io.breakerctl.runtime.model.State;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A plain-text table: columns separated by two spaces, fitted to the style's width by shortening
 * the flexible columns (with "..."), the state column coloured, control characters escaped. A
 * column that is not flexible (an id) is never cut: when the others cannot shrink enough, the line
 * is wider than the terminal.
 */
public final class Table {
  private static final int GAP = 2;
  private static final int MIN_FLEX = 6;

  private final List<String> headers;
  private final Set<Integer> flexible = new HashSet<>();
  private final List<String[]> rows = new ArrayList<>();
  private final List<State> states = new ArrayList<>();
  private int stateColumn = -1;

  /** A table with these column headers. */
  public Table(String... headers) {
    this.headers = List.of(headers);
  }

  /** Marks columns that may be shortened to fit. */
  public Table flexible(int... columns) {
    for (int c : columns) {
      flexible.add(c);
    }
    return this;
  }

  /** Colours this column by each row's state. */
  public Table stateColumn(int column) {
    this.stateColumn = column;
    return this;
  }

  /** Adds a row; {@code state} colours the state column (may be null); cells are escaped. */
  public void row(State state, String... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells but the table " + headers.size() + " columns");
    }
    String[] safe = new String[cells.length];
    for (int c = 0; c < cells.length; c++) {
      safe[c] = Printable.escape(cells[c]);
    }
    rows.add(safe);
    states.add(state);
  }

  /** Number of rows. */
  public int size() {
    return rows.size();
  }

  /** Prints the table. */
  public void print(PrintWriter out, Style style, boolean withHeaders) {
    int n = headers.size();
    int[] w = new int[n];
    for (int c = 0; c < n; c++) {
      w[c] = withHeaders ? headers.get(c).length() : 0;
    }
    for (String[] r : rows) {
      for (int c = 0; c < n; c++) {
        w[c] = Math.max(w[c], r[c].length());
      }
    }
    fit(w, style.width());
    if (withHeaders) {
      out.println(line(headers.toArray(new String[0]), w, null, style));
    }
    for (int i = 0; i < rows.size(); i++) {
      out.println(line(rows.get(i), w, states.get(i), style));
    }
    out.flush();
  }

  private void fit(int[] w, int width) {
    while (total(w) > width) {
      int widest = -1;
      for (int c : flexible) {
        if (w[c] > MIN_FLEX && (widest < 0 || w[c] > w[widest])) {
          widest = c;
        }
      }
      if (widest < 0) {
        return;
      }
      w[widest] = Math.max(MIN_FLEX, w[widest] - (total(w) - width));
    }
  }

  private static int total(int[] w) {
    int t = GAP * (w.length - 1);
    for (int x : w) {
      t += x;
    }
    return t;
  }

  private String line(String[] cells, int[] w, State state, Style style) {
    StringBuilder b = new StringBuilder();
    for (int c = 0; c < cells.length; c++) {
      String cell = cells[c];
      if (cell.length() > w[c]) {
        cell = cell.substring(0, Math.max(0, w[c] - 3)) + "...";
      }
      boolean last = c == cells.length - 1;
      String padded = last ? cell : cell + " ".repeat(w[c] - cell.length() + GAP);
      if (c == stateColumn && state != null) {
        b.append(style.paint(cell, state));
        if (!last) {
          b.append(" ".repeat(w[c] - cell.length() + GAP));
        }
      } else {
        b.append(padded);
      }
    }
    return b.toString().stripTrailing();
  }
}
