package io.breakerctl.runtime.control.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.breakerctl.runtime.model.Criticality;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.PolicyField;
import io.breakerctl.runtime.model.RateLimitAction;
import io.breakerctl.runtime.model.StoreFailureMode;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Validates one parsed policy document (a YAML or JSON tree) field by field: the envelope ({@code
 * apiVersion}, {@code kind}, {@code metadata}) and every spec field's type, range and enum value,
 * reporting each problem with its field path and the bad value instead of stopping at the first.
 * {@link PolicyParser} reads the files and documents and collects the problems.
 */
final class PolicyValidator {
  private PolicyValidator() {}

  private static final Set<String> TOP = Set.of("apiVersion", "kind", "metadata", "spec", "status");
  private static final Set<String> METADATA = Set.of("id", "owner", "labels", "expiresAt");
  private static final Set<String> INT_FIELDS = ofType(PolicyField.Type.INTEGER);
  private static final Set<String> SECOND_FIELDS = ofType(PolicyField.Type.SECONDS);

  private static Set<String> ofType(PolicyField.Type type) {
    return Arrays.stream(PolicyField.values())
        .filter(f -> f.type() == type)
        .map(PolicyField::spec)
        .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * The policy document {@code root} holds, every problem reported to {@code report} (field path
   * and bad value); null when it holds none. The id read is put in {@code idOut[0]}, also when
   * other fields are wrong, for the duplicate check across a set.
   */
  static PolicyDocument validateTree(
      String source, int index, JsonNode root, Consumer<String> report, PolicyId[] idOut) {
    if (!root.isObject()) {
      report.accept(
          "document must be a mapping with apiVersion, kind, metadata and spec but was "
              + describe(root));
      return null;
    }
    unknown("", root, TOP, report);
    JsonNode api = root.get("apiVersion");
    if (api != null && !(api.isTextual() && PolicyParser.API_VERSION.equals(api.asText()))) {
      report.accept(
          "apiVersion must be '" + PolicyParser.API_VERSION + "' but was " + describe(api));
    }
    JsonNode kind = root.get("kind");
    if (kind != null && !(kind.isTextual() && PolicyParser.KIND.equals(kind.asText()))) {
      report.accept("kind must be '" + PolicyParser.KIND + "' but was " + describe(kind));
    }

    PolicyId id = null;
    String owner = "";
    Map<String, String> labels = new LinkedHashMap<>();
    Instant expiresAt = null;
    JsonNode meta = root.get("metadata");
    if (meta == null || meta.isNull()) {
      report.accept("metadata.id is required");
    } else if (!meta.isObject()) {
      report.accept("metadata must be a mapping but was " + describe(meta));
    } else {
      unknown("metadata.", meta, METADATA, report);
      JsonNode idNode = meta.get("id");
      if (idNode == null || idNode.isNull()) {
        report.accept("metadata.id is required");
      } else if (!idNode.isTextual()) {
        report.accept("metadata.id must be a string but was " + describe(idNode));
      } else {
        try {
          id = PolicyId.parse(idNode.asText());
          idOut[0] = id;
        } catch (IllegalArgumentException e) {
          report.accept("metadata.id " + e.getMessage());
        }
      }
      JsonNode ownerNode = meta.get("owner");
      if (ownerNode != null && !ownerNode.isNull()) {
        if (ownerNode.isTextual()) {
          owner = ownerNode.asText();
        } else {
          report.accept("metadata.owner must be a string but was " + describe(ownerNode));
        }
      }
      JsonNode labelsNode = meta.get("labels");
      if (labelsNode != null && !labelsNode.isNull()) {
        if (!labelsNode.isObject()) {
          report.accept("metadata.labels must be a mapping but was " + describe(labelsNode));
        } else {
          for (Iterator<Map.Entry<String, JsonNode>> it = labelsNode.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isValueNode() && !e.getValue().isNull()) {
              labels.put(e.getKey(), e.getValue().asText());
            } else {
              report.accept(
                  "metadata.labels."
                      + e.getKey()
                      + " must be a string but was "
                      + describe(e.getValue()));
            }
          }
        }
      }
      JsonNode exp = meta.get("expiresAt");
      if (exp != null && !exp.isNull()) {
        try {
          if (!exp.isTextual()) {
            throw new DateTimeParseException("not text", exp.toString(), 0);
          }
          expiresAt = OffsetDateTime.parse(exp.asText()).toInstant();
        } catch (DateTimeParseException e) {
          report.accept(
              "metadata.expiresAt must be an RFC 3339 time (2026-12-01T10:00:00Z) but was "
                  + describe(exp));
        }
      }
    }

    Policy policy = spec(root.get("spec"), report);
    if (id == null || policy == null) {
      return null;
    }
    return new PolicyDocument(
        source, index, id, owner, labels, Optional.ofNullable(expiresAt), policy);
  }

  private static Policy spec(JsonNode spec, Consumer<String> report) {
    Policy.Builder b = Policy.builder();
    if (spec == null || spec.isNull()) {
      return b.build();
    }
    if (!spec.isObject()) {
      report.accept("spec must be a mapping but was " + describe(spec));
      return null;
    }
    unknown("spec.", spec, Set.copyOf(PolicySpec.FIELDS), report);
    boolean ok = true;
    for (String field : PolicySpec.FIELDS) {
      JsonNode v = spec.get(field);
      if (v == null) {
        continue;
      }
      try {
        ok &= set(b, field, v, report);
      } catch (IllegalArgumentException e) {
        report.accept("spec." + e.getMessage());
        ok = false;
      }
    }
    if (!ok) {
      return null;
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      report.accept("spec." + e.getMessage());
      return null;
    }
  }

  /** Applies one field to the builder; false (after reporting) when its type is wrong. */
  private static boolean set(Policy.Builder b, String field, JsonNode v, Consumer<String> report) {
    String path = "spec." + field;
    if (INT_FIELDS.contains(field)) {
      if (v.isNull() && field.equals("slowCallMillis")) {
        b.slowCallMillis(null);
        return true;
      }
      if (!isWhole(v)) {
        report.accept(path + " must be an integer but was " + describe(v));
        return false;
      }
      if (!v.canConvertToInt()) {
        report.accept(path + " is out of range: " + v.asText());
        return false;
      }
      int i = v.asInt();
      switch (field) {
        case "failureThreshold" -> b.failureThreshold(i);
        case "minimumCalls" -> b.minimumCalls(i);
        case "slowCallMillis" -> b.slowCallMillis(i);
        default -> b.halfOpenPermits(i);
      }
      return true;
    }
    if (SECOND_FIELDS.contains(field)) {
      if (!v.isNumber()) {
        report.accept(path + " must be a number of seconds but was " + describe(v));
        return false;
      }
      BigDecimal seconds = v.decimalValue();
      if (seconds.abs().compareTo(BigDecimal.valueOf(1_000_000_000L)) > 0) {
        report.accept(path + " is out of range: " + seconds.toPlainString());
        return false;
      }
      BigDecimal nanos = seconds.movePointRight(9);
      if (nanos.stripTrailingZeros().scale() > 0) {
        report.accept(
            path + " must be a whole number of milliseconds but was " + seconds.toPlainString());
        return false;
      }
      Duration d = Duration.ofNanos(nanos.longValueExact());
      switch (field) {
        case "windowSeconds" -> b.window(d);
        case "openSeconds" -> b.open(d);
        case "maxOpenSeconds" -> b.maxOpen(d);
        case "maxProbeSeconds" -> b.maxProbe(d);
        default -> b.probeLease(d);
      }
      return true;
    }
    switch (field) {
      case "failureRateThreshold" -> {
        if (v.isNull()) {
          b.failureRateThreshold(null);
          return true;
        }
        if (!v.isNumber()) {
          report.accept(path + " must be a number (percent) but was " + describe(v));
          return false;
        }
        b.failureRateThreshold(v.doubleValue());
        return true;
      }
      case "storeFailureMode" -> {
        return enumField(StoreFailureMode.class, v, path, report, b::storeFailureMode);
      }
      case "staticDefault" -> {
        if (v.isNull()) {
          b.staticDefault(null);
          return true;
        }
        if (!v.isTextual()) {
          report.accept(
              path + " must be a name matching [a-z0-9][a-z0-9._-]{0,62} but was " + describe(v));
          return false;
        }
        b.staticDefault(v.asText());
        return true;
      }
      case "fallbackPolicy" -> {
        return enumField(FallbackPolicy.class, v, path, report, b::fallbackPolicy);
      }
      case "criticality" -> {
        return enumField(Criticality.class, v, path, report, b::criticality);
      }
      case "rateLimited" -> {
        return enumField(RateLimitAction.class, v, path, report, b::rateLimited);
      }
      default -> {
        if (!v.isBoolean()) {
          report.accept(path + " must be true or false but was " + describe(v));
          return false;
        }
        b.enabled(v.booleanValue());
        return true;
      }
    }
  }

  private static boolean isWhole(JsonNode v) {
    if (v.isIntegralNumber()) {
      return true;
    }
    return v.isNumber() && v.decimalValue().stripTrailingZeros().scale() <= 0;
  }

  /** Sets an enum field from {@code v}, or reports it: one of the constants by name. */
  private static <E extends Enum<E>> boolean enumField(
      Class<E> type,
      JsonNode v,
      String path,
      Consumer<String> report,
      java.util.function.Consumer<E> set) {
    Optional<E> m = enumValue(type, v);
    if (m.isEmpty()) {
      report.accept(
          path
              + " must be one of "
              + Arrays.toString(type.getEnumConstants())
              + " but was "
              + describe(v));
      return false;
    }
    set.accept(m.get());
    return true;
  }

  private static <E extends Enum<E>> Optional<E> enumValue(Class<E> type, JsonNode v) {
    if (!v.isTextual()) {
      return Optional.empty();
    }
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(v.asText())) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  private static void unknown(
      String prefix, JsonNode node, Set<String> allowed, Consumer<String> report) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!allowed.contains(name)) {
        report.accept(
            prefix
                + name
                + " is not a known field (known: "
                + allowed.stream().sorted().collect(Collectors.joining(", "))
                + ")");
      }
    }
  }

  /** A value as the problem quotes it: JSON text, shortened, with its type when not obvious. */
  private static String describe(JsonNode v) {
    String text;
    if (v.isContainerNode()) {
      text = (v.isArray() ? "a list " : "a mapping ") + v;
    } else {
      text = v.toString();
    }
    return text.length() > 100 ? text.substring(0, 97) + "..." : text;
  }
}
