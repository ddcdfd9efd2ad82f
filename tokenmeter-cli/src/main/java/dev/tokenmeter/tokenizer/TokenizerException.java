package dev.tokenmeter.tokenizer;

/**
 * A tokenizer could not be resolved or loaded; the message says what was looked for, where, and
 * what to do. An {@link IllegalArgumentException}, since it always comes from what the user asked
 * for (the command line reports it as a usage error).
 */
public final class TokenizerException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public TokenizerException(String message) {
    super(message);
  }

  public TokenizerException(String message, Throwable cause) {
    super(message, cause);
  }
}
