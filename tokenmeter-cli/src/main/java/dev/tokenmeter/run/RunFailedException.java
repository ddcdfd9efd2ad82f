package dev.tokenmeter.run;

/** The run could not be carried out (server unreachable, output not writable). Exit code 1. */
public final class RunFailedException extends RuntimeException {
  public RunFailedException(String message) {
    super(message);
  }

  public RunFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
