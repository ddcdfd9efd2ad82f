package dev.tokenmeter.governance;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One tenant's budget. Immutable.
 *
 * @param tenant the tenant it limits
 * @param limit tokens (input plus output), or money in {@code currencyOrNull}
 * @param currencyOrNull the price table's currency for a money budget; null for a token budget
 * @param period the UTC calendar period it resets on
 * @param enforce whether a request that would exceed it is refused (429); else only noticed
 */
public record Budget(String tenant, double limit, String currencyOrNull, Period period, boolean enforce) {

  public Budget {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(period, "period");
    if (!(limit > 0) || Double.isInfinite(limit)) {
      throw new IllegalArgumentException("a budget's limit must be a positive number, got " + limit);
    }
  }

  /** Whether it counts money rather than tokens. */
  public boolean money() {
    return currencyOrNull != null;
  }

  /** {@code tokens} or the currency code: the {@code unit} label of its gauge. */
  public String unit() {
    return money() ? currencyOrNull : "tokens";
  }

  /** {@code 2000000 tokens per day}, {@code 25.00 USD per month}. */
  public String describe() {
    return amount(limit) + " per " + period.word();
  }

  /** {@code amount} in this budget's unit: {@code 1200 tokens}, {@code 3.50 USD}. */
  public String amount(double amount) {
    return money()
        ? String.format(Locale.ROOT, "%.2f %s", amount, currencyOrNull)
        : String.format(Locale.ROOT, "%d tokens", Math.round(amount));
  }

  /**
   * Parses a limit written {@code N tokens} or {@code N CUR} ({@code 2000000 tokens}, {@code 25
   * USD}); a mistake is added to {@code errors}, one line naming it, and null returned.
   *
   * @param currencyOrNull the price table's currency, null when there is no price table
   */
  public static Budget parse(String tenant, String limitText, String periodText, boolean enforce,
      String currencyOrNull, List<String> errors) {
    String where = "budget of '" + tenant + "'";
    String[] parts = limitText == null ? new String[0] : limitText.strip().split("\\s+");
    Period period = Period.parse(periodText);
    if (period == null) {
      errors.add(where + ": period '" + (periodText == null ? "" : periodText) + "' is not day or month");
    }
    if (parts.length != 2) {
      errors.add(where + ": limit '" + (limitText == null ? "" : limitText)
          + "': write 'N tokens' or 'N " + (currencyOrNull == null ? "USD" : currencyOrNull) + "', e.g. '2000000 tokens'");
      return null;
    }
    double n;
    try {
      n = Double.parseDouble(parts[0].replace("_", ""));
    } catch (NumberFormatException e) {
      n = Double.NaN;
    }
    if (!(n > 0) || Double.isInfinite(n)) {
      errors.add(where + ": limit '" + limitText + "' must start with a positive number");
      return null;
    }
    String unit = parts[1];
    String currency = null;
    if (unit.equalsIgnoreCase("tokens") || unit.equalsIgnoreCase("token")) {
      if (n != Math.rint(n)) {
        errors.add(where + ": a token limit is a whole number, got " + parts[0]);
        return null;
      }
    } else if (currencyOrNull == null) {
      errors.add(where + ": a money limit ('" + limitText + "') needs a price table: give --prices FILE,"
          + " or write the limit in tokens");
      return null;
    } else if (!unit.equalsIgnoreCase(currencyOrNull)) {
      errors.add(where + ": unit '" + unit + "' is neither 'tokens' nor the price table's currency "
          + currencyOrNull);
      return null;
    } else {
      currency = currencyOrNull;
    }
    return period == null ? null : new Budget(tenant, n, currency, period, enforce);
  }
}
