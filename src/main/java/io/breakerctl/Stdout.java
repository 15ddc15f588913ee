package io.breakerctl;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;

/**
 * The process's stdout as a writer that remembers why a write failed ({@code System.out} swallows
 * every error): a closed pipe ({@code status --watch | head}) ends the command quietly, any other
 * failure ({@code status > /dev/full}) is an error with exit 8.
 */
final class Stdout extends OutputStream {
  private final OutputStream out = new FileOutputStream(FileDescriptor.out);
  private volatile IOException failure;

  private Stdout() {}

  /** A writer on the real stdout and the stream that records its failure. */
  static Stdout open() {
    return new Stdout();
  }

  /** The writer commands print to. */
  PrintWriter writer() {
    String enc = System.getProperty("stdout.encoding", System.getProperty("sun.stdout.encoding"));
    Charset cs = enc == null ? Charset.defaultCharset() : Charset.forName(enc);
    return new PrintWriter(new BufferedWriter(new OutputStreamWriter(this, cs)), true);
  }

  /** The first write failure, else null. */
  IOException failure() {
    return failure;
  }

  /** Whether {@code e} says the reader went away (EPIPE). */
  static boolean closedPipe(IOException e) {
    return e != null && String.valueOf(e.getMessage()).contains("Broken pipe");
  }

  @Override
  public void write(int b) throws IOException {
    try {
      out.write(b);
    } catch (IOException e) {
      throw record(e);
    }
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      throw record(e);
    }
  }

  @Override
  public void flush() throws IOException {
    try {
      out.flush();
    } catch (IOException e) {
      throw record(e);
    }
  }

  private IOException record(IOException e) {
    if (failure == null) {
      failure = e;
    }
    return e;
  }
}
