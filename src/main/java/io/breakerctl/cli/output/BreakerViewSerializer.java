package io.breakerctl.cli.output;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.List;

/**
 * Writes a {@link BreakerView} field by field, in its {@code @JsonPropertyOrder}, with the same
 * tokens Jackson's bean serializer writes (so JSON, YAML and jsonl read the same). It exists for
 * speed: {@code status} writes one view per breaker, and on 100,000 breakers the bean serializer
 * (reflection, a property writer per field, a serializer lookup per nested record) took about a
 * third of the command's own CPU time. The rare parts (leases, override, policy) still go through
 * the bean serializer. {@code BreakerViewSerializerTest} holds the output to the bean serializer's
 * for views with every part filled and empty, so a field added to the record and not here fails.
 */
final class BreakerViewSerializer extends StdSerializer<BreakerView> {
  BreakerViewSerializer() {
    super(BreakerView.class);
  }

  @Override
  public void serialize(BreakerView v, JsonGenerator g, SerializerProvider p) throws IOException {
    g.writeStartObject(v);
    string(g, "id", v.id());
    string(g, "state", v.state());
    string(g, "storedState", v.storedState());
    g.writeFieldName("failures");
    failures(g, v.failures());
    string(g, "openUntil", v.openUntil());
    p.defaultSerializeField("leases", v.leases(), g);
    p.defaultSerializeField("override", v.override(), g);
    p.defaultSerializeField("policy", v.policy(), g);
    if (v.inForce() != null) {
      p.defaultSerializeField("inForce", v.inForce(), g);
    }
    g.writeFieldName("nodes");
    nodes(g, v.nodes());
    g.writeFieldName("rates");
    rates(g, v.rates());
    if (v.history() != null) {
      p.defaultSerializeField("history", v.history(), g);
    }
    string(g, "redisTime", v.redisTime());
    if (v.problem() != null) {
      string(g, "problem", v.problem());
    }
    g.writeEndObject();
  }

  private static void failures(JsonGenerator g, BreakerView.Failures f) throws IOException {
    if (f == null) {
      g.writeNull();
      return;
    }
    g.writeStartObject(f);
    g.writeNumberField("window", f.window());
    g.writeNumberField("calls", f.calls());
    g.writeFieldName("threshold");
    if (f.threshold() == null) {
      g.writeNull();
    } else {
      g.writeNumber(f.threshold().intValue());
    }
    number(g, "rate", f.rate());
    number(g, "rateThreshold", f.rateThreshold());
    g.writeNumberField("total", f.total());
    g.writeEndObject();
  }

  private static void rates(JsonGenerator g, BreakerView.Rates r) throws IOException {
    g.writeStartObject(r);
    g.writeNumberField("callsPerSecond", r.callsPerSecond());
    g.writeNumberField("rejectedPerSecond", r.rejectedPerSecond());
    g.writeNumberField("fallbacksPerSecond", r.fallbacksPerSecond());
    g.writeNumberField("windowMillis", r.windowMillis());
    g.writeEndObject();
  }

  private static void nodes(JsonGenerator g, BreakerView.Nodes n) throws IOException {
    if (n == null) {
      g.writeNull();
      return;
    }
    g.writeStartObject(n);
    g.writeNumberField("reporting", n.reporting());
    strings(g, "disagreeing", n.disagreeing());
    strings(g, "degraded", n.degraded());
    strings(g, "oldPolicy", n.oldPolicy());
    strings(g, "policyDrift", n.policyDrift());
    g.writeObjectFieldStart("degradedReasons");
    for (java.util.Map.Entry<String, String> e : n.degradedReasons().entrySet()) {
      g.writeStringField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void string(JsonGenerator g, String name, String value) throws IOException {
    g.writeFieldName(name);
    if (value == null) {
      g.writeNull();
    } else {
      g.writeString(value);
    }
  }

  private static void number(JsonGenerator g, String name, Double value) throws IOException {
    g.writeFieldName(name);
    if (value == null) {
      g.writeNull();
    } else {
      g.writeNumber(value.doubleValue());
    }
  }

  private static void strings(JsonGenerator g, String name, List<String> values)
      throws IOException {
    g.writeFieldName(name);
    if (values == null) {
      g.writeNull();
      return;
    }
    g.writeStartArray(values, values.size());
    for (String s : values) {
      if (s == null) {
        g.writeNull();
      } else {
        g.writeString(s);
      }
    }
    g.writeEndArray();
  }
}
