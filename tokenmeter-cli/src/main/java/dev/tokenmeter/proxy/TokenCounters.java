package dev.tokenmeter.proxy;

import dev.tokenmeter.core.metrics.OutputTokenCounter;

/**
 * The tokenizer of a model, for requests whose upstream sent no usage. Called on the record path
 * only; implementations are thread-safe and cache what they load.
 */
@FunctionalInterface
public interface TokenCounters {
  /** The counter for {@code model}, or null when none is known (the count falls back to chunks). */
  OutputTokenCounter forModel(String model);

  /** No tokenizer for any model. */
  static TokenCounters none() {
    return model -> null;
  }
}
