package io.breakerctl.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/** Tiny loopback checks that need no client library: a TCP connect, a Redis PING, INFO. */
final class LoopbackProbe {
  private LoopbackProbe() {}

  /** Whether something accepts TCP connections on the loopback port. */
  static boolean accepts(int port, Duration timeout) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), millis(timeout));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether a Redis server answers PING with PONG on the loopback port. */
  static boolean redisPongs(int port, Duration timeout) {
    return redisCommand(port, "PING", timeout).map(r -> r.startsWith("+PONG")).orElse(false);
  }

  /** The raw reply to an inline command, or empty when nothing answers. */
  static Optional<String> redisCommand(int port, String inlineCommand, Duration timeout) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), millis(timeout));
      s.setSoTimeout(millis(timeout));
      OutputStream out = s.getOutputStream();
      out.write((inlineCommand + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder reply = new StringBuilder();
      byte[] buf = new byte[8192];
      int expected = -1;
      while (true) {
        int n = in.read(buf);
        if (n < 0) {
          break;
        }
        reply.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        if (reply.charAt(0) != '$') {
          if (reply.indexOf("\r\n") >= 0) {
            break;
          }
          continue;
        }
        int eol = reply.indexOf("\r\n");
        if (eol > 0 && expected < 0) {
          expected = eol + 2 + Integer.parseInt(reply.substring(1, eol)) + 2;
        }
        if (expected >= 0 && reply.toString().getBytes(StandardCharsets.UTF_8).length >= expected) {
          break;
        }
      }
      return reply.length() == 0 ? Optional.empty() : Optional.of(reply.toString());
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static int millis(Duration d) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
  }
}
