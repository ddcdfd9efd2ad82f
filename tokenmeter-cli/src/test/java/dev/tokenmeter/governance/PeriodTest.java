package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeriodTest {
  @Test
  void daysAndMonthsAreUtcCalendarPeriods() {
    Instant t = Instant.parse("2026-12-31T23:59:59.999Z");
    assertThat(Period.DAY.start(t)).isEqualTo(Instant.parse("2026-12-31T00:00:00Z"));
    assertThat(Period.DAY.next(t)).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
    assertThat(Period.MONTH.start(t)).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
    assertThat(Period.MONTH.next(t)).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
    Instant midnight = Instant.parse("2028-02-29T00:00:00Z");
    assertThat(Period.DAY.start(midnight)).isEqualTo(midnight);
    assertThat(Period.MONTH.next(midnight)).isEqualTo(Instant.parse("2028-03-01T00:00:00Z"));
    assertThat(Period.parse(" Monthly")).isEqualTo(Period.MONTH);
    assertThat(Period.parse("week")).isNull();
    assertThat(Period.DAY.word()).isEqualTo("day");
  }

  @Test
  void limitsAreParsedWithTheirUnitAndEachMistakeIsOneLine() {
    List<String> errors = new ArrayList<>();
    assertThat(Budget.parse("a", "2_000_000 tokens", "day", true, null, errors))
        .isEqualTo(new Budget("a", 2_000_000, null, Period.DAY, true));
    assertThat(Budget.parse("a", "25.5 usd", "month", false, "USD", errors).describe()).isEqualTo("25.50 USD per month");
    assertThat(errors).isEmpty();
    assertThat(Budget.parse("a", "25 USD", "day", true, null, errors)).isNull();
    assertThat(Budget.parse("a", "25 EUR", "day", true, "USD", errors)).isNull();
    assertThat(Budget.parse("a", "1000", "day", true, null, errors)).isNull();
    assertThat(Budget.parse("a", "-3 tokens", "day", true, null, errors)).isNull();
    assertThat(Budget.parse("a", "1.5 tokens", "day", true, null, errors)).isNull();
    assertThat(Budget.parse("a", "100 tokens", "week", true, null, errors)).isNull();
    assertThat(errors).hasSize(6).allSatisfy(e -> assertThat(e).startsWith("budget of 'a': ").doesNotContain("\n"));
    assertThat(errors.get(0)).contains("needs a price table");
    assertThat(errors.get(1)).contains("neither 'tokens' nor the price table's currency USD");
    assertThat(errors.get(2)).contains("write 'N tokens'");
    assertThat(errors.get(5)).contains("'week' is not day or month");
  }
}
