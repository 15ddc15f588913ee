package io.breakerctl.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.breakerctl.cli.Environment;
import io.breakerctl.cli.commands.SandboxCommand;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import java.io.BufferedReader;
import java.io.File;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The committed completions list a running sandbox's breaker ids and the config's context names
 * through the packaged jar's hidden {@code __complete} command: bash's driven the way bash drives
 * it (COMP_WORDS split at COMP_WORDBREAKS, COMP_CWORD, the compspec's function), and both bash's
 * and zsh's by a TAB typed into the interactive shell on a terminal.
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
    try (RedisFleetStore store =
        RedisFleetStore.connect(
            StoreConfig.builder().uri(state.redisUri()).timeout(Duration.ofSeconds(5)).build())) {
      for (String id : List.of("checkout:payments", "checkout:inventory", "claims:members")) {
        StoreFutures.await(
            store.record(BreakerId.parse(id), Outcome.successes("it-node", 1), Policy.DEFAULT));
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
            + "' io.breakerctl.Main \"$@\"\n");
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
    assertThat(complete("breakerctl describe "))
        .containsExactly("checkout:inventory", "checkout:payments", "claims:members");
    assertThat(complete("breakerctl describe check"))
        .containsExactly("checkout:inventory", "checkout:payments");
  }

  @Test
  @DisplayName("bash splits words at ':': ids complete whole, the candidates past the last ':'")
  void idsCompleteAtAColon() throws Exception {
    // bash hands the function `claims` `:` `m`; it inserts the candidate in place of `m`
    assertThat(complete("breakerctl describe claims:m")).containsExactly("members");
    assertThat(complete("breakerctl describe checkout:p")).containsExactly("payments");
    assertThat(complete("breakerctl force open claims:")).containsExactly("members");
    assertThat(complete("breakerctl describe claims:members:")).isEmpty();
  }

  @Test
  void useContextCompletesContextNames() throws Exception {
    assertThat(complete("breakerctl config use-context ")).containsExactly("sandbox");
  }

  @Test
  @DisplayName("TAB in an interactive bash completes checkout:p to checkout:payments")
  void tabInBash() throws Exception {
    assumeTrue(onPath("zsh"), "assumption: zsh (its zpty drives the terminal) is not installed");
    assertThat(typed("bash", "breakerctl describe checkout:p"))
        .isEqualTo("breakerctl describe checkout:payments");
    assertThat(typed("bash", "breakerctl describe claims:m"))
        .isEqualTo("breakerctl describe claims:members");
  }

  @Test
  @DisplayName("zsh: _breakerctl parses, and TAB completes ids and subcommands")
  void tabInZsh() throws Exception {
    assumeTrue(onPath("zsh"), "assumption: zsh is not installed (apt-get install zsh)");
    Process parse =
        new ProcessBuilder("zsh", "-n", REPO.resolve("completions/_breakerctl").toString())
            .redirectErrorStream(true)
            .start();
    String parseOut = new String(parse.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(parse.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(parse.exitValue()).as(parseOut).isZero();

    assertThat(typed("zsh", "breakerctl describe claims:m"))
        .isEqualTo("breakerctl describe claims:members");
    assertThat(typed("zsh", "breakerctl force op")).isEqualTo("breakerctl force open");
  }

  /**
   * The candidates bash offers for the end of {@code line}: the words split the way bash splits
   * them (at blanks and at the characters of COMP_WORDBREAKS), the function the completion
   * specification names called as bash calls it.
   */
  private static List<String> complete(String line) throws Exception {
    List<String> words = bashWords(line);
    StringBuilder array = new StringBuilder();
    for (String w : words) {
      array.append('\'').append(w).append("' ");
    }
    String script =
        "source '"
            + REPO.resolve("completions/breakerctl.bash")
            + "'\n"
            + "fn=$(complete -p breakerctl | sed -E 's/.*-F ([^ ]+).*/\\1/')\n"
            + "COMP_WORDS=("
            + array
            + ")\n"
            + "COMP_CWORD="
            + (words.size() - 1)
            + "\n"
            + "COMP_LINE='"
            + line
            + "'; COMP_POINT=${#COMP_LINE}\n"
            + "$fn breakerctl \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\""
            + " 2>/dev/null\n"
            + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    String out = run(new ProcessBuilder("bash", "--norc", "--noprofile", "-c", script));
    return Arrays.stream(out.split("\n")).filter(l -> !l.isBlank()).sorted().toList();
  }

  /** bash's split of a command line with the default COMP_WORDBREAKS. */
  static List<String> bashWords(String line) {
    String breaks = "\"'><=;|&(:";
    List<String> words = new ArrayList<>();
    for (String token : line.split(" ", -1)) {
      StringBuilder w = new StringBuilder();
      boolean inBreak = false;
      for (char c : token.toCharArray()) {
        boolean isBreak = breaks.indexOf(c) >= 0;
        if (w.length() > 0 && isBreak != inBreak) {
          words.add(w.toString());
          w.setLength(0);
        }
        w.append(c);
        inBreak = isBreak;
      }
      if (w.length() > 0 || words.isEmpty() || token.isEmpty()) {
        words.add(w.toString());
      }
    }
    return words;
  }

  /**
   * What the line reads after typing {@code line} and TAB in an interactive {@code shell} on a
   * terminal (zsh's zpty), with the committed completion installed as a user installs it.
   */
  private static String typed(String shell, String line) throws Exception {
    // the prompt is READY> ; the echo of the line that sets it reads RE""ADY>
    String setup =
        shell.equals("bash")
            ? "PS1=\"RE\"\"ADY> \"; bind \"set bell-style none\"; source "
                + REPO.resolve("completions/breakerctl.bash")
            : "PS1=\"RE\"\"ADY> \"; unsetopt beep; fpath=("
                + REPO.resolve("completions")
                + " $fpath); autoload -U compinit; compinit -u -D";
    String command = shell.equals("bash") ? "bash --norc --noprofile -i" : "zsh -f -i";
    String script =
        String.join(
            "\n",
            "zmodload zsh/zpty",
            "zpty -b t '" + command + "'",
            "zpty -w t '" + setup.replace("'", "'\\''") + "'",
            "zpty -r t seen '*READY> *'",
            // the shell reads keys now: TAB runs the completion before it reads Ctrl-A and the
            // command that prints the line
            "zpty -w -n t $'" + line + "\\t'",
            "zpty -w -n t $'\\C-a'",
            "zpty -w t 'echo DONE-$((6*7)):'",
            "zpty -r t seen '*DONE-42:*READY> *'",
            "print -r -- \"$seen\"",
            "zpty -d t",
            "");
    String out = run(new ProcessBuilder("zsh", "-f", "-c", script)).replace("\r", "");
    Matcher m = Pattern.compile("DONE-42:(.*)").matcher(out);
    String last = null;
    while (m.find()) {
      last = m.group(1).strip();
    }
    assertThat(last).as("the line after TAB in %s, in:%n%s", shell, out).isNotNull();
    return last;
  }

  private static String run(ProcessBuilder pb) throws Exception {
    pb.environment().put("PATH", home.resolve("bin") + ":" + System.getenv("PATH"));
    pb.environment().put("HOME", home.toString());
    pb.environment().put("XDG_CONFIG_HOME", home.resolve("config").toString());
    pb.environment().put("XDG_STATE_HOME", home.resolve("state").toString());
    pb.environment().keySet().removeIf(k -> k.startsWith("BREAKERCTL_"));
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("completion hung: " + pb.command());
    }
    return out;
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }
}
