package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("BreakerSnapshot")
class BreakerSnapshotTest {

  private static final BreakerId ID = BreakerId.parse("checkout:payments");

  private static BreakerSnapshot snapshot(Map<String, String> fields, long now) {
    return new BreakerSnapshot(ID, fields, List.of(), List.of(), List.of(), now);
  }

  private static BreakerSnapshot snapshot(List<ProbeLease> leases, long now) {
    return new BreakerSnapshot(ID, Map.of("state", "HALF_OPEN"), leases, List.of(), List.of(), now);
  }

  @Nested
  @DisplayName("exists")
  class Exists {

    @Test
    @DisplayName("false for an empty hash")
    void empty() {
      assertThat(snapshot(Map.of(), 1000).exists()).isFalse();
    }

    @Test
    @DisplayName("true once any field is stored")
    void nonEmpty() {
      assertThat(snapshot(Map.of("epoch", "1"), 1000).exists()).isTrue();
    }

    @Test
    @DisplayName("a breaker without keys reads as CLOSED with no override")
    void absentReadsClosed() {
      BreakerSnapshot s = snapshot(Map.of(), 1000);

      assertThat(s.storedState()).isEqualTo(State.CLOSED);
      assertThat(s.override()).isEmpty();
      assertThat(s.effectiveState()).isEqualTo(State.CLOSED);
      assertThat(s.epoch()).isEmpty();
      assertThat(s.warmedPolicy()).isEmpty();
    }
  }

  @Nested
  @DisplayName("effectiveState")
  class Effective {

    @Test
    @DisplayName("OPEN until openUntil, HALF_OPEN from it on, at the snapshot's Redis time")
    void openWindow() {
      Map<String, String> fields = Map.of("state", "OPEN", "openUntil", "5000");

      assertThat(snapshot(fields, 4999).effectiveState()).isEqualTo(State.OPEN);
      assertThat(snapshot(fields, 5000).effectiveState()).isEqualTo(State.HALF_OPEN);
      assertThat(snapshot(fields, 4999).storedState()).isEqualTo(State.OPEN);
    }

    @Test
    @DisplayName("a live override wins until overrideUntil")
    void liveOverride() {
      Map<String, String> fields =
          Map.of(
              "state",
              "OPEN",
              "openUntil",
              "5000",
              "override",
              "FORCED_CLOSED",
              "overrideUntil",
              "8000");

      assertThat(snapshot(fields, 7999).effectiveState()).isEqualTo(State.FORCED_CLOSED);
      assertThat(snapshot(fields, 8000).effectiveState()).isEqualTo(State.HALF_OPEN);
      assertThat(snapshot(fields, 8000).override()).contains(State.FORCED_CLOSED);
    }

    @Test
    @DisplayName("overrideUntil 0 or absent never expires")
    void neverExpires() {
      assertThat(
              snapshot(Map.of("override", "FORCED_OPEN", "overrideUntil", "0"), Long.MAX_VALUE)
                  .effectiveState())
          .isEqualTo(State.FORCED_OPEN);
      assertThat(snapshot(Map.of("override", "DISABLED"), 123_456).effectiveState())
          .isEqualTo(State.DISABLED);
    }

    @Test
    @DisplayName("an empty override field means none")
    void emptyOverride() {
      BreakerSnapshot s = snapshot(Map.of("state", "HALF_OPEN", "override", ""), 1);

      assertThat(s.override()).isEmpty();
      assertThat(s.effectiveState()).isEqualTo(State.HALF_OPEN);
    }

    @Test
    @DisplayName("effectiveStateAt evaluates at another time without changing the snapshot")
    void at() {
      BreakerSnapshot s = snapshot(Map.of("state", "OPEN", "openUntil", "5000"), 1000);

      assertThat(s.effectiveStateAt(6000)).isEqualTo(State.HALF_OPEN);
      assertThat(s.effectiveState()).isEqualTo(State.OPEN);
    }
  }

  @Nested
  @DisplayName("liveLeases")
  class Leases {

    @Test
    @DisplayName("keeps leases expiring after the read, drops those expired at or before it")
    void filtersByExpiry() {
      ProbeLease expired = new ProbeLease("1", "n1", 999);
      ProbeLease expiringNow = new ProbeLease("2", "n2", 1000);
      ProbeLease live = new ProbeLease("3", "n3", 1001);

      BreakerSnapshot s = snapshot(List.of(expired, expiringNow, live), 1000);

      assertThat(s.liveLeases()).containsExactly(live);
      assertThat(s.leases()).hasSize(3);
    }
  }

  @Nested
  @DisplayName("fields")
  class Fields {

    @Test
    @DisplayName("number() is 0 for absent or empty fields, else the value")
    void number() {
      Map<String, String> fields = new HashMap<>();
      fields.put("generation", "42");
      fields.put("openUntil", "");
      BreakerSnapshot s = snapshot(fields, 1);

      assertThat(s.number("generation")).isEqualTo(42);
      assertThat(s.number("openUntil")).isZero();
      assertThat(s.number("missing")).isZero();
    }

    @Test
    @DisplayName("the warmed policy comes from the p.* fields")
    void warmedPolicy() {
      Map<String, String> fields = new HashMap<>();
      fields.put("policyId", "p1");
      fields.put("policyVersion", "2");
      fields.put("p.failureThreshold", "9");

      assertThat(snapshot(fields, 1).warmedPolicy())
          .contains(
              new PolicyEncoding.WarmedPolicy(
                  "p1", 2, Policy.builder().failureThreshold(9).build()));
    }

    @Test
    @DisplayName("the cursor and restore fields read as stored, empty when absent")
    void cursors() {
      BreakerSnapshot s =
          snapshot(
              Map.of(
                  "lastEvent", "7-0",
                  "forwarded", "5-0",
                  "restoredFrom", "1000|3-0",
                  "lastTransitionAt", "1700",
                  "policyVersion", "3",
                  "state", "OPEN"),
              1);
      BreakerSnapshot none = snapshot(Map.of("epoch", "1"), 1);

      assertThat(s.lastEvent()).contains("7-0");
      assertThat(s.forwarded()).contains("5-0");
      assertThat(s.restoredFrom()).contains("1000|3-0");
      assertThat(s.lastTransitionAt()).hasValue(1700);
      assertThat(s.policyVersionText()).isEqualTo("3");
      assertThat(s.storedStateText()).isEqualTo("OPEN");
      assertThat(none.lastEvent()).isEmpty();
      assertThat(none.forwarded()).isEmpty();
      assertThat(none.restoredFrom()).isEmpty();
      assertThat(none.lastTransitionAt()).isEmpty();
      assertThat(none.policyVersionText()).isEmpty();
      assertThat(none.storedStateText()).isEmpty();
      assertThat(none.hasOverrideField()).isFalse();
      assertThat(none.eventsExpired()).isZero();
    }

    @Test
    @DisplayName("a malformed number names its field; the raw texts are shown as they are")
    void malformed() {
      BreakerSnapshot s =
          snapshot(
              Map.of(
                  "lastTransitionAt", "soon",
                  "eventsExpired", "many",
                  "state", "MELTING",
                  "override", "BOGUS"),
              1);

      assertThatThrownBy(s::lastTransitionAt)
          .isInstanceOf(MalformedBreakerException.class)
          .hasMessageContaining("field lastTransitionAt is not a number: 'soon'");
      assertThatThrownBy(s::eventsExpired)
          .isInstanceOf(MalformedBreakerException.class)
          .hasMessageContaining("field eventsExpired is not a number: 'many'");
      assertThat(s.storedStateText()).isEqualTo("MELTING");
      assertThat(s.hasOverrideField()).isTrue();
    }

    @Test
    @DisplayName("a lease's grant record reads when the hash holds a readable one")
    void leaseGrant() {
      ProbeLease kept = new ProbeLease("4", "node-a", 2000);
      ProbeLease garbled = new ProbeLease("5", "node-b", 2000);
      ProbeLease unknown = new ProbeLease("6", "node-c", 2000);
      BreakerSnapshot s =
          snapshot(Map.of("lease.4|node-a", "1500:2", "lease.5|node-b", "1500"), 1000);

      assertThat(s.grantOf(kept)).contains(new BreakerSnapshot.LeaseGrant(1500, 2));
      assertThat(s.grantOf(garbled)).isEmpty();
      assertThat(s.grantOf(unknown)).isEmpty();
    }

    @Test
    @DisplayName("the node defaults read while no policy is warmed")
    void nodeDefaults() {
      String arg = PolicyEncoding.toArg(Policy.builder().failureThreshold(7).build());

      assertThat(snapshot(Map.of("nodePolicy", arg), 1).nodeDefaults())
          .hasValueSatisfying(p -> assertThat(p.failureThreshold()).isEqualTo(7));
      assertThat(snapshot(Map.of("nodePolicy", arg, "policyVersion", "1"), 1).nodeDefaults())
          .isEmpty();
      assertThat(snapshot(Map.of(), 1).nodeDefaults()).isEmpty();
    }
  }
}
