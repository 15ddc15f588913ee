package io.breakerctl.cli.exporter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape's metric families, written as Prometheus text format 0.0.4 or as OpenMetrics 1.0.0.
 * Samples arrive breaker by breaker while the fleet is read; each family keeps its own buffer, so
 * the output has every family's samples together (both formats require it) with its {@code # HELP}
 * and {@code # TYPE} once, in the order the families were declared.
 *
 * <p>The two formats differ only where OpenMetrics says so: a counter family is named without
 * {@code _total} (its samples keep it), an info family is typed {@code info} and named without
 * {@code _info} (the text format types it {@code gauge}), and the document ends with {@code # EOF}.
 */
final class Exposition {

  /** The content type of the text format. */
  static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";

  /** The content type of OpenMetrics. */
  static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  /** A family's type. */
  enum Type {
    GAUGE,
    COUNTER,
    INFO
  }

  /** A family: its name as sampled, type, help and samples so far. */
  private record Family(String name, Type type, String help, StringBuilder samples) {}

  private final Map<String, Family> families = new LinkedHashMap<>();

  /**
   * Declares a family (before its first sample). A counter's name ends in {@code _total}, an info
   * family's in {@code _info}.
   */
  Exposition family(String name, Type type, String help) {
    if (type == Type.COUNTER && !name.endsWith("_total")) {
      throw new IllegalArgumentException("a counter's name ends in _total: " + name);
    }
    if (type == Type.INFO && !name.endsWith("_info")) {
      throw new IllegalArgumentException("an info metric's name ends in _info: " + name);
    }
    families.put(name, new Family(name, type, help, new StringBuilder()));
    return this;
  }

  /** A sample of family {@code name} with label pairs {@code labels} (name, value, ...). */
  void sample(String name, double value, String... labels) {
    Family f = families.get(name);
    if (f == null) {
      throw new IllegalArgumentException("undeclared family " + name);
    }
    StringBuilder b = f.samples().append(name);
    if (labels.length > 0) {
      b.append('{');
      for (int i = 0; i < labels.length; i += 2) {
        if (i > 0) {
          b.append(',');
        }
        b.append(labels[i]).append("=\"");
        escape(b, labels[i + 1]);
        b.append('"');
      }
      b.append('}');
    }
    b.append(' ').append(number(value)).append('\n');
  }

  /** The names of every declared family, as sampled. */
  List<String> names() {
    return new ArrayList<>(families.keySet());
  }

  /** The document in the text format ({@code openMetrics} false) or in OpenMetrics. */
  String render(boolean openMetrics) {
    java.io.StringWriter out = new java.io.StringWriter();
    try {
      write(out, openMetrics);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * Writes the document to {@code out}, each family's samples copied in 8 KB pieces: a scrape of
   * many breakers is never copied whole into one more string or byte array.
   */
  void write(java.io.Writer out, boolean openMetrics) throws java.io.IOException {
    char[] piece = new char[8192];
    for (Family f : families.values()) {
      String name = f.name();
      String type = f.type().name().toLowerCase(java.util.Locale.ROOT);
      if (openMetrics && f.type() == Type.COUNTER) {
        name = name.substring(0, name.length() - "_total".length());
      } else if (openMetrics && f.type() == Type.INFO) {
        name = name.substring(0, name.length() - "_info".length());
      } else if (f.type() == Type.INFO) {
        type = "gauge";
      }
      StringBuilder head = new StringBuilder();
      head.append("# HELP ").append(name).append(' ');
      escapeHelp(head, f.help(), openMetrics);
      head.append('\n');
      head.append("# TYPE ").append(name).append(' ').append(type).append('\n');
      out.write(head.toString());
      StringBuilder samples = f.samples();
      for (int at = 0; at < samples.length(); at += piece.length) {
        int end = Math.min(samples.length(), at + piece.length);
        samples.getChars(at, end, piece, 0);
        out.write(piece, 0, end - at);
      }
    }
    if (openMetrics) {
      out.write("# EOF\n");
    }
  }

  /** A label value: backslash, double quote and line feed escaped (both formats). */
  private static void escape(StringBuilder b, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '"' -> b.append("\\\"");
        case '\n' -> b.append("\\n");
        default -> b.append(c);
      }
    }
  }

  /** Help text: backslash and line feed escaped (and, in OpenMetrics, the double quote). */
  private static void escapeHelp(StringBuilder b, String help, boolean openMetrics) {
    for (int i = 0; i < help.length(); i++) {
      char c = help.charAt(i);
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '"' -> b.append(openMetrics ? "\\\"" : "\"");
        default -> b.append(c);
      }
    }
  }

  /** Integers without a fraction, others as Java prints them, NaN and infinities as spelled. */
  static String number(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return Double.toString(v);
  }

  /**
   * Whether an {@code Accept} header asks for OpenMetrics: it names {@code
   * application/openmetrics-text} (Prometheus sends it first, with the text format as a fallback).
   */
  static boolean wantsOpenMetrics(String accept) {
    return accept != null && accept.contains("application/openmetrics-text");
  }
}
