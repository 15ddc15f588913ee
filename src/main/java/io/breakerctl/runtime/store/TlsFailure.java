package io.breakerctl.runtime.store;

/**
 * Why a TLS connection ({@code rediss://}) to Redis failed, named so that a certificate problem
 * never reads as a network outage: the kind a {@link StoreTlsException} carries. The adapter
 * decides it ({@code runtime.redis.TlsFailures}, from the JDK's and Netty's exceptions among the
 * causes of a failed connect; a plain server is also recognised by its answer to a plain {@code
 * PING} after a handshake that got no answer).
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
}
