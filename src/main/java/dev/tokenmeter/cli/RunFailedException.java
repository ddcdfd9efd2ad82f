package dev.tokenmeter.cli;

/** The run could not be carried out (server unreachable, output not writable). Exit code 1. */
final class RunFailedException extends RuntimeException {
  RunFailedException(String message) {
    super(message);
  }

  RunFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
