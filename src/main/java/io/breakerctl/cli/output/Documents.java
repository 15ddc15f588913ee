package io.breakerctl.cli.output;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Writes machine output: one versioned document ({@code apiVersion: breakerctl/v1}, a {@code kind}
 * and, for lists, {@code items}) in JSON or YAML, or one object a line (jsonl), or names. Lists are
 * streamed item by item, so memory stays flat however many breakers there are. Every string, keys
 * included, is escaped by the rule of {@link Printable}: <code>&#92;uXXXX</code> in JSON ({@link
 * JsonEscapes}), a double-quoted scalar with escapes in YAML ({@link YamlEscapes}), so a document
 * shown on a terminal cannot act on it and a reader gets the original string back.
 */
public final class Documents {
  /** The API version of every document. */
  public static final String API_VERSION = "breakerctl/v1";

  static final ObjectMapper JSON =
      new ObjectMapper(new JsonFactoryBuilder().characterEscapes(new JsonEscapes()).build())
          .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
          .disable(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
  static final ObjectMapper YAML =
      new ObjectMapper(
              YamlEscapes.factory()
                  .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                  .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                  .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                  .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR))
          .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
          .disable(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);

  private Documents() {}

  /** Writes one document of {@code kind} whose fields are the view's. */
  public static void single(OutputFormat format, String kind, Object view, PrintWriter out) {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("apiVersion", API_VERSION);
    doc.put("kind", kind);
    doc.setAll((ObjectNode) JSON.valueToTree(view));
    try {
      switch (format) {
        case YAML -> out.print(YAML.writeValueAsString(doc));
        case JSONL -> out.println(JSON.writeValueAsString(doc));
        default -> out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.flush();
  }

  /** Starts a streamed list document of {@code kind}. */
  public static ListWriter list(OutputFormat format, String kind, PrintWriter out) {
    return new ListWriter(format, kind, out, false);
  }

  /**
   * Starts a streamed list document of {@code kind}; {@code oneLine} writes JSON on one line (a
   * stream of documents, e.g. {@code status --watch -o json}).
   */
  public static ListWriter list(
      OutputFormat format, String kind, PrintWriter out, boolean oneLine) {
    return new ListWriter(format, kind, out, oneLine);
  }

  /** A list document being written; {@link #close()} ends it. */
  public static final class ListWriter implements AutoCloseable {
    private final OutputFormat format;
    private final PrintWriter out;
    private final JsonGenerator gen;
    private final ObjectWriter items;
    private boolean itemsEnded;

    private ListWriter(OutputFormat format, String kind, PrintWriter out, boolean oneLine) {
      this.format = format;
      this.out = out;
      try {
        if (format == OutputFormat.JSON || format == OutputFormat.YAML) {
          ObjectMapper mapper = format == OutputFormat.JSON ? JSON : YAML;
          gen = mapper.getFactory().createGenerator(out);
          // one flush at the end, not one per item (a write call per breaker on 100,000)
          items = mapper.writer().without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
          if (format == OutputFormat.JSON && !oneLine) {
            gen.useDefaultPrettyPrinter();
          }
          gen.writeStartObject();
          gen.writeStringField("apiVersion", API_VERSION);
          gen.writeStringField("kind", kind);
          gen.writeFieldName("items");
          gen.writeStartArray();
        } else {
          gen = null;
          items = null;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Writes one item; {@code name} is what {@code -o name} prints. */
    public void item(Object view, String name) {
      try {
        switch (format) {
          case JSON, YAML -> items.writeValue(gen, view);
          case JSONL -> out.println(JSON.writeValueAsString(view));
          default -> out.println(Printable.escape(name));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * Writes a field after the items (json and yaml; nothing in other formats), e.g. what a read
     * could not reach: known only once every item is written.
     */
    public void trailer(String field, Object value) {
      if (gen == null) {
        return;
      }
      try {
        if (!itemsEnded) {
          gen.writeEndArray();
          itemsEnded = true;
        }
        gen.writeFieldName(field);
        items.writeValue(gen, value);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      try {
        if (gen != null) {
          if (!itemsEnded) {
            gen.writeEndArray();
          }
          gen.writeEndObject();
          gen.close();
          if (format == OutputFormat.JSON) {
            out.println();
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      out.flush();
    }
  }
}
