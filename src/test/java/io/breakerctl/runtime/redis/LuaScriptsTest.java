package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Static checks on the Lua scripts: no Redis server, only their text. */
@DisplayName("Lua scripts")
class LuaScriptsTest {

  private static final String PRELUDE = "prelude.lua";

  /** The prelude at the script's {@code --@prelude} line, or first followed by a newline. */
  private static String expectedBody(BreakerScript script) {
    String own = resource(script.file());
    String prelude = resource(PRELUDE);
    String[] parts = own.split("\n--@prelude\n", -1);
    assertThat(parts.length).as("%s has at most one --@prelude line", script.file()).isLessThan(3);
    return parts.length == 1 ? prelude + "\n" + own : parts[0] + "\n" + prelude + "\n" + parts[1];
  }

  /** A redis.call / redis.pcall with a literal command and its (raw) second argument. */
  private static final Pattern CALL =
      Pattern.compile("redis\\.p?call\\(\\s*(['\"])([A-Za-z_]+)\\1\\s*(?:,\\s*([^,)]+))?");

  /** Commands the scripts may use: all exist in Redis 6.2 with the forms used. */
  static final Set<String> REDIS_62_COMMANDS =
      Set.of(
          "TIME",
          "GET",
          "SET",
          "HGETALL",
          "HMGET",
          "HSET",
          "HDEL",
          "DEL",
          "PERSIST",
          "PEXPIRE",
          "PUBLISH",
          "XADD",
          "XLEN",
          "XRANGE",
          "XREVRANGE",
          "XTRIM",
          "ZADD",
          "ZRANGEBYSCORE",
          "ZCARD",
          "ZRANGE",
          "ZREM",
          "ZREMRANGEBYSCORE",
          "ZSCORE");

  private static String resource(String name) {
    return BreakerScript.source(name);
  }

  static Stream<String> files() {
    return Stream.concat(
        Stream.of(PRELUDE), Arrays.stream(BreakerScript.values()).map(BreakerScript::file));
  }

  /**
   * The Lua code without comments (line comments and {@code --[[ ]]} blocks), string literals kept,
   * so a word in a comment ("math.random is not random on 6.2") does not count as a use.
   */
  static String code(String lua) {
    StringBuilder out = new StringBuilder(lua.length());
    int i = 0;
    while (i < lua.length()) {
      char c = lua.charAt(i);
      if (c == '\'' || c == '"') {
        int j = i + 1;
        while (j < lua.length() && lua.charAt(j) != c && lua.charAt(j) != '\n') {
          j += lua.charAt(j) == '\\' ? 2 : 1;
        }
        j = Math.min(j + 1, lua.length());
        out.append(lua, i, j);
        i = j;
      } else if (lua.startsWith("--[[", i)) {
        int end = lua.indexOf("]]", i + 4);
        i = end < 0 ? lua.length() : end + 2;
      } else if (lua.startsWith("--", i)) {
        int end = lua.indexOf('\n', i);
        i = end < 0 ? lua.length() : end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static String sha1Hex(String text) throws NoSuchAlgorithmException {
    byte[] digest =
        MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
    StringBuilder hex = new StringBuilder();
    for (byte b : digest) {
      hex.append(String.format(Locale.ROOT, "%02x", b & 0xff));
    }
    return hex.toString();
  }

  @Nested
  @DisplayName("the comment stripper used by these checks")
  class Stripper {

    @Test
    @DisplayName("drops comments, keeps code and strings that contain dashes")
    void strips() {
      String lua =
          "local a = 1 -- math.random here\n"
              + "--[[ os.time() ]] local b = '--not a comment'\n"
              + "redis.call('ZREMRANGEBYSCORE', LEASES, '-inf', NOW)\n";

      String code = code(lua);

      assertThat(code).doesNotContain("math.random").doesNotContain("os.time");
      assertThat(code).contains("local a = 1").contains("'--not a comment'").contains("'-inf'");
    }
  }

  @Nested
  @DisplayName("bodies and SHAs")
  class Bodies {

    @ParameterizedTest
    @EnumSource(BreakerScript.class)
    @DisplayName("the body is the script with prelude.lua at its --@prelude line, else first")
    void bodyIsPreludePlusFile(BreakerScript script) {
      String body = script.body();

      assertThat(body).isEqualTo(expectedBody(script));
      assertThat(body).contains("-- " + script.file() + ":");
    }

    @ParameterizedTest
    @EnumSource(BreakerScript.class)
    @DisplayName("sha() is the lowercase hex SHA-1 of the body")
    void shaOfBody(BreakerScript script) throws NoSuchAlgorithmException {
      String expected = sha1Hex(expectedBody(script));

      assertThat(script.sha()).isEqualTo(expected).matches("[0-9a-f]{40}");
    }

    @Test
    @DisplayName("every script has its own file and SHA")
    void distinct() {
      assertThat(BreakerScript.values())
          .extracting(BreakerScript::file)
          .doesNotHaveDuplicates()
          .doesNotContain(PRELUDE);
      assertThat(BreakerScript.values()).extracting(BreakerScript::sha).doesNotHaveDuplicates();
    }
  }

  @Nested
  @DisplayName("portability and determinism")
  class Portability {

    @ParameterizedTest
    @EnumSource(BreakerScript.class)
    @DisplayName("no Redis-7-only command, no random, no client-side clock")
    void forbiddenWords(BreakerScript script) {
      String code = code(script.body());

      for (String word :
          List.of(
              "EVAL_RO",
              "EVALSHA_RO",
              "SPUBLISH",
              "ADDSLOTSRANGE",
              "FCALL",
              "SINTERCARD",
              "LMPOP",
              "ZMPOP",
              "EXPIRETIME",
              "math.random",
              "math.randomseed",
              "os.time",
              "os.clock",
              "os.date")) {
        assertThat(code.toLowerCase(Locale.ROOT))
            .as("%s uses %s", script.file(), word)
            .doesNotContain(word.toLowerCase(Locale.ROOT));
      }
    }

    @ParameterizedTest
    @EnumSource(BreakerScript.class)
    @DisplayName("no EXPIRE family call with the Redis 7 NX/XX/GT/LT options")
    void noExpireOptions(BreakerScript script) {
      Pattern expireWithOption =
          Pattern.compile(
              "redis\\.p?call\\(\\s*['\"]P?EXPIRE(AT)?['\"][^)]*['\"](NX|XX|GT|LT)['\"]",
              Pattern.CASE_INSENSITIVE);

      assertThat(expireWithOption.matcher(code(script.body())).find())
          .as("%s passes an option to EXPIRE", script.file())
          .isFalse();
    }

    @ParameterizedTest
    @EnumSource(BreakerScript.class)
    @DisplayName("every command is one Redis 6.2 has")
    void knownCommands(BreakerScript script) {
      List<String> commands = new ArrayList<>();
      Matcher m = CALL.matcher(code(script.body()));
      while (m.find()) {
        commands.add(m.group(2).toUpperCase(Locale.ROOT));
      }

      assertThat(commands).isNotEmpty();
      assertThat(REDIS_62_COMMANDS).as("commands of %s", script.file()).containsAll(commands);
    }

    @Test
    @DisplayName(
        "time comes from redis.call('TIME'): the prelude's clock(), or once in a fast path ahead"
            + " of the prelude")
    void timeOnlyFromRedis() {
      String prelude = code(resource(PRELUDE));

      assertThat(prelude).containsOnlyOnce("redis.call('TIME')");
      assertThat(prelude)
          .containsPattern(
              "local function clock\\(\\)\\s*\\n\\s*local t = redis\\.call\\('TIME'\\)");
      for (BreakerScript script : BreakerScript.values()) {
        String own = resource(script.file());
        int marker = own.indexOf(BreakerScript.PRELUDE_MARKER);
        String fast = marker < 0 ? "" : code(own.substring(0, marker));
        String full = code(marker < 0 ? own : own.substring(marker));
        assertThat(full)
            .as("%s reads TIME outside clock()", script.file())
            .doesNotContain("'TIME'");
        if (fast.contains("'TIME'")) {
          assertThat(fast).as("%s's fast path", script.file()).containsOnlyOnce("'TIME'");
          assertThat(fast)
              .as("%s's fast path derives now from TIME", script.file())
              .contains("local t = redis.call('TIME')")
              .contains("local now = t[1] * 1000 + math.floor(t[2] / 1000)");
        }
        if (script != BreakerScript.FORWARDER_LEASE) {
          // the lease needs no time of its own: SET ... PX expires it at Redis time
          assertThat(full).as("%s never calls clock()", script.file()).contains("clock()");
        }
      }
    }
  }

  @Nested
  @DisplayName("keys")
  class Keys {

    @Test
    @DisplayName("H, EV, LEASES, NODES, NODEINFO and UNFWD are KEYS[1..6] and never reassigned")
    void keyNamesBoundToKeys() {
      String prelude = code(resource(PRELUDE));

      String binding = "local H, EV, LEASES = KEYS[1], KEYS[2], KEYS[3]";
      String nodes = "local NODES, NODEINFO, UNFWD = KEYS[4], KEYS[5], KEYS[6]";
      assertThat(prelude).containsOnlyOnce(binding).containsOnlyOnce(nodes);
      for (BreakerScript script : BreakerScript.values()) {
        String rest = code(script.body()).replace(binding, "").replace(nodes, "");
        Matcher assign =
            Pattern.compile("(?<![\\w.])(H|EV|LEASES|NODES|NODEINFO|UNFWD|KEYS)\\s*=(?!=)")
                .matcher(rest);
        List<String> assignments = new ArrayList<>();
        while (assign.find()) {
          assignments.add(assign.group());
        }
        assertThat(assignments).as("assignments in %s", script.file()).isEmpty();
      }
    }

    @ParameterizedTest
    @EnumSource(BreakerScript.class)
    @DisplayName("no redis.call takes a string literal as its second argument")
    void noLiteralKeys(BreakerScript script) {
      Matcher m = CALL.matcher(code(script.body()));
      while (m.find()) {
        String arg = m.group(3);
        assertThat(arg == null ? "" : arg.strip())
            .as("second argument of %s in %s", m.group(), script.file())
            .doesNotStartWith("'")
            .doesNotStartWith("\"")
            .doesNotStartWith("[[");
      }
    }

    @ParameterizedTest
    @EnumSource(BreakerScript.class)
    @DisplayName("every keyed call names H, EV, LEASES or a key iterated from KEYS")
    void keysOnlyFromKeys(BreakerScript script) {
      String code = code(script.body());
      Matcher m = CALL.matcher(code);
      while (m.find()) {
        String command = m.group(2).toUpperCase(Locale.ROOT);
        if (command.equals("TIME") || command.equals("PUBLISH")) {
          continue;
        }
        String key = m.group(3) == null ? "" : m.group(3).strip();
        if (key.equals("k") || key.equals("KEYS[i]")) {
          int lineStart = code.lastIndexOf('\n', m.start()) + 1;
          assertThat(code.substring(lineStart, m.start()))
              .as("%s in %s iterates KEYS", m.group(), script.file())
              .containsAnyOf("in ipairs(KEYS)", "for i = 1, math.min(#KEYS, 5) do");
        } else {
          assertThat(key)
              .as("key of %s in %s", m.group(), script.file())
              .matches("H|EV|LEASES|NODES|NODEINFO|UNFWD|KEYS\\[[1-6]\\]");
        }
      }
    }
  }

  @Nested
  @DisplayName("files")
  class Files {

    @ParameterizedTest
    @MethodSource("io.breakerctl.runtime.redis.LuaScriptsTest#files")
    @DisplayName("every file starts with its '-- <name>.lua:' header")
    void header(String file) {
      assertThat(resource(file)).startsWith("-- " + file + ":");
    }
  }
}
