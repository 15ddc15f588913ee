package io.breakerctl.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.breakerctl.runtime.model.OperatorText;
import io.breakerctl.runtime.model.State;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Printable: nothing from Redis, MongoDB or a user acts on the terminal")
class PrintableTest {

  /** One character of every class the rule names, and how a table shows it. */
  static List<String[]> unsafe() {
    return List.of(
        // C0, the ones with a short form first
        new String[] {"\n", "\\n"},
        new String[] {"\r", "\\r"},
        new String[] {"\t", "\\t"},
        new String[] {"\0", "\\x00"},
        new String[] {"\u0007", "\\x07"},
        new String[] {"\b", "\\x08"},
        new String[] {"\u000b", "\\x0b"},
        new String[] {"\f", "\\x0c"},
        new String[] {"\u001b", "\\x1b"},
        new String[] {"\u001f", "\\x1f"},
        // DEL
        new String[] {"\u007f", "\\x7f"},
        // C1: U+009B is a one-character CSI, U+009D an OSC, U+0085 a line break (NEL)
        new String[] {"\u0080", "\\u0080"},
        new String[] {"\u0085", "\\u0085"},
        new String[] {"\u009b", "\\u009b"},
        new String[] {"\u009d", "\\u009d"},
        new String[] {"\u009f", "\\u009f"},
        // line and paragraph separators
        new String[] {"\u2028", "\\u2028"},
        new String[] {"\u2029", "\\u2029"},
        // bidirectional controls: marks, embeddings, overrides, isolates
        new String[] {"\u061c", "\\u061c"},
        new String[] {"\u200e", "\\u200e"},
        new String[] {"\u200f", "\\u200f"},
        new String[] {"\u202a", "\\u202a"},
        new String[] {"\u202b", "\\u202b"},
        new String[] {"\u202c", "\\u202c"},
        new String[] {"\u202d", "\\u202d"},
        new String[] {"\u202e", "\\u202e"},
        new String[] {"\u2066", "\\u2066"},
        new String[] {"\u2067", "\\u2067"},
        new String[] {"\u2068", "\\u2068"},
        new String[] {"\u2069", "\\u2069"});
  }

  /** Every unsafe character of {@link #unsafe()} in one string, between ordinary text. */
  static String everyUnsafe() {
    StringBuilder b = new StringBuilder("start ");
    unsafe().forEach(c -> b.append(c[0]).append('.'));
    return b.append(" end").toString();
  }

  /** Whether {@code text} holds a character of the rule, raw. */
  static boolean hasRawUnsafe(String text) {
    return text.chars().anyMatch(Printable::isUnsafe);
  }

  @Nested
  @DisplayName("escape: tables, describe, error messages")
  class Escape {
    @ParameterizedTest(name = "U+{index}: {1}")
    @MethodSource("io.breakerctl.cli.output.PrintableTest#unsafe")
    @DisplayName("every unsafe character is shown escaped")
    void escaped(String ch, String shown) {
      assertThat(Printable.isUnsafe(ch.charAt(0))).isTrue();
      assertThat(OperatorText.isControl(ch.charAt(0))).as("refused at input too").isTrue();
      assertThat(Printable.escape("a" + ch + "b")).isEqualTo("a" + shown + "b");
    }

    @Test
    @DisplayName("printable text, Unicode included, is left alone (the same instance)")
    void printable() {
      String text = "incident 7 – paiement échoué ✓ 🚨 日本 \u00a0nbsp \u200bzwsp \\x1b literal";
      assertThat(Printable.escape(text)).isSameAs(text);
      assertThat(Printable.escape(null)).isNull();
      assertThat(Printable.escape("")).isEmpty();
    }

    @Test
    @DisplayName("a planted escape sequence and a fake row come out as one line of text")
    void planted() {
      String shown = Printable.escape("ok\u001b[2J\u009b31m\u202eevil\nfake:row  CLOSED");
      assertThat(shown).isEqualTo("ok\\x1b[2J\\u009b31m\\u202eevil\\nfake:row  CLOSED");
      assertThat(hasRawUnsafe(shown)).isFalse();
      assertThat(hasRawUnsafe(Printable.escape(everyUnsafe()))).isFalse();
    }
  }

  @Nested
  @DisplayName("TerminalWriter: what every command prints passes the rule")
  class Writer {
    private String through(java.util.function.Consumer<PrintWriter> print) {
      StringWriter sink = new StringWriter();
      PrintWriter w = TerminalWriter.of(new PrintWriter(sink));
      print.accept(w);
      w.flush();
      return sink.toString();
    }

    @Test
    @DisplayName("unsafe characters a printer forgot are escaped by every print method")
    void forgotten() {
      String planted = "x\u001b]0;owned\u0007\u009b2J\u202e\r";
      String shown = "x\\x1b]0;owned\\x07\\u009b2J\\u202e\\r";
      assertThat(through(w -> w.print(planted))).isEqualTo(shown);
      assertThat(through(w -> w.println(planted))).isEqualTo(shown + System.lineSeparator());
      assertThat(through(w -> w.printf("%s|%n", planted)))
          .isEqualTo(shown + "|" + System.lineSeparator());
      assertThat(through(w -> w.write(planted.toCharArray()))).isEqualTo(shown);
      assertThat(through(w -> w.print('\u009b'))).isEqualTo("\\u009b");
      assertThat(through(w -> w.append(planted))).isEqualTo(shown);
      assertThat(hasRawUnsafe(through(w -> w.print(everyUnsafe())).replaceAll("[\n\t]", "")))
          .isFalse();
    }

    @Test
    @DisplayName("the output's own newlines, tabs and colours pass; other sequences do not")
    void layoutAndColour() {
      String coloured =
          "a\tb\n" + Style.of(true, true, "80", null).paint("OPEN", State.OPEN) + "\n";
      String red = "\u001b[31;1mOPEN\u001b[0m";
      assertThat(through(w -> w.print(coloured))).isEqualTo(coloured);
      assertThat(through(w -> w.print(red))).isEqualTo(red);
      assertThat(through(w -> w.print("\u001b[2J\u001b[31"))).isEqualTo("\\x1b[2J\\x1b[31");
      assertThat(through(w -> w.print("\u001b[" + "1;".repeat(20) + "m"))).startsWith("\\x1b[");
    }

    @Test
    @DisplayName("wrapping is idempotent, and errors of the target still show")
    void wrapping() {
      PrintWriter w = TerminalWriter.of(new PrintWriter(new StringWriter()));
      assertThat(TerminalWriter.of(w)).isSameAs(w);
      PrintWriter failing =
          TerminalWriter.of(
              new PrintWriter(
                  new java.io.Writer() {
                    @Override
                    public void write(char[] c, int off, int len) throws java.io.IOException {
                      throw new java.io.IOException("Broken pipe");
                    }

                    @Override
                    public void flush() {}

                    @Override
                    public void close() {}
                  }));
      failing.println("x");
      assertThat(failing.checkError()).isTrue();
    }
  }

  @Nested
  @DisplayName("JSON and YAML: escaped, and read back as the original string")
  class Machine {
    private final Map<String, Object> view = new LinkedHashMap<>();

    Machine() {
      view.put("correlationId", "corr\u001b[2J\u009b2J\u202eevil");
      view.put("reason", everyUnsafe());
      view.put("multiLine", "first\nsecond \u202e third");
      view.put("plain", "incident 7 – échoué ✓ 🚨");
      view.put("key\u202e\u009b\u001b", "value of a planted key");
      view.put("fields", Map.of("node", "n\u001b[31m\u009b\u202e1"));
    }

    private String write(OutputFormat format) {
      StringWriter out = new StringWriter();
      Documents.single(format, "Test", view, new PrintWriter(out));
      return out.toString();
    }

    private String writeList(OutputFormat format) {
      StringWriter out = new StringWriter();
      try (Documents.ListWriter w = Documents.list(format, "TestList", new PrintWriter(out))) {
        w.item(view, "x");
      }
      return out.toString();
    }

    private void readsBack(JsonNode doc) {
      assertThat(doc.path("correlationId").asText()).isEqualTo(view.get("correlationId"));
      assertThat(doc.path("reason").asText()).isEqualTo(everyUnsafe());
      assertThat(doc.path("multiLine").asText()).isEqualTo(view.get("multiLine"));
      assertThat(doc.path("plain").asText()).isEqualTo(view.get("plain"));
      assertThat(doc.path("key\u202e\u009b\u001b").asText()).isEqualTo("value of a planted key");
      assertThat(doc.path("fields").path("node").asText()).isEqualTo("n\u001b[31m\u009b\u202e1");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.breakerctl.cli.output.PrintableTest#jsonFormats")
    @DisplayName("JSON: every unsafe character as \\uXXXX; the parser gets the string back")
    void json(OutputFormat format) throws Exception {
      for (String text : List.of(write(format), writeList(format))) {
        assertThat(hasRawUnsafe(text.replace("\n", ""))).as(text).isFalse();
        assertThat(text).contains("\\u009B").contains("\\u202E").contains("\\u001B");
        assertThat(text).contains("\\u007F").contains("\\u2028").contains("\\u061C");
        assertThat(text).contains("échoué ✓ 🚨");
        JsonNode doc = new ObjectMapper().readTree(text);
        readsBack(doc.has("items") ? doc.path("items").path(0) : doc);
      }
    }

    @Test
    @DisplayName("YAML: unsafe strings double-quoted with escapes; the parser gets them back")
    void yaml() throws Exception {
      for (String text : List.of(write(OutputFormat.YAML), writeList(OutputFormat.YAML))) {
        assertThat(hasRawUnsafe(text.replace("\n", ""))).as(text).isFalse();
        assertThat(text).contains("\"corr\\e[2J\\x9b2J\\u202Eevil\"");
        assertThat(text).contains("échoué ✓ 🚨");
        JsonNode doc = new YAMLMapper().readTree(text);
        readsBack(doc.has("items") ? doc.path("items").path(0) : doc);
      }
    }
  }

  static List<OutputFormat> jsonFormats() {
    return List.of(OutputFormat.JSON, OutputFormat.JSONL);
  }
}
