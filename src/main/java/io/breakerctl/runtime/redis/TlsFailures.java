package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.store.TlsFailure;
import io.netty.handler.ssl.NotSslRecordException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLException;

/**
 * Which {@link TlsFailure} a failed connect is, decided from the JDK's and Netty's exceptions among
 * its causes ({@link #of}); a plain server is also recognised by its answer to a plain {@code PING}
 * after a handshake that got no answer ({@link RedisConnector}).
 */
final class TlsFailures {
  private TlsFailures() {}

  /** The TLS failure among the causes of {@code t}, or null when TLS is not the reason. */
  static TlsFailure of(Throwable t) {
    TlsFailure found = null;
    for (Throwable e = t; e != null; e = e.getCause()) {
      if (e instanceof CertificateExpiredException
          || e instanceof CertificateNotYetValidException) {
        return TlsFailure.EXPIRED_CERTIFICATE;
      }
      if (e instanceof CertPathBuilderException) {
        return TlsFailure.UNTRUSTED_CERTIFICATE;
      }
      if (e instanceof NotSslRecordException) {
        return TlsFailure.PLAIN_SERVER;
      }
      // the JDK's hostname check throws a bare CertificateException: its text is all there is
      String m = String.valueOf(e.getMessage());
      if (e instanceof CertificateException
          && (m.startsWith("No subject alternative") || m.startsWith("No name matching"))) {
        return TlsFailure.HOSTNAME_MISMATCH;
      }
      if (e instanceof SSLException && m.startsWith("Unsupported or unrecognized SSL message")) {
        return TlsFailure.PLAIN_SERVER;
      }
      if (e instanceof SSLException && found == null) {
        found = TlsFailure.HANDSHAKE;
      }
    }
    return found;
  }

  /** The message of the innermost cause: the JDK's own words for the detail. */
  static String detail(Throwable t) {
    String detail = null;
    for (Throwable e = t; e != null; e = e.getCause()) {
      if (e.getMessage() != null) {
        detail = e.getMessage();
      }
    }
    return detail;
  }
}
