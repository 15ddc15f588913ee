package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The CLI reads and writes through the runtime: no CLI source imports Lettuce or the key layout, or
 * reaches for a store's connection; no runtime source imports the CLI.
 */
@DisplayName("layering: the CLI goes through the runtime")
class LayeringTest {
  private static final Path MAIN = Path.of("src/main/java/io/breakerctl");

  private static List<String> offending(Path dir, List<String> forbidden) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String src = Files.readString(f);
        for (String bad : forbidden) {
          if (src.contains(bad)) {
            out.add(MAIN.relativize(f) + ": " + bad);
          }
        }
      }
    }
    return out;
  }

  @Test
  void theCliTouchesNoRedisConnectionOrKeyName() throws IOException {
    assertThat(offending(MAIN.resolve("cli"), FORBIDDEN)).isEmpty();
    assertThat(offending(MAIN.resolve("console"), FORBIDDEN)).isEmpty();
  }

  private static final List<String> FORBIDDEN =
      List.of(
          "import io.lettuce",
          "BreakerKeys",
          ".keys()",
          ".connection()",
          "redis.eval",
          "MongoClients");

  @Test
  void theRuntimeNeverImportsTheCli() throws IOException {
    assertThat(offending(MAIN.resolve("runtime"), List.of("import io.breakerctl.cli"))).isEmpty();
  }
}
