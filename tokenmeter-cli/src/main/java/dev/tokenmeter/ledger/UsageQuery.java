package dev.tokenmeter.ledger;

import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What {@code proxy usage} asks the ledger: requests that started at or after {@code since}, of one
 * tenant or all, grouped by {@code by}.
 *
 * @param since start of the window (inclusive), compared with {@code started_at_epoch_ms}
 * @param tenantOrNull only this tenant, or null for every tenant
 * @param by the grouping of the rows
 */
public record UsageQuery(Instant since, String tenantOrNull, GroupBy by) {

  public UsageQuery {
    java.util.Objects.requireNonNull(since, "since");
    java.util.Objects.requireNonNull(by, "by");
  }

  /**
   * How usage rows are grouped. {@link #DAY} is the UTC calendar day ({@code 2026-11-25}); {@link
   * #PROXY} the proxy that wrote the row ({@code proxy_id}).
   */
  public enum GroupBy {
    TENANT,
    MODEL,
    UPSTREAM,
    DAY,
    PROXY,
    /** The conversation key (ledger migration V3); requests without one share the none row. */
    CONVERSATION;

    /** Lower-case name, as on the command line and in JSON. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The grouping named {@code name} (any case).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static GroupBy parse(String name) {
      for (GroupBy g : values()) {
        if (g.wireName().equalsIgnoreCase(name.strip())) {
          return g;
        }
      }
      throw new IllegalArgumentException(
          "--by '" + name + "' is not a grouping; use one of "
              + Arrays.stream(values()).map(GroupBy::wireName).collect(Collectors.joining(", ")));
    }
  }
}
