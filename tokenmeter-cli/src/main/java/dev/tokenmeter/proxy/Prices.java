package dev.tokenmeter.proxy;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A price table: per model glob, the price of 1M input and 1M output tokens, in one currency. The
 * first entry whose glob matches the model prices the request. Immutable and thread-safe.
 *
 * @param currency an ISO 4217 code ({@code USD}), or null for an empty table
 * @param entries tried in order
 */
public record Prices(String currency, List<Entry> entries) {

  /**
   * One row.
   *
   * @param glob model-name glob ({@code gpt-4o*})
   * @param inputPerMillion price of 1,000,000 input tokens
   * @param outputPerMillion price of 1,000,000 output tokens
   */
  public record Entry(String glob, double inputPerMillion, double outputPerMillion) {
    public Entry {
      Objects.requireNonNull(glob, "glob");
      if (!(inputPerMillion >= 0) || !(outputPerMillion >= 0)) {
        throw new IllegalArgumentException(
            "price of '" + glob + "' must be 0 or more per 1M tokens, in and out");
      }
    }
  }

  public Prices {
    entries = List.copyOf(entries);
    if (!entries.isEmpty() && (currency == null || currency.isBlank())) {
      throw new IllegalArgumentException("a price table needs a currency (e.g. USD)");
    }
  }

  /** No prices: every request's cost is NaN. */
  public static Prices none() {
    return new Prices(null, List.of());
  }

  /**
   * The cost of a request: {@code in × inputPerMillion / 1e6 + out × outputPerMillion / 1e6}; NaN
   * when no entry matches or a token count is unknown (negative). Input unknown but output known
   * (a stream whose upstream sent no usage) is also NaN: a partial price would under-bill.
   */
  public double cost(String model, int inputTokens, int outputTokens) {
    Entry e = match(model);
    if (e == null || inputTokens < 0 || outputTokens < 0) {
      return Double.NaN;
    }
    return inputTokens * e.inputPerMillion() / 1e6 + outputTokens * e.outputPerMillion() / 1e6;
  }

  /** The entry for {@code model}, or null. */
  public Entry match(String model) {
    if (model == null) {
      return null;
    }
    for (Entry e : entries) {
      if (Routing.globPattern(e.glob()).matcher(model).matches()) {
        return e;
      }
    }
    return null;
  }
}
