package io.breakerctl.runtime.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one node counted per breaker over the window since its previous liveness beat: calls its
 * breakers admitted that ended (counted as they end), calls they rejected, calls a fallback
 * answered. Sent with the beat ({@code alive.lua}, key {@code BreakerKeys.calls}), once per {@code
 * heartbeatInterval} for all the node's breakers, never per call; {@link FleetCallRates} turns the
 * live nodes' counts into rates. Breakers without a call in the window are left out (they read as
 * zero).
 *
 * @param windowMillis how long the window was (the time since the node's previous beat)
 * @param breakers breaker id to its counts
 */
public record NodeCallCounts(long windowMillis, Map<String, Counts> breakers) {

  /** No counts (a node before its first beat, or unreadable counts). */
  public static final NodeCallCounts NONE = new NodeCallCounts(0, Map.of());

  /**
   * One breaker's counts over the window.
   *
   * @param calls admitted calls that ended (counted as they end)
   * @param rejected calls rejected
   * @param fallbacks calls a fallback answered (rejected or failed ones)
   */
  public record Counts(long calls, long rejected, long fallbacks) {
    /** Whether every count is zero. */
    public boolean idle() {
      return calls == 0 && rejected == 0 && fallbacks == 0;
    }
  }

  /** Copies the map, keeping its order. */
  public NodeCallCounts {
    breakers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(breakers));
  }

  private static final JsonFactory FACTORY = new JsonFactory();
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The JSON {@code alive.lua} stores: {@code {"windowMillis":10000,"breakers":{"a:b":[calls,
   * rejected,fallbacks]}}}.
   */
  public String toJson() {
    StringWriter w = new StringWriter(32 + breakers.size() * 48);
    try (JsonGenerator g = FACTORY.createGenerator(w)) {
      g.writeStartObject();
      g.writeNumberField("windowMillis", windowMillis);
      g.writeObjectFieldStart("breakers");
      for (Map.Entry<String, Counts> e : breakers.entrySet()) {
        Counts c = e.getValue();
        g.writeArrayFieldStart(e.getKey());
        g.writeNumber(c.calls());
        g.writeNumber(c.rejected());
        g.writeNumber(c.fallbacks());
        g.writeEndArray();
      }
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return w.toString();
  }

  /** Parses what {@link #toJson} wrote; anything unreadable reads as {@link #NONE}. */
  public static NodeCallCounts parse(String json) {
    if (json == null || json.isEmpty()) {
      return NONE;
    }
    try {
      JsonNode o = JSON.readTree(json);
      long window = o.path("windowMillis").asLong(0);
      Map<String, Counts> out = new LinkedHashMap<>();
      Iterator<Map.Entry<String, JsonNode>> it = o.path("breakers").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode a = e.getValue();
        out.put(
            e.getKey(),
            new Counts(
                Math.max(0, a.path(0).asLong(0)),
                Math.max(0, a.path(1).asLong(0)),
                Math.max(0, a.path(2).asLong(0))));
      }
      return window > 0 ? new NodeCallCounts(window, out) : NONE;
    } catch (IOException | RuntimeException e) {
      return NONE;
    }
  }
}
