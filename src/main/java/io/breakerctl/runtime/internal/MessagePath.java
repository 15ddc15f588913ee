package io.breakerctl.runtime.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.breakerctl.runtime.BackgroundTask;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.BreakerId;

/**
 * Where a registry's fleet messages go: a transition or another change to the breaker it names, a
 * beacon back to the subscription's check, and the node's own hello to the warm-up, which runs the
 * whole path a transition takes often enough that the JIT compiles it before the first real trip.
 */
final class MessagePath {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How often the warm-up runs a transition message through the view update. */
  private static final int WARM_UP_ROUNDS = 2_000;

  /**
   * How many calls the warm-up has its scratch breaker reject: the first real rejection otherwise
   * loads the classes of the view's switch and runs the rejection interpreted.
   */
  private static final int WARM_UP_REJECTIONS = 300;

  /** The breaker id of the message a node sends itself to warm its message path. */
  private static final BreakerId WARM_UP = BreakerId.parse("breakerctl-warm-up:message-path");

  private final DefaultBreakerRegistry registry;

  MessagePath(DefaultBreakerRegistry registry) {
    this.registry = registry;
  }

  /**
   * The trip and the close the warm-up runs through a node's message path, shaped as {@code
   * record.lua} publishes them (the same fields, values as long as real ones), on a breaker nobody
   * uses, the trip open for an hour. A message with fewer fields warmed less than it seemed: the
   * first real trip's unseen field names de-optimized the compiled JSON parser in every JVM at
   * once, just when its 5 nodes' messages arrived ({@code WarmUpMessageIT} compares these with what
   * the scripts publish).
   */
  static ObjectNode[] warmUpTransitions(String node, long now) {
    String at = Long.toString(now);
    ObjectNode trip =
        transitionShape(node, at, "CLOSED", "OPEN", "FAILURE_THRESHOLD")
            .put("failures", "5")
            .put("calls", "5")
            .put("threshold", "5")
            .put("minimumCalls", "20")
            .put("failureRate", "")
            .put("slow", "0")
            .put("openMillis", "3600000")
            .put("until", Long.toString(now + 3_600_000));
    ObjectNode close =
        transitionShape(node, at, "HALF_OPEN", "CLOSED", "PROBES_SUCCEEDED")
            .put("lease", "1")
            .put("successes", "1")
            .put("permits", "1");
    return new ObjectNode[] {trip, close};
  }

  private static ObjectNode transitionShape(
      String node, String at, String from, String to, String cause) {
    return JSON.createObjectNode()
        .put("type", "transition")
        .put("id", WARM_UP.toString())
        .put("streamId", at + "-0")
        .put("epoch", "1796189124614293")
        .put("from", from)
        .put("to", to)
        .put("cause", cause)
        .put("generation", "1")
        .put("policyId", "")
        .put("policyVersion", "0")
        .put("node", node)
        .put("at", at);
  }

  void onMessage(String message) {
    BackgroundHealth health = registry.health();
    try {
      JsonNode m = JSON.readTree(message);
      String type = m.path("type").asText("");
      if ("beacon".equals(type)) {
        registry.connection().beaconHeard(m.path("nonce").asText(""), m.path("seq").asLong(0));
        return;
      }
      if ("hello".equals(type)) {
        String nodeId = registry.nodeId();
        if (nodeId.equals(m.path("node").asText(""))
            && registry.connection().nonce().equals(m.path("nonce").asText(""))) {
          warmUp(m, nodeId);
        }
        return;
      }
      FleetMessage f = FleetMessage.parse(m);
      health.succeeded(BackgroundTask.MESSAGE);
      DistributedBreaker b = registry.breakerOrNull(f.id());
      if (b == null) {
        return;
      }
      if (f.transition()) {
        b.onTransitionMessage(f);
      } else {
        b.onOtherMessage();
      }
    } catch (Exception e) {
      // a malformed message must not disturb the node; the periodic refresh corrects the view
      health.failed(BackgroundTask.MESSAGE, e);
    }
  }

  /**
   * The whole path a transition takes, on a breaker nobody uses, often enough that the JIT compiles
   * it (a few ms, once): the first trip a fresh JVM sees is not interpreted. Trips and closes
   * alternate, with a listener, so both states and the event a node's listeners get are compiled
   * too (a path that only ever saw one state is recompiled, and the event classes loaded, on the
   * first real trip's message).
   */
  private void warmUp(JsonNode hello, String nodeId) throws Exception {
    DistributedBreaker scratch = new DistributedBreaker(WARM_UP, registry);
    scratch.onEvent(e -> {});
    // and the classes a first failure's classification loads
    FailureClassifier.DEFAULT.classify(new java.io.IOException("warm-up"));
    ObjectNode[] shapes = warmUpTransitions(nodeId, System.currentTimeMillis());
    String[] transitions = {hello.path("message").toString(), shapes[1].toString()};
    try {
      for (int i = 0; i < WARM_UP_ROUNDS; i++) {
        scratch.warmUp(FleetMessage.parse(JSON.readTree(transitions[i & 1])));
      }
      if (registry.mode() == Mode.HYBRID && registry.guard().up()) {
        // open again, then rejected calls (the view decides them: nothing is sent)
        scratch.warmUp(FleetMessage.parse(JSON.readTree(transitions[0])));
        scratch.warmUpCallPath(WARM_UP_REJECTIONS);
      }
      // loaded, not run: what a trip queues next, and what its answer does
      registry.refresher().warmUp(scratch, WARM_UP);
    } finally {
      registry.connection().warmedUp();
    }
  }
}
