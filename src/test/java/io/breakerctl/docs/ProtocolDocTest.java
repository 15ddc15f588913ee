package io.breakerctl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.redis.BreakerScript;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The protocol page ({@code src/docs/protocol.md}) and the scripts carry the same schema version,
 * and the page has a section for every script the runtime loads.
 */
@DisplayName("the protocol page and the scripts carry the same schema version")
class ProtocolDocTest {

  static final Path PAGE = Path.of("src/docs/protocol.md");
  static final Path PRELUDE = Path.of("src/main/resources/io/breakerctl/lua/prelude.lua");

  static int version(Path file, String regex) throws IOException {
    Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(Files.readString(file));
    assertThat(m.find()).as(file + " states its schema version (" + regex + ")").isTrue();
    int v = Integer.parseInt(m.group(1));
    assertThat(m.find()).as(file + " states one schema version").isFalse();
    return v;
  }

  @Test
  @DisplayName("prelude.lua's version is the page's, and every script body carries it")
  void sameVersion() throws IOException {
    int page = version(PAGE, "^Schema version: (\\d+)$");
    int scripts = version(PRELUDE, "^-- Protocol schema version: (\\d+)\\b");
    assertThat(scripts).as("prelude.lua vs " + PAGE).isEqualTo(page);
    for (BreakerScript s : BreakerScript.values()) {
      assertThat(s.body())
          .as(s.file() + " carries the prelude's version")
          .contains("-- Protocol schema version: " + scripts + " ");
    }
  }

  @Test
  @DisplayName("every script has its section, with its arguments and answers")
  void everyScriptDocumented() throws IOException {
    String page = Files.readString(PAGE);
    for (BreakerScript s : BreakerScript.values()) {
      int at = page.indexOf("\n### " + s.file() + "\n");
      assertThat(at).as(PAGE + " has a section ### " + s.file()).isNotNegative();
      int end = page.indexOf("\n#", at + 1);
      assertThat(page.substring(at, end < 0 ? page.length() : end))
          .as(s.file() + "'s section names its answer")
          .containsIgnoringCase("answer");
    }
  }
}
