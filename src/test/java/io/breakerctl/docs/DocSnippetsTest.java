package io.breakerctl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
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
 * Every Java block of README.md and src/docs/*.md compiles against the library as it is (the test
 * class path), each as the body of a method of its own. The names the snippets take as given (a
 * member client, a logger, a meter registry, ...) are declared around them by {@link #SCAFFOLD};
 * {@code import} lines at the top of a block are hoisted to the compilation unit. A renamed method
 * or a changed signature breaks this test, not a reader's build.
 */
@DisplayName("every Java block of the docs compiles")
class DocSnippetsTest {

  static final String IMPORTS =
      String.join(
          "\n",
          "import io.breakerctl.runtime.*;",
          "import io.breakerctl.runtime.model.*;",
          "import io.breakerctl.runtime.fallback.*;",
          "import io.breakerctl.runtime.retry.*;",
          "import io.breakerctl.runtime.metrics.*;",
          "import io.breakerctl.runtime.control.ControlConfig;",
          "import io.breakerctl.runtime.control.ControlDatabase;",
          "import io.breakerctl.runtime.control.fallback.*;",
          "import java.io.IOException;",
          "import java.time.*;",
          "import java.util.concurrent.CompletionStage;",
          "import java.util.function.Function;",
          "");

  /** What the snippets take as given: the service's own types and objects. */
  static final String SCAFFOLD =
      String.join(
          "\n",
          "  static final class Member { static final Member ANONYMOUS = new Member();"
              + " static final Member BASIC = new Member(); }",
          "  static final class ValidationException extends RuntimeException {}",
          "  record Reply(boolean degraded) {}",
          "  interface MemberClient { Member get(String id); Member get(String id, String key);"
              + " boolean ping(); Member update(byte[] payload);"
              + " String update(byte[] payload, String key); }",
          "  interface AsyncClient { CompletionStage<Member> get(String id); }",
          "  interface Log { void info(String format, Object... args); }",
          "  MemberClient memberClient; AsyncClient asyncClient; Log log;",
          "  String id; String memberId; String redisUri; String mongoUri;",
          "  BreakerRegistry registry; CircuitBreaker members;",
          "  FallbackSnapshots snapshots; SnapshotCodec<Member> codec;"
              + " DeferredRequests deferredRequests;",
          "  io.micrometer.core.instrument.MeterRegistry meterRegistry;",
          "");

  static String unit(String name, String snippet) {
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    for (String l : snippet.split("\n")) {
      if (l.startsWith("import ") && body.toString().isBlank()) {
        imports.append(l).append('\n');
      } else {
        body.append("    ").append(l).append('\n');
      }
    }
    return "package docs;\n"
        + IMPORTS
        + imports
        + "@SuppressWarnings(\"all\")\nclass "
        + name
        + " {\n"
        + SCAFFOLD
        + "  void snippet() throws Exception {\n"
        + body
        + "  }\n}\n";
  }

  @Test
  @DisplayName("each block, in its own class, with the scaffold's names")
  void everyJavaBlockCompiles(@TempDir Path out) throws IOException {
    List<DocPages.Block> blocks =
        DocPages.allBlocks().stream().filter(b -> b.info().equals("java")).toList();
    assertThat(blocks).as("Java blocks in the docs").hasSizeGreaterThanOrEqualTo(4);
    List<JavaFileObject> units = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      String source = unit("Snippet" + i, blocks.get(i).text());
      sources.add(blocks.get(i).where() + ":\n" + source);
      String name = "Snippet" + i;
      units.add(
          new SimpleJavaFileObject(
              URI.create("string:///docs/" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return source;
            }
          });
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> problems = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(problems, Locale.ROOT, null)) {
      List<String> options =
          List.of(
              "-classpath",
              System.getProperty("java.class.path"),
              "-d",
              out.toString(),
              "-proc:none");
      boolean ok = javac.getTask(null, files, problems, options, null, units).call();
      StringBuilder why = new StringBuilder();
      for (Diagnostic<? extends JavaFileObject> d : problems.getDiagnostics()) {
        if (d.getKind() == Diagnostic.Kind.ERROR) {
          String file = d.getSource() == null ? "?" : d.getSource().getName();
          int n =
              Integer.parseInt(
                  file.replaceAll("\\D", "").isEmpty() ? "0" : file.replaceAll("\\D", ""));
          why.append(blocks.get(n).where())
              .append(" (generated line ")
              .append(d.getLineNumber())
              .append("): ")
              .append(d.getMessage(Locale.ROOT))
              .append('\n');
        }
      }
      assertThat(ok).as(why + "\n" + String.join("\n", sources)).isTrue();
    }
  }
}
