package io.breakerctl.runtime.control.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.Policy;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.Document;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("policy version origins (issue 30, item 2)")
class PolicyOriginTest {

  private static final Instant AT = Instant.parse("2026-12-06T12:00:00Z");

  private static PolicyVersion version(long v, PolicyOrigin origin) {
    return version(v, origin, Optional.empty(), 0);
  }

  private static PolicyVersion version(
      long v, PolicyOrigin origin, Optional<Instant> expiresAt, long revertOf) {
    return new PolicyVersion(
        PolicyId.parse("o:dep"),
        v,
        Policy.builder().failureThreshold(3).build(),
        "",
        Map.of(),
        "alice",
        "hotfix",
        "",
        AT.plusSeconds(v * 60),
        expiresAt,
        0,
        revertOf,
        "c" + v,
        false,
        origin);
  }

  @Nested
  @DisplayName("the stored form")
  class Stored {
    @Test
    @DisplayName("every kind reads back as written")
    void roundTrip() {
      for (PolicyOrigin o :
          List.of(
              PolicyOrigin.ci("3f2a9c1d0b7e"),
              PolicyOrigin.HAND,
              PolicyOrigin.rollback(1),
              PolicyOrigin.revert(4),
              PolicyOrigin.UNKNOWN)) {
        assertThat(PolicyOrigin.parse(o.toString())).isEqualTo(o);
      }
      assertThat(PolicyOrigin.ci("3f2a9c1d0b7e")).hasToString("ci:3f2a9c1d0b7e");
      assertThat(PolicyOrigin.rollback(1)).hasToString("rollback:v1");
      assertThat(PolicyOrigin.HAND).hasToString("hand");
    }

    @Test
    @DisplayName("missing reads as unknown; malformed is rejected, quoting the value")
    void missingAndMalformed() {
      assertThat(PolicyOrigin.parse(null)).isEqualTo(PolicyOrigin.UNKNOWN);
      assertThat(PolicyOrigin.parse("")).isEqualTo(PolicyOrigin.UNKNOWN);
      assertThatThrownBy(() -> PolicyOrigin.parse("robot"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'robot'");
      assertThatThrownBy(() -> PolicyOrigin.parse("ci:"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> PolicyOrigin.ci("abc def"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'abc def'");
      assertThatThrownBy(() -> PolicyOrigin.parse("hand:x"))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("a version document without origin (written before origins were) reads unknown")
    void oldDocument() {
      Document d = version(2, PolicyOrigin.ci("abc123")).toDocument();
      assertThat(d.getString("origin")).isEqualTo("ci:abc123");
      assertThat(PolicyVersion.fromDocument(d).origin()).isEqualTo(PolicyOrigin.ci("abc123"));

      Document old =
          new Document("policyId", "o:dep")
              .append("version", 1L)
              .append("spec", new Document(PolicySpec.toMap(Policy.builder().build())))
              .append("createdAt", Date.from(AT));
      assertThat(PolicyVersion.fromDocument(old).origin()).isEqualTo(PolicyOrigin.UNKNOWN);
      old.append("origin", "from-the-future:x");
      assertThat(PolicyVersion.fromDocument(old).origin()).isEqualTo(PolicyOrigin.UNKNOWN);
    }
  }

  @Nested
  @DisplayName("a CI apply refuses to change what no CI rollout made")
  class OnlyOverCi {
    private PolicyPreview preview(Optional<PolicyVersion> inForce, boolean changed) {
      return new PolicyPreview(
          PolicyId.parse("o:dep"), 2, inForce, List.of(), changed, Optional.empty());
    }

    @Test
    @DisplayName("a rollback, a hand apply, a revert or an unknown origin in force: refused")
    void refused() {
      for (PolicyOrigin o :
          List.of(
              PolicyOrigin.rollback(1),
              PolicyOrigin.HAND,
              PolicyOrigin.revert(3),
              PolicyOrigin.UNKNOWN)) {
        List<PolicyPreview> previews = List.of(preview(Optional.of(version(2, o)), true));
        assertThatThrownBy(() -> PolicyControl.requireOnlyOverCi(previews, id -> List.of()))
            .isInstanceOf(HandChangeException.class)
            .hasMessageContaining("policy o:dep: version 2 in force")
            .hasMessageContaining("origin " + o)
            .hasMessageContaining("by alice at 2026-12-06T12:02:00Z, reason: hotfix")
            .hasMessageContaining("nothing was written");
      }
    }

    @Test
    @DisplayName("a CI version in force, a new policy, or no change: allowed")
    void allowed() {
      PolicyControl.requireOnlyOverCi(
          List.of(
              preview(Optional.of(version(2, PolicyOrigin.ci("abc123"))), true),
              preview(Optional.empty(), true),
              preview(Optional.of(version(2, PolicyOrigin.HAND)), false)),
          id -> List.of());
    }

    @Test
    @DisplayName(
        "the revert of an expired hotfix: allowed back to a CI spec, refused to a hand one")
    void reverts() {
      for (PolicyOrigin first : List.of(PolicyOrigin.ci("abc123"), PolicyOrigin.HAND)) {
        // v1 first, v2 a temporary hand hotfix that expired, v3 its revert (v1's spec again)
        List<PolicyVersion> all =
            List.of(
                version(1, first),
                version(2, PolicyOrigin.HAND, Optional.of(AT.plusSeconds(150)), 0),
                version(3, PolicyOrigin.revert(2), Optional.empty(), 2));
        assertThat(PolicyVersion.specOrigin(all, all.get(2))).isEqualTo(first);
        List<PolicyPreview> previews = List.of(preview(Optional.of(all.get(2)), true));
        if (first.isCi()) {
          PolicyControl.requireOnlyOverCi(previews, id -> all);
        } else {
          assertThatThrownBy(() -> PolicyControl.requireOnlyOverCi(previews, id -> all))
              .isInstanceOf(HandChangeException.class)
              .hasMessageContaining("version 3 in force")
              .hasMessageContaining("origin revert:v2");
        }
      }
    }
  }
}
