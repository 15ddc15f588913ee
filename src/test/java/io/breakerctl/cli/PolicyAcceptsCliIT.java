package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.fallback.DeferredRequests;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.fallback.ControlledFailureException;
import io.breakerctl.runtime.fallback.DeferredStatus;
import io.breakerctl.runtime.fallback.FallbackResult;
import io.breakerctl.runtime.fallback.Fallbacks;
import io.breakerctl.runtime.fallback.Served;
import io.breakerctl.runtime.fallback.Unserved;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes report which fallback kinds their call sites accept, and {@code policy validate --fleet}
 * and {@code policy apply} warn (with {@code --strict}: refuse, nothing written) before a policy
 * names a kind a live node's call sites refuse (issue 43, item 2): the packaged jar against a real
 * redis-server and the MongoDB-wire server, a node running a write call site that accepts only
 * DEFERRED.
 */
@DisplayName(
    "policy validate --fleet / apply against the kinds live call sites accept (packaged jar)")
class PolicyAcceptsCliIT extends WithCliServers {
  @TempDir Path dir;

  @Test
  @DisplayName(
      "a node accepting only DEFERRED: apply of STATIC_DEFAULT warns naming breaker, node and what"
          + " it accepts, --strict exits 2 writing nothing; after the apply a submit is a"
          + " controlled failure and the request deferred before it is not lost")
  void applyWarnsAndStrictRefuses() throws Exception {
    BreakerId id = BreakerId.parse("accepts:bank");
    String accepted = "accept only NONE,DEFERRED,CONTROLLED_FAILURE";
    List<String> ran = new CopyOnWriteArrayList<>();
    try (ControlDatabase db =
            ControlDatabase.connect(ControlConfig.builder().uri(servers.mongoUri()).build());
        BreakerRegistry registry =
            BreakerRegistry.builder()
                .redisUri(servers.redis.uri())
                .nodeId("bank-node")
                .mode(Mode.HYBRID)
                .flushInterval(Duration.ofMillis(200))
                .defaults(Policy.builder().fallbackPolicy(FallbackPolicy.DEFERRED).build())
                .build()) {
      CircuitBreaker cb = registry.breaker(id);
      try (Fallbacks<String> transfers =
          Fallbacks.<String>builder(cb)
              .accepts(FallbackPolicy.DEFERRED)
              .submitAccepts(FallbackPolicy.DEFERRED)
              .staticDefault(() -> "OK")
              .replayInterval(Duration.ofMillis(200))
              .deferred(
                  new DeferredRequests(db, PayloadKeys.none(), Clock.systemUTC()),
                  payload -> {
                    ran.add(new String(payload, StandardCharsets.UTF_8));
                    return "booked";
                  })
              .build()) {
        Poll.until(
            Duration.ofSeconds(10),
            "the node reports what its call site accepts",
            () ->
                StoreFutures.await(servers.store.snapshot(id, 0)).nodes().stream()
                    .anyMatch(n -> n.accepts().equals("NONE,DEFERRED,CONTROLLED_FAILURE")));
        StoreFutures.await(
            servers.store.override(
                id,
                new OverrideRequest(
                    OverrideKind.FORCED_OPEN, "test", "dependency down", Duration.ZERO, "")));
        Poll.until(
            Duration.ofSeconds(5), "FORCED_OPEN", () -> cb.view().state() == State.FORCED_OPEN);
        FallbackResult<String> deferred =
            transfers.submit(null, "t-1".getBytes(StandardCharsets.UTF_8));
        assertThat(deferred.served()).isEqualTo(Served.DEFERRED);

        Path file = dir.resolve("bank.yaml");
        Files.writeString(
            file,
            "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: "
                + id
                + "\nspec:\n  fallbackPolicy: STATIC_DEFAULT\n");
        Path fine = dir.resolve("fine.yaml");
        Files.writeString(
            fine,
            "apiVersion: breakerctl/v1\nkind: Policy\nmetadata:\n  id: "
                + id
                + "\nspec:\n  fallbackPolicy: DEFERRED\n");

        CliProcess.Result offline = cli.run("policy", "validate", file.toString());
        assertThat(offline.code()).as(offline.toString()).isZero();
        assertThat(offline.err()).as("offline: nothing read").doesNotContain("warning");
        CliProcess.Result validate = cli.run("policy", "validate", "--fleet", file.toString());
        assertThat(validate.code()).as(validate.toString()).isZero();
        assertThat(validate.err()).contains("warning:", "accepts:bank", "bank-node", accepted);
        CliProcess.Result strictValidate =
            cli.run("policy", "validate", "--strict", file.toString());
        assertThat(strictValidate.code()).as(strictValidate.toString()).isEqualTo(2);
        CliProcess.Result accepting = cli.run("policy", "validate", "--strict", fine.toString());
        assertThat(accepting.code()).as(accepting.toString()).isZero();
        assertThat(accepting.err()).doesNotContain("warning");

        CliProcess.Result strict =
            cli.run("policy", "apply", "-f", file.toString(), "--reason", "r", "--yes", "--strict");
        assertThat(strict.code()).as(strict.toString()).isEqualTo(2);
        assertThat(strict.err()).contains("bank-node", accepted, "nothing was applied");
        PolicyControl control = new PolicyControl(db, null, Clock.systemUTC());
        assertThat(control.store().latest(PolicyId.of(id))).as("nothing written").isEmpty();
        assertThat(StoreFutures.await(servers.store.snapshot(id, 0)).warmedPolicy())
            .as("nothing warmed")
            .isEmpty();
        CliProcess.Result strictDry =
            cli.run("policy", "apply", "-f", file.toString(), "--dry-run", "--strict");
        assertThat(strictDry.code()).as(strictDry.toString()).isEqualTo(2);
        CliProcess.Result dry = cli.run("policy", "apply", "-f", file.toString(), "--dry-run");
        assertThat(dry.code()).as("would change: %s", dry).isEqualTo(1);
        assertThat(dry.err()).contains("bank-node", accepted);

        CliProcess.Result apply =
            cli.run("policy", "apply", "-f", file.toString(), "--reason", "r", "--yes");
        assertThat(apply.code()).as(apply.toString()).isZero();
        assertThat(apply.err()).contains("warning:", "accepts:bank", "bank-node", accepted);
        Poll.until(
            Duration.ofSeconds(5),
            "the node adopts STATIC_DEFAULT",
            () -> cb.view().policy().fallbackPolicy() == FallbackPolicy.STATIC_DEFAULT);

        assertThatThrownBy(() -> transfers.submit(null, "t-2".getBytes(StandardCharsets.UTF_8)))
            .as("a controlled failure, never the default OK")
            .isInstanceOfSatisfying(
                ControlledFailureException.class,
                e -> assertThat(e.unserved()).contains(Unserved.NOT_ACCEPTED));
        assertThat(transfers.deferred(deferred.trackingId()).orElseThrow().status())
            .as("the request deferred before the switch is kept")
            .isEqualTo(DeferredStatus.PENDING);
        StoreFutures.await(
            servers.store.override(
                id, new OverrideRequest(OverrideKind.CLEAR, "test", "back", Duration.ZERO, "")));
        Poll.until(
            Duration.ofSeconds(10),
            "the deferred request runs once the breaker admits calls",
            () ->
                transfers.deferred(deferred.trackingId()).orElseThrow().status()
                    == DeferredStatus.DONE);
        assertThat(ran).as("t-1 ran; t-2 was refused, never run nor answered OK").contains("t-1");
        assertThat(ran).doesNotContain("t-2");
      }
    }
  }
}
