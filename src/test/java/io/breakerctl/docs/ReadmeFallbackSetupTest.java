package io.breakerctl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docs' complete fallback setup (the Java block after {@code <!-- fallback-setup -->}) compiles
 * against the library as it is: a renamed method or a changed signature breaks this test, not a
 * reader's build.
 */
@DisplayName("The docs' fallback setup compiles")
class ReadmeFallbackSetupTest {

  static final String MARKER = "<!-- fallback-setup -->";

  static String snippet() throws IOException {
    String readme = Files.readString(Path.of("src/docs/getting-started.md"));
    int at = readme.indexOf(MARKER);
    assertThat(at)
        .as("src/docs/getting-started.md marks its fallback setup with " + MARKER)
        .isNotNegative();
    int open = readme.indexOf("```java\n", at);
    int close = readme.indexOf("\n```", open + 8);
    return readme.substring(open + 8, close + 1);
  }

  @Test
  @DisplayName("the block compiles, given a Redis URI, a MongoDB URI and a member client")
  void compiles(@TempDir Path out) throws IOException {
    String source =
        "package readme;\n"
            + "import io.breakerctl.runtime.*;\n"
            + "import io.breakerctl.runtime.control.*;\n"
            + "import io.breakerctl.runtime.control.fallback.*;\n"
            + "import io.breakerctl.runtime.fallback.*;\n"
            + "import io.breakerctl.runtime.model.*;\n"
            + "import java.time.*;\n"
            + "class Setup {\n"
            + "  interface MemberClient { String update(byte[] payload, String idempotencyKey); }\n"
            + "  static Fallbacks<String> setup(String redisUri, String mongoUri,"
            + " MemberClient memberClient) {\n"
            + snippet()
            + "    return fallbacks;\n"
            + "  }\n"
            + "}\n";
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> problems = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(problems, Locale.ROOT, null)) {
      JavaFileObject unit =
          new SimpleJavaFileObject(
              URI.create("string:///readme/Setup.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return source;
            }
          };
      List<String> options =
          new ArrayList<>(
              List.of(
                  "-classpath",
                  System.getProperty("java.class.path"),
                  "-d",
                  out.toString(),
                  "-proc:none"));
      boolean ok = javac.getTask(null, files, problems, options, null, List.of(unit)).call();
      StringBuilder why = new StringBuilder();
      for (Diagnostic<? extends JavaFileObject> d : problems.getDiagnostics()) {
        why.append(d.getLineNumber()).append(": ").append(d.getMessage(Locale.ROOT)).append('\n');
      }
      assertThat(ok).as("getting-started fallback setup:\n" + source + "\n" + why).isTrue();
    }
  }
}
