package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.breakerctl.runtime.model.BreakerId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("BreakerKeys")
class BreakerKeysTest {

  private final BreakerKeys keys = BreakerKeys.withPrefix(BreakerKeys.DEFAULT_PREFIX);
  private final BreakerId id = BreakerId.parse("a:b");

  @Nested
  @DisplayName("layout")
  class Layout {

    @Test
    @DisplayName("the default prefix is cb")
    void defaultPrefix() {
      assertThat(keys.prefix()).isEqualTo("cb");
    }

    @Test
    @DisplayName("hash, stream and leases share the {id} hash tag")
    void keys() {
      assertThat(keys.hash(id)).isEqualTo("cb:{a:b}");
      assertThat(keys.events(id)).isEqualTo("cb:{a:b}:ev");
      assertThat(keys.leases(id)).isEqualTo("cb:{a:b}:leases");
    }

    @Test
    @DisplayName("a node's call counts: under the prefix, in the liveness key's cluster slot")
    void calls() {
      assertThat(keys.calls("node-1")).isEqualTo("cb:calls:{cb:alive}:node-1");
      assertThat(io.lettuce.core.cluster.SlotHash.getSlot(keys.calls("node-1")))
          .isEqualTo(io.lettuce.core.cluster.SlotHash.getSlot(keys.alive()));
    }

    @Test
    @DisplayName("a scoped id goes whole inside the hash tag")
    void scoped() {
      assertThat(keys.hash(BreakerId.parse("a:b:c"))).isEqualTo("cb:{a:b:c}");
    }

    @Test
    @DisplayName(
        "scriptKeys are hash, events, leases, nodes, nodeinfo, unforwarded marker in the order"
            + " KEYS[1..6] expects")
    void scriptKeys() {
      assertThat(keys.scriptKeys(id))
          .containsExactly(
              keys.hash(id),
              keys.events(id),
              keys.leases(id),
              keys.nodes(id),
              keys.nodeInfo(id),
              keys.unforwarded(id));
      assertThat(keys.unforwarded(id)).isEqualTo("cb:{a:b}:unfwd");
      assertThat(keys.unforwardedPattern()).isEqualTo("cb:{*}:unfwd");
      assertThat(keys.idOfMarker("cb:{a:b}:unfwd")).contains(id);
      assertThat(keys.idOfMarker("cb:{a:b}")).isEmpty();
      assertThat(keys.idOfMarker("cb:{a:b}:ev")).isEmpty();
    }

    @Test
    @DisplayName("the channel is <prefix>:events and the SCAN pattern <prefix>:{*}")
    void channelAndPattern() {
      assertThat(keys.channel()).isEqualTo("cb:events");
      assertThat(keys.hashPattern()).isEqualTo("cb:{*}");
      assertThat(BreakerKeys.withPrefix("prod.eu-1").channel()).isEqualTo("prod.eu-1:events");
    }

    @Test
    @DisplayName("another prefix changes every key")
    void otherPrefix() {
      BreakerKeys other = BreakerKeys.withPrefix("Prod_1");

      assertThat(other.hash(id)).isEqualTo("Prod_1:{a:b}");
      assertThat(other.events(id)).isEqualTo("Prod_1:{a:b}:ev");
      assertThat(other.leases(id)).isEqualTo("Prod_1:{a:b}:leases");
    }
  }

  @Nested
  @DisplayName("idOf")
  class IdOf {

    @Test
    @DisplayName("parses the id of a state hash key")
    void hashKey() {
      assertThat(keys.idOf("cb:{a:b}")).contains(id);
      assertThat(keys.idOf("cb:{a:b:c}")).contains(BreakerId.parse("a:b:c"));
      assertThat(keys.idOf(keys.hash(id))).contains(id);
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "cb:{a:b}:ev",
          "cb:{a:bc",
          "cb:{a:b",
          "cb:{a:b}:leases",
          "cb:events",
          "other:{a:b}",
          "cbx:{a:b}",
          "c:{a:b}",
          "cb{a:b}",
          "cb:{A:b}",
          "cb:{a}",
          "cb:{a:b:c:d}",
          "cb:{}",
          "cb:{a:b}:ev}",
          "cb:{a:{b}",
          "x:cb:{a:b}",
          ""
        })
    @DisplayName("rejects stream, lease, foreign-prefix and malformed keys")
    void notAHashKey(String key) {
      assertThat(keys.idOf(key)).isEmpty();
    }
  }

  @Nested
  @DisplayName("prefix validation")
  class Prefix {

    @ParameterizedTest
    @ValueSource(strings = {"cb", "C", "9", "a.b-c_d", "abcdefghijklmnopqrstuvwxyz012345"})
    @DisplayName("accepts 1-32 of [A-Za-z0-9._-] starting with a letter or digit")
    void accepted(String prefix) {
      assertThat(BreakerKeys.withPrefix(prefix).prefix()).isEqualTo(prefix);
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "",
          "abcdefghijklmnopqrstuvwxyz0123456",
          "cb:x",
          "cb{",
          "c}b",
          "c*",
          "-cb",
          ".cb",
          "c b"
        })
    @DisplayName("rejects anything else, quoting it")
    void rejected(String prefix) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> BreakerKeys.withPrefix(prefix))
          .withMessage("prefix must be 1-32 characters of [A-Za-z0-9._-] but was '" + prefix + "'");
    }

    @Test
    @DisplayName("rejects null")
    void nullPrefix() {
      assertThatNullPointerException()
          .isThrownBy(() -> BreakerKeys.withPrefix(null))
          .withMessage("prefix");
    }
  }
}
