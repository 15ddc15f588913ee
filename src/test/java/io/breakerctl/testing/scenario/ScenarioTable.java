package io.breakerctl.testing.scenario;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.breakerctl.testing.scenario.Scenario.Step;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The one scenario table both sides run: {@code /scenarios/breaker-scenarios.yaml} on the test
 * class path (the file's header says how to read and write it).
 */
public final class ScenarioTable {

  /** The resource holding the table. */
  public static final String RESOURCE = "/scenarios/breaker-scenarios.yaml";

  /**
   * The longest {@link Scenario#alignMillis} a scenario may need: a run waits for up to this long
   * before its start.
   */
  public static final long MAX_ALIGN_MILLIS = 1000;

  /**
   * How late a step may run on a real clock (Redis) and still count: the table is written so that
   * every step gives the same answers anywhere in {@code [at, at + LATENESS_MILLIS)}, and the unit
   * test checks that it does.
   */
  public static final long LATENESS_MILLIS = 100;

  /**
   * How many times longer every clock time runs on Redis (system property {@code scenario.scale}):
   * a step there may then run up to {@code LATENESS_MILLIS * scale} late, which a machine shared by
   * several builds needs.
   */
  public static long redisScale() {
    return Long.getLong("scenario.scale", 3);
  }

  private static final Set<String> OPS =
      Set.of("fail", "ok", "acquire", "probe", "renew", "force", "clear", "warm", "check");

  private ScenarioTable() {}

  /** Reads and validates the table. */
  public static List<Scenario> load() {
    ObjectMapper yaml =
        new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    try (InputStream in = ScenarioTable.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("scenario table missing: " + RESOURCE);
      }
      List<Scenario> all = yaml.readValue(in, new TypeReference<List<Scenario>>() {});
      validate(all);
      return all;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + RESOURCE, e);
    }
  }

  private static void validate(List<Scenario> all) {
    Set<String> names = new HashSet<>();
    for (Scenario sc : all) {
      String n = sc.name();
      if (n == null || !n.matches("[a-z0-9][a-z0-9-]{0,40}") || !names.add(n)) {
        throw new IllegalStateException("scenario name missing, malformed or repeated: " + n);
      }
      if (sc.policy() == null || sc.steps() == null || sc.steps().isEmpty()) {
        throw new IllegalStateException(n + ": needs a policy and steps");
      }
      if (sc.alignMillis() > MAX_ALIGN_MILLIS) {
        throw new IllegalStateException(
            n
                + ": its window buckets need a start on a multiple of "
                + sc.alignMillis()
                + " ms, more than "
                + MAX_ALIGN_MILLIS);
      }
      long last = 0;
      Set<String> acquires = new HashSet<>();
      for (Step s : sc.steps()) {
        String where = n + " " + s;
        if (!OPS.contains(s.op())) {
          throw new IllegalStateException(where + ": unknown operation " + s.op());
        }
        if (s.at() < last) {
          throw new IllegalStateException(where + ": steps must be in time order");
        }
        last = s.at();
        if (s.state() == null) {
          throw new IllegalStateException(where + ": every step names the state it expects");
        }
        if ((s.op().equals("probe") || s.op().equals("renew"))
            && (s.lease() == null || !acquires.contains(s.lease()))) {
          throw new IllegalStateException(
              where + ": " + s.op() + " of an unknown acquire " + s.lease());
        }
        if (s.op().equals("warm") && s.version() == null) {
          throw new IllegalStateException(where + ": warm needs a version");
        }
        if (s.as() != null) {
          acquires.add(s.as());
        }
      }
    }
  }
}
