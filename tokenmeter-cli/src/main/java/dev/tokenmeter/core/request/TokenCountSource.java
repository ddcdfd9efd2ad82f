package dev.tokenmeter.core.request;

/** Where a request's output token count came from, best first (docs/METRICS.md, docs/ARCHITECTURE.md). */
public enum TokenCountSource {
  /** The server's {@code usage.completion_tokens}. */
  USAGE,
  /** The client's tokenizer over the generated text. */
  TOKENIZER,
  /** The number of text-carrying chunks (one token per chunk assumed). */
  CHUNKS;

  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
