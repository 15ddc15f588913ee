package io.breakerctl.cli.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link BreakerViewSerializer} writes what Jackson's bean serializer writes for the record. */
class BreakerViewSerializerTest {
  /** Takes the class annotation away: the bean serializer of the record. */
  @JsonSerialize(using = JsonSerializer.None.class)
  private abstract static class Plain {}

  static Stream<BreakerView> views() {
    BreakerView.Nodes nodes =
        new BreakerView.Nodes(3, List.of("n1"), List.of("n2", "n3"), List.of(), List.of("n\"4"));
    return Stream.of(
        new BreakerView(
            "svc:dep",
            "HALF_OPEN",
            "HALF_OPEN",
            new BreakerView.Failures(3, 40, 5, 0.075, 0.5, 17),
            "2026-12-01T10:00:00Z",
            List.of(new BreakerView.Lease("l1", "n1", "2026-12-01T10:00:00Z", null, 2L)),
            new BreakerView.Override("FORCED_OPEN", "ops", "incident é", "t0", null, "c1"),
            new BreakerView.PolicyRef("caller:*", 4),
            nodes,
            "2026-12-01T10:00:01.123Z",
            null,
            new BreakerView.Rates(12.5, 0.33, 0.1, 60_000),
            BreakerView.InForce.of("caller:*", 5, new BreakerView.PolicyRef("caller:*", 4)),
            new BreakerView.History(
                "waiting",
                104L,
                4,
                "2026-12-01T09:00:00Z",
                "2026-12-08T09:00:00Z",
                9,
                "2026-11-30T09:00:00Z",
                "UNFORWARDED",
                "2026-12-01T09:00:00Z")),
        new BreakerView(
            "a:b",
            "CLOSED",
            "CLOSED",
            new BreakerView.Failures(0, 0, null, null, null, 0),
            null,
            List.of(),
            null,
            null,
            new BreakerView.Nodes(0, List.of(), List.of(), List.of(), List.of()),
            "2026-12-01T10:00:01Z",
            null,
            null),
        new BreakerView(
            "x:y", "INVALID", "", null, null, List.of(), null, null, null, "", "bad", null));
  }

  @ParameterizedTest
  @MethodSource("views")
  void sameTokensAsTheBeanSerializer(BreakerView view) throws Exception {
    for (ObjectMapper mapper : List.of(Documents.JSON, Documents.YAML)) {
      ObjectMapper plain = mapper.copy().addMixIn(BreakerView.class, Plain.class);
      assertEquals(
          plain.writerWithDefaultPrettyPrinter().writeValueAsString(view),
          mapper.writerWithDefaultPrettyPrinter().writeValueAsString(view));
      assertEquals(plain.writeValueAsString(view), mapper.writeValueAsString(view));
    }
  }

  @Test
  void theStreamedListMatchesToo() throws Exception {
    List<BreakerView> all = views().toList();
    for (OutputFormat format : List.of(OutputFormat.JSON, OutputFormat.YAML, OutputFormat.JSONL)) {
      StringWriter s = new StringWriter();
      try (Documents.ListWriter w = Documents.list(format, "BreakerList", new PrintWriter(s))) {
        all.forEach(v -> w.item(v, v.id()));
      }
      ObjectMapper plain =
          (format == OutputFormat.YAML ? Documents.YAML : Documents.JSON)
              .copy()
              .addMixIn(BreakerView.class, Plain.class);
      String expected =
          format == OutputFormat.JSONL
              ? String.join(
                      "\n",
                      all.stream()
                          .map(
                              v -> {
                                try {
                                  return plain.writeValueAsString(v);
                                } catch (Exception e) {
                                  throw new IllegalStateException(e);
                                }
                              })
                          .toList())
                  + "\n"
              : null;
      if (expected != null) {
        assertEquals(expected, s.toString().replace("\r\n", "\n"));
      } else {
        // the same document read back both ways
        assertEquals(
            plain.readTree(plain.writeValueAsString(doc(all))), plain.readTree(s.toString()));
      }
    }
  }

  private static java.util.Map<String, Object> doc(List<BreakerView> items) {
    java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
    d.put("apiVersion", Documents.API_VERSION);
    d.put("kind", "BreakerList");
    d.put("items", items);
    return d;
  }

  /** A component the serializer does not know fails here before it goes missing from output. */
  @Test
  void everyComponentIsWritten() throws Exception {
    BreakerView f = views().findFirst().orElseThrow();
    BreakerView full =
        new BreakerView(
            f.id(),
            f.state(),
            f.storedState(),
            f.failures(),
            f.openUntil(),
            f.leases(),
            f.override(),
            f.policy(),
            f.nodes(),
            f.redisTime(),
            "a problem",
            f.rates(),
            f.inForce(),
            f.history());
    String json = Documents.JSON.writeValueAsString(full);
    List<String> names =
        Arrays.stream(BreakerView.class.getRecordComponents())
            .map(RecordComponent::getName)
            .toList();
    for (String n : names) {
      assertTrue(json.contains("\"" + n + "\":"), n + " missing from " + json);
    }
  }
}
