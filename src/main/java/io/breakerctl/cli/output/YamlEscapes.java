package io.breakerctl.cli.output;

import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.dataformat.yaml.UTF8Writer;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import org.yaml.snakeyaml.DumperOptions;

/**
 * The YAML escapes of machine output. SnakeYAML escapes the characters YAML calls non-printable (C0
 * and C1 controls, DEL) in a double-quoted scalar, and writes everything else raw, bidirectional
 * controls included, in whatever style fits. Here a string (value or key) that holds any character
 * {@link Printable#isUnsafe} names, other than a newline, is always written double-quoted; and the
 * writer below SnakeYAML turns those that still come out raw into <code>&#92;uXXXX</code>, which
 * can then only be inside such a scalar, where YAML reads the escape back as the character.
 */
final class YamlEscapes {
  private YamlEscapes() {}

  /** A YAML factory whose generators write as above. */
  static YAMLFactory factory() {
    return new Factory();
  }

  /** Whether {@code text} must be written double-quoted. */
  static boolean needsQuotes(String text) {
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch != '\n' && Printable.isUnsafe(ch)) {
        return true;
      }
    }
    return false;
  }

  private static final class Factory extends YAMLFactory {
    private static final long serialVersionUID = 1L;

    Factory() {}

    Factory(Factory src, ObjectCodec codec) {
      super(src, codec);
    }

    @Override
    public YAMLFactory copy() {
      return new Factory(this, null);
    }

    @Override
    protected YAMLGenerator _createGenerator(Writer out, IOContext ctxt) throws IOException {
      return new Generator(
          ctxt,
          _generatorFeatures,
          _yamlGeneratorFeatures,
          _quotingChecker,
          _objectCodec,
          new Escaping(out),
          _version);
    }

    @Override
    protected YAMLGenerator _createUTF8Generator(OutputStream out, IOContext ctxt)
        throws IOException {
      return _createGenerator(new UTF8Writer(out), ctxt);
    }
  }

  private static final class Generator extends YAMLGenerator {
    Generator(
        IOContext ctxt,
        int jsonFeatures,
        int yamlFeatures,
        StringQuotingChecker quotingChecker,
        ObjectCodec codec,
        Writer out,
        DumperOptions.Version version)
        throws IOException {
      super(ctxt, jsonFeatures, yamlFeatures, quotingChecker, codec, out, version);
    }

    @Override
    protected void _writeScalar(String value, String type, DumperOptions.ScalarStyle style)
        throws IOException {
      super._writeScalar(
          value, type, needsQuotes(value) ? DumperOptions.ScalarStyle.DOUBLE_QUOTED : style);
    }
  }

  /** Every unsafe character but a newline (YAML's own line break) as <code>&#92;uXXXX</code>. */
  private static final class Escaping extends FilterWriter {
    Escaping(Writer out) {
      super(out);
    }

    @Override
    public void write(int c) throws IOException {
      if (c != '\n' && Printable.isUnsafe(c)) {
        out.write(String.format("\\u%04X", c));
      } else {
        out.write(c);
      }
    }

    @Override
    public void write(char[] buf, int off, int len) throws IOException {
      int start = off;
      for (int i = off; i < off + len; i++) {
        if (buf[i] != '\n' && Printable.isUnsafe(buf[i])) {
          out.write(buf, start, i - start);
          write(buf[i]);
          start = i + 1;
        }
      }
      out.write(buf, start, off + len - start);
    }

    @Override
    public void write(String s, int off, int len) throws IOException {
      int start = off;
      for (int i = off; i < off + len; i++) {
        if (s.charAt(i) != '\n' && Printable.isUnsafe(s.charAt(i))) {
          out.write(s, start, i - start);
          write(s.charAt(i));
          start = i + 1;
        }
      }
      out.write(s, start, off + len - start);
    }
  }
}
