package dev.tokenmeter.proxy.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.governance.Notice;
import dev.tokenmeter.governance.Period;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.TenantSpend;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The board's windows, computed by hand from requests placed on a hand-driven clock. */
class LiveBoardTest {
  /** A whole minute (and second): 2023-11-14T22:13:00Z. */
  static final long T0 = 1_700_000_000_000L - 1_700_000_000_000L % 60_000;
  static final long MS = 1_000_000L;

  final AtomicLong nowMs = new AtomicLong(T0);
  final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
  final Map<String, Integer> inFlight = new HashMap<>();

  LiveBoard board() {
    return board(LiveBoard.DEFAULT_CAPACITY);
  }

  LiveBoard board(int capacity) {
    return new LiveBoard(new LiveBoard.Setup(List.of("a", "b"), n -> inFlight.getOrDefault(n, 0), List.of(), null, 30,
        SloSource.NONE, capacity), clock);
  }

  /** A completed streamed request of tenant t on upstream u. */
  static MeteredRequest req(long startMs, String tenant, String upstream, int in, int out, long ttftMs, double tpotMs,
      double cost) {
    return MeteredRequestBuilder.chat(tenant, "m", upstream).id("r" + startMs + tenant).startedAt(startMs)
        .tokens(in, out, -1, -1).source(null)
        .times(0, ttftMs * MS, tpotMs * MS, (long) ((ttftMs + tpotMs * Math.max(0, out - 1)) * MS)).chunks(out)
        .cost(cost, Double.isNaN(cost) ? null : "USD").build();
  }

  static MeteredRequest failed(long startMs, String tenant, String upstream, ErrorClass c) {
    return MeteredRequestBuilder.chat(tenant, "m", upstream).id("f" + startMs).startedAt(startMs).failed(c, 500)
        .error("HTTP 500").finishReason(null).times(0, -1, Double.NaN, 5 * MS).build();
  }

  @Test
  void outputTokensSpreadFromTheFirstTokenToTheLastAndInputLandsWhenSent() {
    LiveBoard b = board();
    // sent at T0 + 0 (no proxy queue); first token at +0.5 s; 10 more at 100 ms each up to +1.5 s
    nowMs.set(T0 + 2_500);
    b.accept(req(T0, "acme", "a", 100, 11, 500, 100, Double.NaN));
    BoardView v = b.view(5);
    // second 0: 100 in; 1 (first token) + 5 (half of the 10 spread over [0.5, 1.5]) out; second 1: 5 out
    assertThat(v.rates().inputTokens()).isEqualTo(100);
    assertThat(v.rates().outputTokens()).isEqualTo(11);
    assertThat(v.rates().inputTps()).isCloseTo(20.0, within(1e-9));
    assertThat(v.rates().outputTps()).isCloseTo(2.2, within(1e-9));
    BoardView.Series s = v.rates().seconds();
    assertThat(s.startEpochMs()).isEqualTo(T0 - 2_000);
    assertThat(s.stepMs()).isEqualTo(1_000);
    assertThat(s.input()).containsExactly(0, 0, 100, 0, 0);
    assertThat(s.output()).usingComparatorWithPrecision(1e-9).containsExactly(0, 0, 6, 5, 0);
    // per minute since the start: one minute, 111 tokens in it, as tokens/s
    assertThat(v.rates().minutes().input()).containsExactly(100 / 60.0);
    assertThat(v.rates().minutes().output()[0]).isCloseTo(11 / 60.0, within(1e-12));
  }

  @Test
  void tokensTimedAfterTheRecordArrivedAreLeftOut() {
    LiveBoard b = board();
    nowMs.set(T0 + 999); // the clock stepped back: the record says its tokens came later
    b.accept(req(T0, "acme", "a", 100, 11, 500, 100, Double.NaN));
    nowMs.set(T0 + 2_500);
    assertThat(b.view(5).rates().seconds().output()).usingComparatorWithPrecision(1e-9).containsExactly(0, 0, 6, 0, 0);
  }

  @Test
  void aResponseWithoutFirstTokenTimeLandsWholeAtItsEnd() {
    LiveBoard b = board();
    MeteredRequest json = MeteredRequestBuilder.chat("acme", "m", "a").id("j").startedAt(T0).streamed(false).tokens(7, 9, -1, -1)
        .source(null).times(2 * MS, -1, Double.NaN, 1_500 * MS).chunks(0).build();
    nowMs.set(T0 + 3_000);
    b.accept(json);
    BoardView.Series s = b.view(4).rates().seconds(); // seconds 0 to 3, the current one last
    assertThat(s.output()).containsExactly(0, 9, 0, 0); // at T0 + 2 ms + 1500 ms: second 1
    assertThat(s.input()).containsExactly(7, 0, 0, 0);
    assertThat(b.view(3).rates().inputTokens()).isZero(); // seconds 1 to 3
  }

  @Test
  void perRequestFiguresCountTheRequestsThatStartedInTheWindow() {
    LiveBoard b = board();
    nowMs.set(T0 + 600_000);
    b.accept(req(T0 + 100_000, "acme", "a", 10, 20, 50, 10, 0.5)); // 500 s ago
    b.accept(req(T0 + 450_000, "acme", "b", 1, 2, 80, 20, 0.25)); // 150 s ago
    b.accept(req(T0 + 590_000, "zeta", "a", 3, 4, 90, 20, Double.NaN)); // 10 s ago
    b.accept(failed(T0 + 595_000, "zeta", "b", ErrorClass.HTTP_5XX));
    BoardView five = b.view(300);
    assertThat(five.windowStartEpochMs()).isEqualTo(T0 + 300_000);
    assertThat(five.requests().count()).isEqualTo(3);
    assertThat(five.requests().errors()).isEqualTo(1);
    assertThat(five.requests().truncated()).isFalse();
    assertThat(five.errorsByClass()).containsExactly(Map.entry("http_5xx", 1L));
    assertThat(five.tenants()).extracting(BoardView.TenantView::name).containsExactly("acme", "zeta");
    BoardView.TenantView acme = five.tenants().get(0);
    assertThat(acme.requests()).isEqualTo(1);
    assertThat(acme.inputTokens()).isEqualTo(1);
    assertThat(acme.outputTokens()).isEqualTo(2);
    assertThat(acme.spend()).containsExactly(Map.entry("USD", 0.25));
    BoardView.TenantView zeta = five.tenants().get(1);
    assertThat(zeta.requests()).isEqualTo(2);
    assertThat(zeta.spend()).isEmpty(); // unpriced
    assertThat(five.upstreams()).extracting(u -> u.name() + ":" + u.requests() + "/" + u.errors())
        .containsExactly("a:1/0", "b:2/1");
    BoardView fifteen = b.view(900);
    assertThat(fifteen.requests().count()).isEqualTo(4);
    assertThat(fifteen.tenants().get(0).spend().get("USD")).isCloseTo(0.75, within(1e-12));
  }

  @Test
  void percentilesAreOfCompletedRequestsOnly() {
    LiveBoard b = board();
    nowMs.set(T0 + 60_000);
    for (int i = 1; i <= 10; i++) {
      // TTFT 10, 20, ... 100 ms; TPOT 10 ms for the first five (100 tok/s), 50 ms for the rest (20 tok/s)
      b.accept(req(T0 + i * 1_000, "acme", "a", 5, 10, 10L * i, i <= 5 ? 10 : 50, Double.NaN));
    }
    b.accept(failed(T0 + 30_000, "acme", "a", ErrorClass.TIMEOUT_FIRST_TOKEN));
    BoardView v = b.view(60);
    assertThat(v.ttftMs().count()).isEqualTo(10);
    // nearest rank: p50 is the 5th of 10 (50 ms), p99 the 10th (100 ms); HdrHistogram's 3 digits: within 0.1%
    assertThat(v.ttftMs().p50()).isCloseTo(50.0, withinPercentage(0.1));
    assertThat(v.ttftMs().p99()).isCloseTo(100.0, withinPercentage(0.1));
    assertThat(v.decodeTps().count()).isEqualTo(10);
    assertThat(v.decodeTps().p50()).isCloseTo(20.0, withinPercentage(0.1));
    assertThat(v.decodeTps().p10()).isCloseTo(20.0, withinPercentage(0.1));
    assertThat(v.decodeTps().belowFluid()).isEqualTo(5); // 20 < 30
    assertThat(v.decodeTps().fluidTps()).isEqualTo(30);
    assertThat(v.errorsByClass()).containsExactly(Map.entry("timeout_first_token", 1L));
  }

  @Test
  void anEmptyWindowHasNoPercentiles() {
    BoardView v = board().view(60);
    assertThat(v.ttftMs().p50()).isNull();
    assertThat(v.decodeTps().p10()).isNull();
    assertThat(v.requests().count()).isZero();
    assertThat(v.rates().outputTps()).isZero();
    assertThat(v.slo().configured()).isFalse();
    assertThat(v.slo().objectives()).isEmpty();
  }

  @Test
  void anHourLongWindowAddsWholeMinutes() {
    LiveBoard b = board();
    b.accept(req(T0 + 30_000, "acme", "a", 60, 1, 10, Double.NaN, Double.NaN));
    nowMs.set(T0 + 3_000_000); // 50 minutes on
    b.accept(req(T0 + 2_990_000, "acme", "a", 120, 1, 10, Double.NaN, Double.NaN));
    BoardView v = b.view(3_600);
    assertThat(v.rates().inputTokens()).isEqualTo(180);
    assertThat(v.rates().inputTps()).isCloseTo(180 / 3600.0, within(1e-12));
    assertThat(v.rates().minutes().input()).hasSize(51);
    assertThat(v.rates().minutes().input()[0]).isCloseTo(1.0, within(1e-12)); // 60 tokens in minute 0
    assertThat(v.rates().seconds().input()).hasSize(900); // the per-second chart stops at 15 minutes
    assertThat(b.view(300).rates().inputTokens()).isEqualTo(120);
  }

  @Test
  void requestsOlderThanAnHourAreLetGo() {
    LiveBoard b = board();
    b.accept(req(T0, "acme", "a", 1, 1, 10, Double.NaN, Double.NaN));
    nowMs.set(T0 + 3_600_001);
    BoardView v = b.view(3_600);
    assertThat(v.requests().count()).isZero();
    assertThat(v.tenants()).isEmpty();
  }

  @Test
  void pastItsCapacityTheBoardSaysWhichRequestsItStillCovers() {
    LiveBoard b = board(3);
    nowMs.set(T0 + 10_000);
    for (int i = 0; i < 5; i++) {
      b.accept(req(T0 + i * 1_000, "acme", "a", 1, 1, 10, Double.NaN, Double.NaN));
    }
    BoardView v = b.view(60);
    assertThat(v.requests().count()).isEqualTo(3);
    assertThat(v.requests().truncated()).isTrue();
    assertThat(v.requests().coveredFromEpochMs()).isEqualTo(T0 + 1_001);
    assertThat(b.view(8).requests().truncated()).isFalse(); // from T0 + 2 s: all held
  }

  @Test
  void inFlightIsReadLiveAndUnknownUpstreamsAreListedToo() {
    LiveBoard b = board();
    inFlight.put("a", 3);
    b.accept(req(T0, "acme", "elsewhere", 1, 1, 10, Double.NaN, Double.NaN));
    nowMs.set(T0 + 1_000);
    List<BoardView.UpstreamView> ups = b.view(60).upstreams();
    assertThat(ups).extracting(u -> u.name() + "=" + u.inFlight()).containsExactly("a=3", "b=0", "elsewhere=0");
    inFlight.put("a", 0);
    assertThat(b.view(60).upstreams().get(0).inFlight()).isZero();
  }

  @Test
  void budgetsShowTheirCurrentPeriodFromTheBook() {
    Budget tokens = new Budget("acme", 1_000, null, Period.DAY, true);
    Budget idle = new Budget("quiet", 50, "USD", Period.MONTH, false);
    BudgetBook book = new BudgetBook(List.of(tokens, idle), clock, (m, i, o) -> Double.NaN,
        (t, s) -> t.equals("acme") ? new TenantSpend(200, 0) : TenantSpend.NONE, new BudgetBook.Listener() {
          @Override
          public void used(Budget x, double ratio) {}

          @Override
          public void notice(Notice n) {}
        });
    book.admit("acme", "m", 10, 90); // 100 held
    LiveBoard b = new LiveBoard(new LiveBoard.Setup(List.of("a"), n -> 0, List.of(tokens, idle), book, 30,
        SloSource.NONE, 10), clock);
    List<BoardView.TenantView> tenants = b.view(60).tenants();
    assertThat(tenants).extracting(BoardView.TenantView::name).containsExactly("acme", "quiet");
    BoardView.BudgetView acme = tenants.get(0).budgets().get(0);
    assertThat(acme.spent()).isEqualTo(200);
    assertThat(acme.reserved()).isEqualTo(100);
    assertThat(acme.ratio()).isEqualTo(0.2);
    assertThat(acme.describe()).isEqualTo("1000 tokens per day");
    assertThat(acme.enforce()).isTrue();
    assertThat(tenants.get(1).budgets().get(0).unit()).isEqualTo("USD");
    assertThat(tenants.get(1).requests()).isZero();
    assertThatThrownBy(() -> new LiveBoard.Setup(List.of(), n -> 0, List.of(tokens), null, 30, SloSource.NONE, 1))
        .hasMessageContaining("book");
  }

  @Test
  void theSloPlaceShowsWhatItsSourceGives() {
    SloRow row = new SloRow("ttft.p99<=800ms", "all", "ok", "p99 412 ms over 5m");
    SloSource source = new SloSource() {
      @Override
      public boolean configured() {
        return true;
      }

      @Override
      public List<SloRow> rows() {
        return List.of(row);
      }
    };
    LiveBoard b = new LiveBoard(new LiveBoard.Setup(List.of("a"), n -> 0, List.of(), null, 30, source, 10), clock);
    assertThat(b.view(60).slo()).isEqualTo(new BoardView.Slo(true, List.of(row)));
  }

  @Test
  void windowsOutsideOneSecondToOneHourAreRefused() {
    LiveBoard b = board();
    assertThatThrownBy(() -> b.view(0)).hasMessageContaining("1 s to 1 h");
    assertThatThrownBy(() -> b.view(3_601)).hasMessageContaining("1 s to 1 h");
  }
}
