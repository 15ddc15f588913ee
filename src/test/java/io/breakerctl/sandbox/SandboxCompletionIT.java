package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.cli.Environment;
import io.breakerctl.cli.commands.SandboxCommand;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.redis.Outcome;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreConfig;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The committed bash completion, driven the way bash drives it (COMP_WORDS, COMP_CWORD, the
 * completion function), lists a running sandbox's breaker ids and the config's context names
 * through the packaged jar's hidden {@code __complete} command.
 */
class SandboxCompletionIT {

  static final Path REPO = Path.of("").toAbsolutePath();
  static Path home;
  static Sandbox sandbox;

  @BeforeAll
  static void sandboxWithBreakers() throws Exception {
    home = Files.createTempDirectory("breakerctl-completion");
    sandbox = new Sandbox(home.resolve("state/breakerctl/sandbox"));
    SandboxState state = sandbox.up().state();
    try (RedisBreakerStore store =
        RedisBreakerStore.connect(
            StoreConfig.builder().uri(state.redisUri()).timeout(Duration.ofSeconds(5)).build())) {
      for (String id : List.of("checkout:payments", "checkout:inventory", "claims:members")) {
        RedisBreakerStore.await(
            store.record(BreakerId.parse(id), Outcome.successes("it-node", 1), DemoFleet.POLICY));
      }
    }
    Environment env =
        new Environment(
            Map.of("XDG_CONFIG_HOME", home.resolve("config").toString()),
            false,
            Clock.systemUTC(),
            new BufferedReader(new StringReader("")),
            "it");
    SandboxCommand.useSandboxContext(env, state);

    Path jar;
    try (Stream<Path> s = Files.list(REPO.resolve("target"))) {
      jar =
          s.filter(p -> p.getFileName().toString().matches("breakerctl-.*-all\\.jar"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no target/breakerctl-*-all.jar: run package"));
    }
    Path bin = Files.createDirectories(home.resolve("bin"));
    Path launcher = bin.resolve("breakerctl");
    Files.writeString(
        launcher,
        "#!/bin/sh\nexec '"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + "' -XX:TieredStopAtLevel=1 -cp '"
            + jar
            + "' io.breakerctl.cli.Main \"$@\"\n");
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.down();
    }
  }

  @Test
  void describeCompletesTheSandboxBreakerIds() throws Exception {
    assertThat(complete("breakerctl", "describe", ""))
        .containsExactly("checkout:inventory", "checkout:payments", "claims:members");
    assertThat(complete("breakerctl", "describe", "check"))
        .containsExactly("checkout:inventory", "checkout:payments");
    assertThat(complete("breakerctl", "force", "open", "claims:"))
        .containsExactly("claims:members");
  }

  @Test
  void useContextCompletesContextNames() throws Exception {
    assertThat(complete("breakerctl", "config", "use-context", "")).containsExactly("sandbox");
  }

  /** The candidates bash would offer for the last word. */
  private static List<String> complete(String... words) throws Exception {
    StringBuilder array = new StringBuilder();
    for (String w : words) {
      array.append('\'').append(w).append("' ");
    }
    String script =
        "source '"
            + REPO.resolve("completions/breakerctl.bash")
            + "'\n"
            + "COMP_WORDS=("
            + array
            + ")\n"
            + "COMP_CWORD="
            + (words.length - 1)
            + "\n"
            + "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n"
            + "_complete_breakerctl breakerctl \"${COMP_WORDS[COMP_CWORD]}\""
            + " \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
            + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    ProcessBuilder pb = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", script);
    pb.environment().put("PATH", home.resolve("bin") + ":" + System.getenv("PATH"));
    pb.environment().put("HOME", home.toString());
    pb.environment().put("XDG_CONFIG_HOME", home.resolve("config").toString());
    pb.environment().put("XDG_STATE_HOME", home.resolve("state").toString());
    pb.environment().remove("BREAKERCTL_CONTEXT");
    pb.environment().remove("BREAKERCTL_REDIS");
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return Arrays.stream(out.split("\n")).filter(l -> !l.isBlank()).sorted().toList();
  }
}
