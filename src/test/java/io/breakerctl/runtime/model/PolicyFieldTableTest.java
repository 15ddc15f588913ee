package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.policy.PolicyParser;
import io.breakerctl.runtime.control.policy.PolicySet;
import io.breakerctl.runtime.control.policy.PolicySpec;
import io.breakerctl.runtime.store.PolicyEncoding;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Holds every place that lists a policy's fields to {@link PolicyField}: the canonical spec, the
 * parser (a document setting every field to a non-default value), the scripts' argument and hash
 * fields (the encoding both ways, {@code warm.lua}'s list, {@code prelude.lua}'s reads) and the
 * policy table of src/docs/control-plane.md.
 */
@DisplayName("one table of policy fields")
class PolicyFieldTableTest {

  /** A policy with every field away from its default. */
  private static final Policy EVERY =
      Policy.builder()
          .failureThreshold(7)
          .window(Duration.ofSeconds(90))
          .failureRateThreshold(42.5)
          .minimumCalls(11)
          .slowCallMillis(250)
          .open(Duration.ofSeconds(12))
          .maxOpen(Duration.ofSeconds(120))
          .halfOpenPermits(3)
          .probeLease(Duration.ofSeconds(4))
          .maxProbe(Duration.ofSeconds(45))
          .storeFailureMode(StoreFailureMode.LAST_KNOWN)
          .fallbackPolicy(FallbackPolicy.CACHED)
          .staticDefault("basic-plan")
          .enabled(false)
          .criticality(Criticality.CRITICAL)
          .rateLimited(RateLimitAction.BACKOFF)
          .build();

  private static String lua(String name) throws IOException {
    try (InputStream in = PolicyEncoding.class.getResourceAsStream("/io/breakerctl/lua/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theCanonicalSpecHasEveryFieldInTableOrder() {
    assertThat(List.copyOf(PolicySpec.toMap(EVERY).keySet())).isEqualTo(PolicyField.specNames());
    assertThat(PolicySpec.FIELDS).isEqualTo(PolicyField.specNames());
    assertThat(PolicySpec.fromMap(PolicySpec.toMap(EVERY))).isEqualTo(EVERY);
  }

  @Test
  void everyDiffNamesATableField() {
    assertThat(PolicySpec.diff(Policy.DEFAULT, EVERY))
        .extracting(c -> c.path().substring("spec.".length()))
        .isEqualTo(PolicyField.specNames());
  }

  @Test
  void theParserTakesEveryTableFieldAndNoOther() {
    StringBuilder doc =
        new StringBuilder(
            "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: \"*:*\"\nspec:\n");
    for (Map.Entry<String, Object> e : PolicySpec.toMap(EVERY).entrySet()) {
      Object v = e.getValue();
      doc.append("  ").append(e.getKey()).append(": ").append(v).append('\n');
    }
    PolicySet set = PolicyParser.parse("every.yaml", doc.toString());
    assertThat(set.problems()).isEmpty();
    assertThat(set.documents().get(0).policy()).isEqualTo(EVERY);
    PolicySet unknown = PolicyParser.parse("x.yaml", doc + "  failureTreshold: 3\n");
    assertThat(unknown.problems()).hasSize(1);
  }

  @Test
  void theScriptArgumentAndHashFieldsFollowTheTable() {
    String[] arg = PolicyEncoding.toArg(EVERY).split(",", -1);
    assertThat(arg).hasSize(PolicyField.argumentFields().size());
    assertThat(PolicyEncoding.fromArg(PolicyEncoding.toArg(EVERY)))
        .isEqualTo(
            EVERY.toBuilder()
                .storeFailureMode(StoreFailureMode.LOCAL_ONLY)
                .fallbackPolicy(FallbackPolicy.NONE)
                .staticDefault(null)
                .criticality(Criticality.NONE)
                .rateLimited(RateLimitAction.IGNORE)
                .build());
    PolicyEncoding.WarmedPolicy w = new PolicyEncoding.WarmedPolicy("*:*", 3, EVERY);
    Map<String, String> fields = PolicyEncoding.toFields(w);
    for (PolicyField f : PolicyField.values()) {
      assertThat(fields).containsKey(f.hashField());
    }
    assertThat(PolicyEncoding.fromFields(fields)).contains(w);
  }

  @Test
  void warmLuaWritesTheTablesHashFieldsInArgumentOrder() throws IOException {
    Matcher names =
        Pattern.compile("local names = \\{([^}]*)\\}", Pattern.DOTALL).matcher(lua("warm.lua"));
    assertThat(names.find()).isTrue();
    List<String> written = new ArrayList<>();
    Matcher q = Pattern.compile("'([^']+)'").matcher(names.group(1));
    while (q.find()) {
      written.add(q.group(1));
    }
    assertThat(written)
        .isEqualTo(PolicyField.argumentFields().stream().map(PolicyField::hashField).toList());
    String warm = lua("warm.lua");
    assertThat(warm)
        .contains("'" + PolicyField.STORE_FAILURE_MODE.hashField() + "'")
        .contains("'" + PolicyField.FALLBACK_POLICY.hashField() + "'")
        .contains("'" + PolicyField.STATIC_DEFAULT.hashField() + "'")
        .contains("'" + PolicyField.CRITICALITY.hashField() + "'")
        .contains("'" + PolicyField.RATE_LIMITED.hashField() + "'");
    String prelude = lua("prelude.lua");
    for (PolicyField f : PolicyField.argumentFields()) {
      assertThat(prelude).as("prelude.lua reads " + f.hashField()).contains("'" + f.hashField());
    }
  }

  @Test
  void theReadmeTableListsEveryFieldInOrder() throws IOException {
    String readme = Files.readString(Path.of("src/docs/control-plane.md"));
    int at = readme.indexOf("## Policy fields");
    assertThat(at).isPositive();
    List<String> rows = new ArrayList<>();
    Matcher row =
        Pattern.compile("(?m)^\\| `(\\w+)` \\| [^|]+ \\| [^|]+ \\| `([\\w.]+)` \\|")
            .matcher(readme.substring(at));
    while (row.find()) {
      rows.add(row.group(1) + "=" + row.group(2));
    }
    assertThat(rows)
        .isEqualTo(
            java.util.Arrays.stream(PolicyField.values())
                .map(f -> f.spec() + "=" + f.hashField())
                .toList());
  }
}
