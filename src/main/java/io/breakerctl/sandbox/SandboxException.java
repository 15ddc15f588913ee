package io.breakerctl.sandbox;

/** The sandbox could not be started, stopped or read; the message says what to do. */
public class SandboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SandboxException(String message) {
    super(message);
  }

  public SandboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
