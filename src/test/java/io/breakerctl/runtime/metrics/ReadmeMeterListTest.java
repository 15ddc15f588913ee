package io.breakerctl.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The docs' meter table (section {@code ## Metrics}) lists exactly the meters the binder registers
 * for a real registry (an in-process store): the same names, each with its type and its own tags
 * (the tags column, beside the common {@code breaker}, {@code caller}, {@code dependency} and
 * {@code node}), and the row names every value of those tags registered (a Redis {@code command}, a
 * background {@code task}, a fault {@code reason}...). A meter added without a row, a row left for
 * a meter gone or a new tag value left out of its row fails here.
 */
@DisplayName("the docs' meter list is the meters registered")
class ReadmeMeterListTest {

  private static final Set<String> COMMON =
      Set.of("breaker", "caller", "dependency", "criticality", "node");

  /** One documented row: the type column and the tags of the tags column (common tags left out). */
  record Row(String type, Set<String> tags, String text) {}

  static Map<String, Row> readmeRows() throws IOException {
    String readme = Files.readString(Path.of("src/docs/metrics.md"));
    int at = readme.indexOf("\n## Metrics\n");
    assertThat(at).as("src/docs/metrics.md has a Metrics section").isNotNegative();
    int end = readme.indexOf("\n## ", at + 1);
    String section = readme.substring(at, end < 0 ? readme.length() : end);
    Map<String, Row> rows = new TreeMap<>();
    Row last = null;
    Matcher row =
        Pattern.compile("(?m)^\\| `(breakerctl\\.[\\w.]+)` \\|([^|]+)\\|([^|]*)\\|.*$")
            .matcher(section);
    while (row.find()) {
      Set<String> tags = new TreeSet<>();
      Matcher tag = Pattern.compile("`(\\w+)`").matcher(row.group(3));
      while (tag.find()) {
        tags.add(tag.group(1));
      }
      tags.removeAll(COMMON);
      String text = row.group();
      if (text.contains("by the same `") && last != null) {
        text = text + last.text(); // the same tag values as the row above
      }
      last = new Row(row.group(2).trim(), tags, text);
      Row previous = rows.put(row.group(1), last);
      assertThat(previous).as("one row for " + row.group(1)).isNull();
    }
    return rows;
  }

  static String type(Meter m) {
    if (m instanceof FunctionCounter) {
      return "function counter";
    }
    if (m instanceof FunctionTimer) {
      return "function timer";
    }
    if (m instanceof Gauge) {
      return "gauge";
    }
    if (m instanceof Counter) {
      return "counter";
    }
    if (m instanceof Timer) {
      return "timer";
    }
    return m.getId().getType().name().toLowerCase(java.util.Locale.ROOT);
  }

  @Test
  @DisplayName("every registered meter has its row, type and tags, and every row a meter")
  void theTableListsTheRegisteredMeters() throws IOException {
    Policy policy =
        Policy.builder()
            .failureThreshold(2)
            .open(Duration.ofSeconds(60))
            .halfOpenPermits(1)
            .build();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (BreakerRegistry node =
            BreakerRegistry.builder()
                .store(new InProcessBreakerStore())
                .nodeId("node-1")
                .defaults(policy)
                .build();
        BreakerRegistryMetrics metrics = BreakerRegistryMetrics.bind(node, meters)) {
      CircuitBreaker cb = metrics.breaker("checkout:payments");
      // the meters registered at the first such event: a trip, a rejection, a fallback that
      // could not serve
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(
                () ->
                    cb.call(
                        () -> {
                          throw new IllegalStateException("payments down");
                        }))
            .isInstanceOf(IllegalStateException.class);
      }
      assertThatThrownBy(() -> cb.call(() -> "never"))
          .isInstanceOf(CallNotPermittedException.class);
      cb.observer().fallbackUnavailable(FallbackPolicy.CACHED, "not_found");

      Map<String, Set<String>> types = new TreeMap<>();
      Map<String, Set<String>> tags = new TreeMap<>();
      Map<String, Set<String>> values = new TreeMap<>();
      for (Meter m : meters.getMeters()) {
        String name = m.getId().getName();
        m.getId().getTags().stream()
            .filter(t -> !COMMON.contains(t.getKey()))
            .forEach(t -> values.computeIfAbsent(name, k -> new TreeSet<>()).add(t.getValue()));
        types.computeIfAbsent(name, k -> new TreeSet<>()).add(type(m));
        Set<String> own = tags.computeIfAbsent(name, k -> new TreeSet<>());
        m.getId().getTags().forEach(t -> own.add(t.getKey()));
        own.removeAll(COMMON);
      }

      Map<String, Row> rows = readmeRows();
      assertThat(rows.keySet())
          .as("the docs' meters (left) and the registered ones (right)")
          .isEqualTo(types.keySet());
      SoftAssertions soft = new SoftAssertions();
      for (Map.Entry<String, Row> e : rows.entrySet()) {
        String name = e.getKey();
        soft.assertThat(types.get(name)).as("type of " + name).containsExactly(e.getValue().type());
        soft.assertThat(e.getValue().tags()).as("tags of " + name).isEqualTo(tags.get(name));
        for (String value : values.getOrDefault(name, Set.of())) {
          soft.assertThat(e.getValue().text())
              .as("the row of " + name + " names its tag value " + value)
              .contains("`" + value + "`");
        }
      }
      soft.assertAll();
    } finally {
      meters.close();
    }
  }
}
