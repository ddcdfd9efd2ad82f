package dev.tokenmeter.run;

/**
 * The target given cannot be measured, found before the run starts (nothing listens at the URL,
 * TLS fails, the key is refused, the URL is not an OpenAI-compatible API): a problem the user fixes
 * with a flag, so the command exits 2 (usage) like any bad value, with the message as its one line.
 * A target that fails once the run is going is a {@link RunFailedException} (exit 1).
 */
public final class TargetException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public TargetException(String message) {
    super(message);
  }
}
