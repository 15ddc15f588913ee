package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings resolve flag > BREAKERCTL_* > config context > default. */
@DisplayName("settings resolution")
class SettingsTest {
  @TempDir Path dir;

  private Environment env(Map<String, String> vars) {
    Map<String, String> m = new HashMap<>(vars);
    m.put("XDG_CONFIG_HOME", dir.toString());
    return new Environment(
        m, false, Clock.systemUTC(), new BufferedReader(new StringReader("")), "t");
  }

  private static Settings.Flags flags(String context, String redis) {
    return new Settings.Flags(context, redis, null, null, null, null, null, null);
  }

  private void writeConfig() throws Exception {
    ConfigFile f = new ConfigFile();
    ConfigFile.Context prod = new ConfigFile.Context();
    prod.name = "prod";
    prod.redis = "redis://prod:6379";
    prod.prefix = "cbprod";
    prod.timeout = "3s";
    Files.writeString(dir.resolve("pw"), "s3cret\n");
    prod.redisPasswordFile = dir.resolve("pw").toString();
    ConfigFile.Context lab = new ConfigFile.Context();
    lab.name = "lab";
    lab.redis = "redis://lab:6379";
    f.contexts.add(prod);
    f.contexts.add(lab);
    f.currentContext = "prod";
    f.save(dir.resolve("breakerctl/config.yaml"));
  }

  @Test
  void defaultsWithoutConfig() {
    Settings s = Settings.resolve(flags(null, null), env(Map.of()));
    assertThat(s.redis()).isEqualTo("redis://127.0.0.1:6379");
    assertThat(s.mongo()).isEqualTo("mongodb://127.0.0.1:27017");
    assertThat(s.prefix()).isEqualTo("cb");
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.context()).isNull();
  }

  @Test
  @DisplayName("a target variable set but empty is a usage error, never localhost; a flag wins")
  void emptyTargetVariables() {
    for (String v : new String[] {"BREAKERCTL_REDIS", "BREAKERCTL_MONGO"}) {
      assertThatThrownBy(() -> Settings.resolve(flags(null, null), env(Map.of(v, ""))))
          .as(v)
          .isInstanceOf(CliException.class)
          .hasMessageContaining(v + " is set but empty");
    }
    Settings flagged =
        Settings.resolve(flags(null, "redis://flag:1"), env(Map.of("BREAKERCTL_REDIS", "")));
    assertThat(flagged.redis()).isEqualTo("redis://flag:1");
  }

  @Test
  @DisplayName("a timeout from the environment is bounded like the flag, a usage error naming it")
  void timeoutFromTheEnvironmentIsBounded() {
    assertThatThrownBy(
            () ->
                Settings.resolve(flags(null, null), env(Map.of("BREAKERCTL_TIMEOUT", "99999999d"))))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("BREAKERCTL_TIMEOUT")
        .hasMessageContaining("too long (at most 3650d)");
  }

  @Test
  void contextThenEnvironmentThenFlag() throws Exception {
    writeConfig();
    Settings ctx = Settings.resolve(flags(null, null), env(Map.of()));
    assertThat(ctx.context()).isEqualTo("prod");
    assertThat(ctx.redis()).isEqualTo("redis://prod:6379");
    assertThat(ctx.prefix()).isEqualTo("cbprod");
    assertThat(ctx.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(ctx.redisPassword()).isEqualTo("s3cret");
    assertThat(ctx.toString()).doesNotContain("s3cret");

    Settings envCtx = Settings.resolve(flags(null, null), env(Map.of("BREAKERCTL_CONTEXT", "lab")));
    assertThat(envCtx.redis()).isEqualTo("redis://lab:6379");

    Settings envRedis =
        Settings.resolve(
            flags(null, null),
            env(Map.of("BREAKERCTL_REDIS", "redis://env:1", "BREAKERCTL_REDIS_PASSWORD", "e")));
    assertThat(envRedis.redis()).isEqualTo("redis://env:1");
    assertThat(envRedis.redisPassword()).isEqualTo("e");

    Settings flag =
        Settings.resolve(
            flags("lab", "redis://flag:2"), env(Map.of("BREAKERCTL_REDIS", "redis://env:1")));
    assertThat(flag.redis()).isEqualTo("redis://flag:2");
    assertThat(flag.context()).isEqualTo("lab");
  }

  @Test
  void unknownContextIsAUsageError() {
    assertThatThrownBy(() -> Settings.resolve(flags("nope", null), env(Map.of())))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("'nope'");
  }

  @Test
  void configPathFromBreakerctlConfig() {
    Path p = Settings.configPath(env(Map.of("BREAKERCTL_CONFIG", "/tmp/x.yaml")));
    assertThat(p).isEqualTo(Path.of("/tmp/x.yaml"));
  }

  @Test
  @DisplayName("a Redis user without a password is exit 4; an empty password is one")
  void userNeedsAPassword() {
    Settings.Flags viewer = new Settings.Flags(null, null, null, null, null, "viewer", null, null);
    Settings none = Settings.resolve(viewer, env(Map.of()));
    assertThatThrownBy(none::requireRedisIdentity)
        .isInstanceOf(CliException.class)
        .hasMessageContaining("'viewer'")
        .matches(e -> ((CliException) e).exitCode() == ExitCode.PERMISSION);
    Settings empty = Settings.resolve(viewer, env(Map.of("BREAKERCTL_REDIS_PASSWORD", "")));
    assertThat(empty.redisPassword()).isEmpty();
    empty.requireRedisIdentity();
    Settings inUri =
        Settings.resolve(
            new Settings.Flags(
                null, "redis://viewer:pw@h:1", null, null, null, "viewer", null, null),
            env(Map.of()));
    inUri.requireRedisIdentity();
    assertThat(inUri.toString()).doesNotContain("pw@").contains("viewer:***@");
  }

  @Test
  @DisplayName("empty flags and bad URIs from flags or environment: usage errors")
  void emptyAndBadValues() {
    assertThatThrownBy(() -> flags(null, "")).hasMessageContaining("--redis must not be empty");
    assertThatThrownBy(() -> flags("", null)).hasMessageContaining("--context must not be empty");
    assertThatThrownBy(() -> flags(null, "redis://h:70000")).hasMessageContaining("1 to 65535");
    assertThatThrownBy(() -> flags(null, "h:6379")).hasMessageContaining("is not a Redis URI");
    assertThatThrownBy(
            () -> Settings.resolve(flags(null, null), env(Map.of("BREAKERCTL_REDIS", "x://h"))))
        .hasMessageContaining("BREAKERCTL_REDIS")
        .hasMessageContaining("unsupported scheme");
    flags(null, "rediss://h:6380,redis://[::1]:7000,redis://u:p@h");
    flags(null, "redis-sentinel://a:26379,b:26379?sentinelMasterId=m");
    assertThatThrownBy(() -> flags(null, "redis-sentinel://a:26379"))
        .hasMessageContaining("sentinelMasterId");
  }

  @Test
  @DisplayName("the config file is checked on load, naming the line")
  void configChecked() throws Exception {
    Path file = dir.resolve("breakerctl/config.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(
        file,
        "apiVersion: breakerctl/v1\nkind: Config\ncontexts:\n- name: a\n  prefix: 'bad prefix'\n");
    assertThatThrownBy(() -> ConfigFile.load(file))
        .hasMessageContaining(file + " line 5")
        .hasMessageContaining("prefix");
    Files.writeString(file, "apiVersion: breakerctl/v1\nkind: Policy\n");
    assertThatThrownBy(() -> ConfigFile.load(file))
        .hasMessageContaining("line 2")
        .hasMessageContaining("kind must be Config");
    Files.writeString(
        file, "apiVersion: breakerctl/v1\nkind: Config\ncontexts:\n- redis: redis://h:1\n");
    assertThatThrownBy(() -> ConfigFile.load(file))
        .hasMessageContaining("line 4")
        .hasMessageContaining("context name");
  }

  @Test
  @DisplayName("a value of the wrong shape names its key and the shape, never a Java type")
  void wrongShapes() throws Exception {
    Path file = dir.resolve("breakerctl/config.yaml");
    Files.createDirectories(file.getParent());
    String head = "apiVersion: breakerctl/v1\nkind: Config\n";
    String[][] cases = {
      {"contexts: {}\n", "line 3: contexts must be a list"},
      {"contexts: 5\n", "line 3: contexts must be a list"},
      {"contexts:\n- name: a\n  timeout: [1]\n", "line 5: contexts[0].timeout must be a string"},
    };
    for (String[] c : cases) {
      Files.writeString(file, head + c[0]);
      assertThatThrownBy(() -> ConfigFile.load(file))
          .as(c[0])
          .isInstanceOf(CliException.class)
          .hasMessageEndingWith(c[1])
          .hasMessageNotContaining("java.")
          .hasMessageNotContaining("JsonToken");
    }
  }

  @Test
  @DisplayName("minReplicas: environment over context over 0; a bad value names where it came from")
  void minReplicas() throws Exception {
    assertThat(Settings.resolve(flags(null, null), env(Map.of())).minReplicas()).isZero();
    Files.createDirectories(dir.resolve("breakerctl"));
    Files.writeString(
        dir.resolve("breakerctl/config.yaml"),
        "apiVersion: breakerctl/v1\nkind: Config\ncurrent-context: prod\ncontexts:\n"
            + "- name: prod\n  minReplicas: 2\n");
    assertThat(Settings.resolve(flags(null, null), env(Map.of())).minReplicas()).isEqualTo(2);
    assertThat(
            Settings.resolve(flags(null, null), env(Map.of("BREAKERCTL_MIN_REPLICAS", "1")))
                .minReplicas())
        .isEqualTo(1);
    assertThatThrownBy(
            () -> Settings.resolve(flags(null, null), env(Map.of("BREAKERCTL_MIN_REPLICAS", "-1"))))
        .isInstanceOf(CliException.class)
        .hasMessageContaining(
            "BREAKERCTL_MIN_REPLICAS must be a whole number from 0 to 100 but was '-1'");
    Files.writeString(
        dir.resolve("breakerctl/config.yaml"),
        "- name: bad\n  minReplicas: many\n",
        java.nio.file.StandardOpenOption.APPEND);
    assertThatThrownBy(() -> Settings.resolve(flags(null, null), env(Map.of())))
        .isInstanceOf(CliException.class)
        .hasMessageContaining(
            "line 8: context 'bad' minReplicas must be a whole number from 0 to 100 but was"
                + " 'many'");
  }
}
