package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * breakerctl as a user meets it with credentials, URIs, config files and setup problems: a Redis
 * with ACL users (default without a password and allowed everything, as on a fresh server), MongoDB
 * nowhere (every command here reads Redis only, or fails before connecting). Most runs are the
 * command line in-process ({@link CliProcess#inProcess}: the environment a process gets); the
 * packaged jar runs as a process where its own part shows: exit 4, 6 and 2 through {@code Main} (a
 * user without a password, Redis down, a socket URI) and the completion scripts it carries.
 */
@DisplayName("breakerctl usage contract (in-process, and the packaged jar)")
class CliUsageIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "s3cret-pw";

  static RedisServerProcess redis;
  static CliProcess cli;
  static int closedPort;
  @TempDir static Path home;

  @BeforeAll
  static void start() throws Exception {
    redis =
        RedisServerProcess.builder(RedisBinary.embedded())
            .config(
                "user viewer on >"
                    + SECRET
                    + " ~* &* -@all +@read +@connection +time +info\n"
                    + "user blank on > ~* &* -@all +@read +@connection +time +info\n")
            .start();
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    cli =
        new CliProcess(home)
            .env("BREAKERCTL_REDIS", redis.uri())
            .env("BREAKERCTL_MONGO", "mongodb://127.0.0.1:" + closedPort)
            .env("BREAKERCTL_TIMEOUT", "2s");
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
  }

  private static boolean exists(String key) {
    return ((Long) redis.call("EXISTS", key)) == 1L;
  }

  @Nested
  @DisplayName("a Redis user is never replaced by default")
  class Identity {
    @Test
    @DisplayName("--redis-user without a password: exit 4 naming the user, nothing written")
    void userWithoutPassword() {
      CliProcess.Result force =
          cli.run("force", "open", "who:am-i", "--reason", "x", "--yes", "--redis-user", "viewer");
      assertThat(force.code()).as(force.toString()).isEqualTo(4);
      assertThat(force.err()).contains("'viewer'").contains("BREAKERCTL_REDIS_PASSWORD");
      assertThat(exists("cb:{who:am-i}")).isFalse();

      CliProcess.Result env = cli.inProcess(Map.of("BREAKERCTL_REDIS_USER", "viewer"), "status");
      assertThat(env.code()).as(env.toString()).isEqualTo(4);
      assertThat(env.err()).contains("'viewer'");
      assertThat(env.out()).isEmpty();
    }

    @Test
    @DisplayName("an empty BREAKERCTL_REDIS_PASSWORD is a password: acts as that user")
    void emptyPasswordIsAPassword() {
      Map<String, String> blank = Map.of("BREAKERCTL_REDIS_PASSWORD", "");
      CliProcess.Result status = cli.inProcess(blank, "status", "--redis-user", "blank");
      assertThat(status.code()).as(status.toString()).isZero();
      // a read-only user: the write is refused, so it did not run as default
      CliProcess.Result force =
          cli.inProcess(
              blank,
              "force",
              "open",
              "who:blank",
              "--reason",
              "x",
              "--yes",
              "--redis-user",
              "blank");
      assertThat(force.code()).as(force.toString()).isEqualTo(4);
      assertThat(force.err()).contains("NOPERM");
      assertThat(exists("cb:{who:blank}")).isFalse();
    }

    @Test
    @DisplayName("a wrong password: 4, 'authentication failed', not 'Unable to connect'")
    void wrongPassword() {
      CliProcess.Result r =
          cli.inProcess(
              Map.of("BREAKERCTL_REDIS_PASSWORD", "wrong"), "status", "--redis-user", "viewer");
      assertThat(r.code()).as(r.toString()).isEqualTo(4);
      assertThat(r.err()).contains("authentication failed").doesNotContain("Unable to connect");
    }
  }

  @Nested
  @DisplayName("passwords never shown, never stored")
  class Secrets {
    @Test
    @DisplayName("connect and not-found errors, doctor, get-contexts: the password is ***")
    void redacted() throws Exception {
      String withPassword = "redis://viewer:" + SECRET + "@127.0.0.1:" + redis.port();
      CliProcess.Result notFound =
          cli.inProcess("describe", "no:such", "--redis", withPassword, "--redis-user", "viewer");
      assertThat(notFound.code()).as(notFound.toString()).isEqualTo(7);
      assertThat(notFound.err()).contains("viewer:***@").doesNotContain(SECRET);

      CliProcess.Result down =
          cli.run("status", "--redis", "redis://viewer:" + SECRET + "@127.0.0.1:" + closedPort);
      assertThat(down.code()).as(down.toString()).isEqualTo(6);
      assertThat(down.err()).doesNotContain(SECRET).doesNotContain("<unresolved>");

      CliProcess.Result doctor = cli.inProcess("doctor", "--redis", withPassword);
      assertThat(doctor.out() + doctor.err()).doesNotContain(SECRET).contains("viewer:***@");
      assertThat(doctor.out()).doesNotContain("Client view of cluster state");

      Path config = home.resolve("legacy.yaml");
      Files.writeString(
          config,
          "apiVersion: breakerctl/v1\nkind: Config\ncontexts:\n- name: old\n  redis: "
              + withPassword
              + "\n");
      Map<String, String> legacy = Map.of("BREAKERCTL_CONFIG", config.toString());
      CliProcess.Result contexts = cli.inProcess(legacy, "config", "get-contexts");
      assertThat(contexts.code()).as(contexts.toString()).isZero();
      assertThat(contexts.out()).contains("viewer:***@").doesNotContain(SECRET);
      assertThat(cli.inProcess(legacy, "config", "view").out()).doesNotContain(SECRET);
      CliProcess.Result json = cli.inProcess(legacy, "-o", "json", "config", "get-contexts");
      assertThat(json.code()).as(json.toString()).isZero();
      assertThat(JSON.readTree(json.out()).path("items").get(0).path("redis").asText())
          .isEqualTo("redis://viewer:***@127.0.0.1:" + redis.port());
      // showing hides the password; changing the file keeps it as it was
      assertThat(cli.inProcess(legacy, "config", "use-context", "old").code()).isZero();
      assertThat(Files.readString(config)).contains(withPassword);
    }

    @Test
    @DisplayName("set-context refuses a URI with a password and points to the file and variable")
    void setContextRefusesSecrets() throws Exception {
      Path config = home.resolve("secrets.yaml");
      Map<String, String> env = Map.of("BREAKERCTL_CONFIG", config.toString());
      CliProcess.Result r =
          cli.inProcess(
              env, "config", "set-context", "prod", "--redis", "redis://u:" + SECRET + "@h:1");
      assertThat(r.code()).as(r.toString()).isEqualTo(2);
      assertThat(r.err())
          .doesNotContain(SECRET)
          .contains("--redis-password-file")
          .contains("BREAKERCTL_REDIS_PASSWORD");
      assertThat(config).doesNotExist();
    }
  }

  @Nested
  @DisplayName("the config file is checked, naming file and line")
  class Config {
    @Test
    @DisplayName("bad URI, missing password file on set-context: 2, nothing saved")
    void setContextValidates() {
      Path config = home.resolve("set.yaml");
      Map<String, String> env = Map.of("BREAKERCTL_CONFIG", config.toString());
      CliProcess.Result port =
          cli.inProcess(env, "config", "set-context", "a", "--redis", "redis://h:abc");
      assertThat(port.code()).as(port.toString()).isEqualTo(2);
      assertThat(port.err()).contains("port 'abc'");
      CliProcess.Result file =
          cli.inProcess(
              env, "config", "set-context", "a", "--redis-password-file", "/nonexistent/pw");
      assertThat(file.code()).as(file.toString()).isEqualTo(2);
      assertThat(file.err()).contains("/nonexistent/pw").contains("does not exist");
      CliProcess.Result prefix =
          cli.inProcess(env, "config", "set-context", "a", "--prefix", "bad prefix!");
      assertThat(prefix.code()).as(prefix.toString()).isEqualTo(2);
      assertThat(prefix.err()).contains("--prefix").contains("'bad prefix!'");
      CliProcess.Result timeout =
          cli.inProcess(env, "config", "set-context", "a", "--timeout", "0");
      assertThat(timeout.code()).as(timeout.toString()).isEqualTo(2);
      assertThat(timeout.err()).contains("--timeout must be > 0");
      CliProcess.Result forever =
          cli.inProcess(env, "config", "set-context", "a", "--timeout", "99999999d");
      assertThat(forever.code()).as(forever.toString()).isEqualTo(2);
      assertThat(forever.err()).contains("too long");
      assertThat(config).doesNotExist();
    }

    @Test
    @DisplayName("config view: -o json and yaml are versioned documents, the plain form the file")
    void viewFormats() throws Exception {
      Path config = home.resolve("view.yaml");
      Map<String, String> env = Map.of("BREAKERCTL_CONFIG", config.toString());
      assertThat(
              cli.inProcess(env, "config", "set-context", "lab", "--redis", "redis://h:1").code())
          .isZero();
      CliProcess.Result json = cli.inProcess(env, "-o", "json", "config", "view");
      assertThat(json.code()).as(json.toString()).isZero();
      JsonNode doc = JSON.readTree(json.out());
      assertThat(doc.path("apiVersion").asText()).isEqualTo("breakerctl/v1");
      assertThat(doc.path("kind").asText()).isEqualTo("Config");
      assertThat(doc.path("contexts").get(0).path("redis").asText()).isEqualTo("redis://h:1");
      CliProcess.Result resolved = cli.inProcess(env, "-o", "json", "config", "view", "--resolved");
      JsonNode r = JSON.readTree(resolved.out());
      assertThat(r.path("kind").asText()).as(resolved.toString()).isEqualTo("ResolvedConfig");
      assertThat(r.path("context").asText()).isEqualTo("lab");
      assertThat(r.path("redis").asText()).startsWith("redis://");
      assertThat(cli.inProcess(env, "-o", "yaml", "config", "view").out())
          .startsWith("apiVersion: breakerctl/v1\nkind: Config\n");
      assertThat(cli.inProcess(env, "-o", "name", "config", "view").out()).isEqualTo("lab\n");
      assertThat(cli.inProcess(env, "config", "view").out()).contains("name: lab");
    }

    @Test
    @DisplayName("wrong apiVersion, duplicate contexts, bad URI in the file: 2 with file:line")
    void loadValidates() throws Exception {
      Path config = home.resolve("bad.yaml");
      Map<String, String> env = Map.of("BREAKERCTL_CONFIG", config.toString());
      Files.writeString(config, "apiVersion: breakerctl/v9\nkind: Config\n");
      CliProcess.Result api = cli.inProcess(env, "status");
      assertThat(api.code()).as(api.toString()).isEqualTo(2);
      assertThat(api.err()).contains(config + " line 1").contains("apiVersion");

      Files.writeString(
          config,
          "apiVersion: breakerctl/v1\nkind: Config\ncontexts:\n- name: a\n  redis: redis://h:1\n"
              + "- name: a\n  redis: redis://h:2\n");
      CliProcess.Result twice = cli.inProcess(env, "config", "get-contexts");
      assertThat(twice.code()).as(twice.toString()).isEqualTo(2);
      assertThat(twice.err()).contains(config + " line 6").contains("defined twice");

      Files.writeString(
          config,
          "apiVersion: breakerctl/v1\nkind: Config\ncontexts:\n- name: a\n  timeout: 5s\n"
              + "  redis: redis-socket:///tmp/redis.sock\n");
      CliProcess.Result socket = cli.inProcess(env, "--context", "a", "status");
      assertThat(socket.code()).as(socket.toString()).isEqualTo(2);
      assertThat(socket.err()).contains(config + " line 6").contains("socket");

      Files.writeString(config, "kind: Config\ncontexts:\n- name: a\n  redis: redis://h:1\n");
      CliProcess.Result noApi = cli.inProcess(env, "config", "get-contexts");
      assertThat(noApi.code()).as(noApi.toString()).isEqualTo(2);
      assertThat(noApi.err()).contains(config + " line 1").contains("apiVersion is missing");

      Files.writeString(config, "apiVersion: breakerctl/v1\ncontexts: [\n");
      CliProcess.Result yaml = cli.inProcess(env, "status");
      assertThat(yaml.code()).as(yaml.toString()).isEqualTo(2);
      assertThat(yaml.err()).contains(config + " line ").doesNotContain("com.fasterxml");
    }

    @Test
    @DisplayName("a BREAKERCTL_CONFIG that does not exist: 2, not silently ignored")
    void missingExplicitConfig() {
      Map<String, String> env = Map.of("BREAKERCTL_CONFIG", home.resolve("nope.yaml").toString());
      CliProcess.Result r = cli.inProcess(env, "status");
      assertThat(r.code()).as(r.toString()).isEqualTo(2);
      assertThat(r.err()).contains("nope.yaml").contains("does not exist");
    }
  }

  @Nested
  @DisplayName("user and setup problems are 2, never 9")
  class Setup {
    @Test
    @DisplayName("redis-socket://, port abc, --caller a:b: 2 with the problem named")
    void badUrisAndGlobs() {
      CliProcess.Result socket = cli.run("status", "--redis", "redis-socket:///tmp/redis.sock");
      assertThat(socket.code()).as(socket.toString()).isEqualTo(2);
      assertThat(socket.err()).contains("Unix socket");
      CliProcess.Result port = cli.inProcess("status", "--redis", "redis://127.0.0.1:abc");
      assertThat(port.code()).as(port.toString()).isEqualTo(2);
      assertThat(port.err()).contains("port 'abc'");
      CliProcess.Result caller = cli.inProcess("status", "--caller", "a:b");
      assertThat(caller.code()).as(caller.toString()).isEqualTo(2);
      assertThat(caller.err()).contains("--caller 'a:b'");
      CliProcess.Result empty = cli.inProcess("status", "--redis", "");
      assertThat(empty.code()).as(empty.toString()).isEqualTo(2);
    }

    @Test
    @DisplayName("a key of the wrong type under the prefix: 2 naming the breaker and the type")
    void wrongType() {
      redis.call("SET", "cb:{wrong:type}", "not a hash");
      CliProcess.Result describe = cli.inProcess("describe", "wrong:type");
      assertThat(describe.code()).as(describe.toString()).isEqualTo(2);
      assertThat(describe.err()).contains("wrong:type").contains("WRONGTYPE");
      assertThat(describe.err()).doesNotContain("internal error");
    }

    @Test
    @DisplayName("XDG_STATE_HOME that is a regular file: 2 naming it")
    void stateHomeIsAFile() throws Exception {
      Path file = Files.writeString(home.resolve("state-file"), "");
      CliProcess.Result r =
          cli.inProcess(Map.of("XDG_STATE_HOME", file.toString()), "sandbox", "up");
      assertThat(r.code()).as(r.toString()).isEqualTo(2);
      assertThat(r.err()).contains("XDG_STATE_HOME").contains("not a directory");
    }
  }

  @Nested
  @DisplayName("global -o, completion")
  class Globals {
    @Test
    @DisplayName("breakerctl -o json status is one document")
    void outputBeforeTheCommand() throws Exception {
      CliProcess.Result r = cli.inProcess("-o", "json", "status");
      assertThat(r.code()).as(r.toString()).isZero();
      JsonNode doc = JSON.readTree(r.out());
      assertThat(doc.path("kind").asText()).isEqualTo("BreakerList");
    }

    @Test
    @DisplayName("breakerctl completion bash|zsh prints the committed scripts")
    void completion() throws Exception {
      CliProcess.Result bash = cli.run("completion", "bash");
      assertThat(bash.code()).as(bash.toString()).isZero();
      assertThat(bash.out()).isEqualTo(Files.readString(Path.of("completions/breakerctl.bash")));
      CliProcess.Result zsh = cli.run("completion", "zsh");
      assertThat(zsh.out()).isEqualTo(Files.readString(Path.of("completions/_breakerctl")));
      assertThat(cli.inProcess("completion", "fish").code()).isEqualTo(2);
    }
  }
}
