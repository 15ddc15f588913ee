package io.breakerctl.runtime.redis;

import io.netty.handler.ssl.NotSslRecordException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLException;

/**
 * Why a TLS connection ({@code rediss://}) to Redis failed, named so that a certificate problem
 * never reads as a network outage. Decided from the JDK's and Netty's exceptions among the causes
 * of a failed connect ({@link #of}); a plain server is also recognised by its answer to a plain
 * {@code PING} after a handshake that got no answer ({@code RedisFleetStore}).
 */
public enum TlsFailure {
  /** No trusted CA signed the server's certificate (the PKIX path cannot be built). */
  UNTRUSTED_CERTIFICATE(
      "TLS: the server's certificate is not trusted (signed by no CA of the CA file, or of the"
          + " JDK's trust store when none is given)"),
  /** The server's certificate is not valid for the host name or address connected to. */
  HOSTNAME_MISMATCH("TLS: the server's certificate does not name the host connected to"),
  /** The server's certificate (or one of its chain) has expired or is not yet valid. */
  EXPIRED_CERTIFICATE("TLS: the server's certificate has expired or is not yet valid"),
  /** The server does not speak TLS: a plain Redis port behind {@code rediss://}. */
  PLAIN_SERVER(
      "TLS: the server does not speak TLS (a plain Redis port?): use redis:// for it, or its TLS"
          + " port"),
  /** Any other failed handshake (a protocol or cipher the two sides do not share, ...). */
  HANDSHAKE("TLS handshake failed");

  private final String message;

  TlsFailure(String message) {
    this.message = message;
  }

  /** What the error says, without the cause's detail. */
  public String message() {
    return message;
  }

  /** The TLS failure among the causes of {@code t}, or null when TLS is not the reason. */
  public static TlsFailure of(Throwable t) {
    TlsFailure found = null;
    for (Throwable e = t; e != null; e = e.getCause()) {
      if (e instanceof CertificateExpiredException
          || e instanceof CertificateNotYetValidException) {
        return EXPIRED_CERTIFICATE;
      }
      if (e instanceof CertPathBuilderException) {
        return UNTRUSTED_CERTIFICATE;
      }
      if (e instanceof NotSslRecordException) {
        return PLAIN_SERVER;
      }
      // the JDK's hostname check throws a bare CertificateException: its text is all there is
      String m = String.valueOf(e.getMessage());
      if (e instanceof CertificateException
          && (m.startsWith("No subject alternative") || m.startsWith("No name matching"))) {
        return HOSTNAME_MISMATCH;
      }
      if (e instanceof SSLException && m.startsWith("Unsupported or unrecognized SSL message")) {
        return PLAIN_SERVER;
      }
      if (e instanceof SSLException && found == null) {
        found = HANDSHAKE;
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
