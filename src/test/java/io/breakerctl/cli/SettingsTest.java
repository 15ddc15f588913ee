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
}
