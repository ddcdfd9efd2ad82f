package dev.tokenmeter.ledger;

/**
 * What one tenant spent in a window, from the ledger.
 *
 * @param tokens input plus output tokens of its requests (unknown counts add nothing)
 * @param cost the priced requests' cost (unpriced ones add nothing)
 */
public record TenantSpend(long tokens, double cost) {
  /** Nothing spent. */
  public static final TenantSpend NONE = new TenantSpend(0, 0);
}
