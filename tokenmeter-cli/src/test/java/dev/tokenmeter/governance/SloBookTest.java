package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.slo.Slo;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Burn rates over rolling windows and the alerts they raise, on a ticker the test moves. */
class SloBookTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  private long now = 1_000 * SECOND; // an arbitrary origin
  private final List<SloAlert> alerts = new ArrayList<>();
  private final Map<String, Double> gauges = new HashMap<>();
  private final SloBook.Listener listener = new SloBook.Listener() {
    @Override
    public void burnRate(LiveSlo slo, BurnWindow window, double rate) {
      gauges.put(slo.name() + " " + window.label(), rate);
    }

    @Override
    public void alert(SloAlert alert) {
      alerts.add(alert);
    }
  };

  private static LiveSlo live(String spec) {
    return LiveSlo.of(Slo.parse(spec).objectives().get(0), SloScope.ALL);
  }

  private SloBook book(String... specs) {
    return new SloBook(List.of(specs).stream().map(SloBookTest::live).toList(), () -> now,
        InstantSource.fixed(Instant.parse("2026-11-25T12:00:00Z")), listener);
  }

  private void send(SloBook book, int good, int bad) {
    for (int i = 0; i < good; i++) {
      book.accept(SloRequests.ok("acme", "m", 100, 10));
    }
    for (int i = 0; i < bad; i++) {
      book.accept(SloRequests.failed("acme", "m"));
    }
  }

  private List<String> transitions() {
    return alerts.stream().map(a -> a.severity().label() + " " + a.transition().word()).toList();
  }

  @Test
  void theBurnRateIsTheBadShareOverTheBudgetInEveryWindow() {
    SloBook book = book("errors<=1%");
    send(book, 97, 3);
    // 3 bad of 100 = 0.03; budget 0.01: burn rate 3 in every window
    for (BurnWindow w : BurnWindow.values()) {
      assertThat(gauges.get("errors<=1% " + w.label())).isCloseTo(3.0, within(1e-9));
    }
    SloStatus s = book.snapshot().get(0);
    assertThat(s.sli().get("1h")).isCloseTo(0.97, within(1e-12));
    assertThat(s.requests().get("3d")).isEqualTo(100);
    assertThat(s.burnRates().keySet()).containsExactly("5m", "30m", "1h", "6h", "3d");
    assertThat(s.objective()).isEqualTo("errors <= 1%");
    assertThat(s.scope()).isEqualTo("all traffic");
    assertThat(s.state()).as("3 > 1 over 3d and 6h: a ticket").isEqualTo(SloStatus.State.TICKET);
    assertThat(transitions()).containsExactly("ticket firing");
  }

  @Test
  void aFastBurnPagesOnceAndResolvesWhenItsShortWindowsEmpty() {
    SloBook book = book("errors<=1%");
    send(book, 97, 3); // burn 3: ticket only
    now += MINUTE;
    send(book, 0, 20); // the 4th more bad one: 7 of 104 = 0.0673, burn 6.731 > 6 over 6h and 30m: page
    SloAlert page = alerts.get(1);
    assertThat(page.line()).isEqualTo("SLO alert firing (page): errors<=1%: burn rate 6.731 over 1h and 6.731 over 5m"
        + " (threshold 14.4), 6.731 over 6h and 6.731 over 30m (threshold 6); error budget 1% of requests"
        + " (share of inference requests that did not fail, client cancellations aside)");
    // all 20: 23 bad of 120 = 0.19167, burn 19.17 (> 14.4 too): still the one page
    assertThat(gauges.get("errors<=1% 5m")).isCloseTo(23.0 / 120 / 0.01, within(1e-9));
    assertThat(transitions()).containsExactly("ticket firing", "page firing");
    book.evaluate();
    book.evaluate();
    assertThat(alerts).as("once per transition").hasSize(2);

    now += 5 * MINUTE; // the 5m window is empty; 6h and 30m still burn at 19.17 > 6: still paging
    book.evaluate();
    assertThat(gauges.get("errors<=1% 5m")).isNaN();
    assertThat(alerts).hasSize(2);
    now += 25 * MINUTE; // 31 min after the bad ones: the 30m window is empty too
    book.evaluate();
    assertThat(transitions()).containsExactly("ticket firing", "page firing", "page resolved");
    assertThat(book.snapshot().get(0).state()).isEqualTo(SloStatus.State.TICKET);
    now += 6 * HOUR;
    book.evaluate();
    assertThat(transitions()).containsExactly("ticket firing", "page firing", "page resolved", "ticket resolved");
    assertThat(book.snapshot().get(0).state()).isEqualTo(SloStatus.State.OK);
    assertThat(book.snapshot().get(0).requests().get("3d")).as("the 3d window still holds them").isEqualTo(120);
  }

  @Test
  void theSlowPagePairFiresWhenTheFastPairDoesNot() {
    SloBook book = book("ttft.p90<=500ms"); // budget 10%: 14.4x is impossible, 6x needs 60% bad
    send(book, 3, 0);
    for (int i = 0; i < 7; i++) {
      book.accept(SloRequests.ok("acme", "m", 900, 10));
    }
    // the 1st slow one: 1 of 4 = burn 2.5 > 1: ticket; the 5th: 5 of 8 = 0.625 / 0.1 = burn 6.25,
    // above 6 (6h, 30m), below 14.4 (1h, 5m): page
    assertThat(alerts.get(0).line()).contains("2.5 over 3d and 2.5 over 6h (threshold 1)");
    assertThat(alerts.get(1).line()).contains("6.25 over 1h and 6.25 over 5m (threshold 14.4), 6.25 over 6h and 6.25"
        + " over 30m (threshold 6)");
    assertThat(transitions()).containsExactly("ticket firing", "page firing");
    assertThat(gauges.get("ttft.p90<=500ms 1h")).isCloseTo(7.0, within(1e-9)); // all 7 of 10
  }

  @Test
  void aWindowRollsInThirtiethsOfItsLength() {
    RollingCount c = new RollingCount(5 * MINUTE, 0);
    c.add(0, false);
    c.add(10 * SECOND, true);
    assertThat(c.total(299 * SECOND)).isEqualTo(2); // slot 29 still holds slot 0
    assertThat(c.good(299 * SECOND)).isEqualTo(1);
    assertThat(c.total(300 * SECOND)).isEqualTo(1); // slot 30: slot 0 is out
    assertThat(c.total(310 * SECOND)).isZero();
    c.add(320 * SECOND, true); // reuses slot 0's place
    assertThat(c.total(320 * SECOND)).isEqualTo(1);
    assertThat(c.total(10 * SECOND)).as("a past time sees slots 0 and 1, not 32").isEqualTo(2);
  }

  @Test
  void requestsOutOfScopeDoNotCountAndQuietWindowsFireNothing() {
    SloBook book = new SloBook(List.of(LiveSlo.of(Slo.parse("errors<=1%").objectives().get(0),
        new SloScope(null, null, "beta"))), () -> now, InstantSource.system(), listener);
    send(book, 0, 50);
    assertThat(alerts).isEmpty();
    assertThat(book.snapshot().get(0).burnRates().get("5m")).isNaN();
    assertThat(book.slos()).hasSize(1);
  }
}
