package io.breakerctl.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client for fixture control commands. Every call opens a fresh socket
 * with bounded connect and read timeouts, so a dead or paused server can never hang a test.
 */
final class Resp {

  /** An error reply ({@code -ERR ...}) from the server. */
  static final class ErrorReply extends RuntimeException {
    ErrorReply(String message) {
      super(message);
    }
  }

  private Resp() {}

  /** Sends one command and returns its reply (String, Long, null, or List of those). */
  static Object call(String host, int port, Duration timeout, String... command) {
    try (Socket socket = new Socket()) {
      int millis = (int) Math.max(1, timeout.toMillis());
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setSoTimeout(millis);
      OutputStream out = socket.getOutputStream();
      out.write(encode(command));
      out.flush();
      return read(new BufferedInputStream(socket.getInputStream()));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "redis " + host + ":" + port + " " + String.join(" ", command) + ": " + e, e);
    }
  }

  /** Sends a command whose connection the server closes instead of replying (SHUTDOWN). */
  static void fireAndForget(String host, int port, Duration timeout, String... command) {
    try (Socket socket = new Socket()) {
      int millis = (int) Math.max(1, timeout.toMillis());
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setSoTimeout(millis);
      socket.getOutputStream().write(encode(command));
      socket.getOutputStream().flush();
      socket.getInputStream().read();
    } catch (IOException e) {
      // Expected: the server went away, or was not there.
    }
  }

  static byte[] encode(String... command) {
    StringBuilder sb = new StringBuilder();
    sb.append('*').append(command.length).append("\r\n");
    for (String arg : command) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      sb.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static Object read(InputStream in) throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("connection closed before reply");
    }
    String line = readLine(in);
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new ErrorReply(line);
      case ':':
        return Long.parseLong(line);
      case '$':
        {
          int len = Integer.parseInt(line);
          if (len < 0) {
            return null;
          }
          byte[] data = in.readNBytes(len + 2);
          if (data.length < len + 2) {
            throw new EOFException("truncated bulk reply");
          }
          return new String(data, 0, len, StandardCharsets.UTF_8);
        }
      case '*':
        {
          int n = Integer.parseInt(line);
          if (n < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            items.add(read(in));
          }
          return items;
        }
      default:
        throw new IOException("unexpected RESP type byte " + type);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int prev = -1;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed mid-reply");
      }
      if (prev == '\r' && b == '\n') {
        byte[] bytes = buf.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      buf.write(b);
      prev = b;
    }
  }
}
