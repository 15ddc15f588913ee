package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.cli.FleetStores.Target;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the CLI asks a store connection of: the settings' target, never its password in print. */
@DisplayName("fleet stores: the target a command connects")
class FleetStoresTest {

  @Test
  @DisplayName("a target from the settings carries every connection setting, bounded as asked")
  void fromSettings() {
    Settings s =
        new Settings(
            "staging",
            "rediss://10.0.0.5:6380",
            "mongodb://10.0.0.6:27017",
            "blue",
            Duration.ofSeconds(2),
            "operator",
            "s3cret",
            Path.of("/etc/ca.pem"),
            Path.of("/home/o/.config/breakerctl/config"),
            true,
            0);
    Target t = Target.of(s);
    assertThat(t)
        .isEqualTo(
            new Target(
                "rediss://10.0.0.5:6380",
                Duration.ofSeconds(2),
                "blue",
                "operator",
                "s3cret",
                Path.of("/etc/ca.pem")));
    assertThat(t.withTimeout(Duration.ofSeconds(1)))
        .isEqualTo(
            new Target(
                "rediss://10.0.0.5:6380",
                Duration.ofSeconds(1),
                "blue",
                "operator",
                "s3cret",
                Path.of("/etc/ca.pem")));
  }

  @Test
  @DisplayName("a bare URI's target has the default prefix and no credentials or CA file")
  void bareUri() {
    assertThat(Target.of("redis://127.0.0.1:7000", Duration.ofSeconds(5)))
        .isEqualTo(
            new Target(
                "redis://127.0.0.1:7000",
                Duration.ofSeconds(5),
                Settings.DEFAULT_PREFIX,
                null,
                null,
                null));
  }

  @Test
  @DisplayName("a target never prints its password")
  void noPasswordInPrint() {
    Target t = new Target("redis://h:6379", Duration.ofSeconds(1), "cb", "alice", "s3cret", null);
    assertThat(t.toString()).doesNotContain("s3cret").contains("alice").contains("redis://h:6379");
    assertThat(t.withTimeout(Duration.ofMillis(500)).toString()).doesNotContain("s3cret");
    Target inUri =
        new Target("redis://bob:hunter2@h:6379", Duration.ofSeconds(1), "cb", null, null, null);
    assertThat(inUri.toString()).doesNotContain("hunter2");
  }
}
