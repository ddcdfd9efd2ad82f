package dev.tokenmeter.cli;

/** Bad command-line input: the message says what is wrong and how to fix it. Exit code 2. */
final class UsageException extends RuntimeException {
  UsageException(String message) {
    super(message);
  }
}
