package dev.tokenmeter.governance;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;

/** A budget's period: a UTC calendar day or month. */
public enum Period {
  DAY,
  MONTH;

  /** The start of the period that holds {@code t}. */
  public Instant start(Instant t) {
    LocalDate d = t.atOffset(ZoneOffset.UTC).toLocalDate();
    LocalDate first = this == DAY ? d : d.withDayOfMonth(1);
    return first.atStartOfDay(ZoneOffset.UTC).toInstant();
  }

  /** The start of the next period after the one that holds {@code t}: when a budget resets. */
  public Instant next(Instant t) {
    LocalDate first = start(t).atOffset(ZoneOffset.UTC).toLocalDate();
    return (this == DAY ? first.plusDays(1) : first.plusMonths(1)).atStartOfDay(ZoneOffset.UTC).toInstant();
  }

  /** {@code day} or {@code month}. */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code day} or {@code month} (any case), else null. */
  public static Period parse(String s) {
    return switch (s == null ? "" : s.strip().toLowerCase(Locale.ROOT)) {
      case "day", "daily" -> DAY;
      case "month", "monthly" -> MONTH;
      default -> null;
    };
  }
}
