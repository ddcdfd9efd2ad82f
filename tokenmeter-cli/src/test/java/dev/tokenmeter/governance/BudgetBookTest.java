package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.TenantSpend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Budgets with a fake clock: reservation and settlement, refusals, roll-over, notices once. */
class BudgetBookTest {
  private static final Budget DAY = new Budget("acme", 1000, null, Period.DAY, true);
  private static final Budget MONTH_USD = new Budget("acme", 10, "USD", Period.MONTH, true);

  private final List<Notice> notices = new CopyOnWriteArrayList<>();
  private final Map<String, Double> gauge = new ConcurrentHashMap<>();
  private final BudgetBook.Listener listener = new BudgetBook.Listener() {
    @Override
    public void used(Budget b, double ratio) {
      gauge.put(b.tenant() + "/" + b.unit(), ratio);
    }

    @Override
    public void notice(Notice n) {
      notices.add(n);
    }
  };
  /** $1 per 1k tokens in, $2 per 1k out. */
  private static final BudgetBook.Pricer PRICER = (model, in, out) -> "m".equals(model) ? in / 1000.0 + out * 2 / 1000.0 : Double.NaN;

  private BudgetBook book(FakeClock clock, TenantSpend start, Budget... budgets) {
    return new BudgetBook(List.of(budgets), clock, PRICER, (t, since) -> start, listener);
  }

  private static BudgetBook.Hold admitted(BudgetBook.Admission a) {
    assertThat(a).isInstanceOf(BudgetBook.Admission.Admitted.class);
    return ((BudgetBook.Admission.Admitted) a).hold();
  }

  @Test
  void aReservationHoldsTheWorstCaseUntilSettledWithTheTruth() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    BudgetBook b = book(clock, TenantSpend.NONE, DAY);
    BudgetBook.Hold h = admitted(b.admit("acme", "m", 100, 300));
    assertThat(b.reserved(DAY)).isEqualTo(400);
    assertThat(b.spent(DAY)).isZero();
    h.settle(90, 120, 0.33);
    assertThat(b.reserved(DAY)).isZero();
    assertThat(b.spent(DAY)).isEqualTo(210);
    h.settle(1000, 1000, 1); // settled once: a second settlement is ignored
    h.keep();
    assertThat(b.spent(DAY)).isEqualTo(210);
    assertThat(gauge.get("acme/tokens")).isEqualTo(0.21);
  }

  @Test
  void unknownCountsKeepTheReservationAndALostRecordKeepsItAll() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    BudgetBook b = book(clock, TenantSpend.NONE, DAY, MONTH_USD);
    admitted(b.admit("acme", "m", 100, 100)).settle(-1, 50, Double.NaN);
    assertThat(b.spent(DAY)).isEqualTo(200);
    assertThat(b.spent(MONTH_USD)).isCloseTo(0.3, org.assertj.core.data.Offset.offset(1e-12));
    admitted(b.admit("acme", "m", 10, 10)).keep();
    assertThat(b.spent(DAY)).isEqualTo(220);
    assertThat(b.reserved(DAY)).isZero();
    assertThat(b.reserved(MONTH_USD)).isZero();
  }

  @Test
  void aRequestThatWouldPassAnEnforcedLimitIsRefusedWithTheResetTime() {
    FakeClock clock = new FakeClock("2026-11-25T23:59:30Z");
    BudgetBook b = book(clock, new TenantSpend(700, 0), DAY);
    BudgetBook.Hold h = admitted(b.admit("acme", "m", 100, 150)); // 950 of 1000 held or spent
    var refused = (BudgetBook.Admission.Refused) b.admit("acme", "m", 20, 40);
    assertThat(refused.budget()).isEqualTo(DAY);
    assertThat(refused.used()).isEqualTo(950);
    assertThat(refused.asked()).isEqualTo(60);
    assertThat(refused.resetsAt()).isEqualTo(Instant.parse("2026-11-26T00:00:00Z"));
    assertThat(refused.retryAfterSeconds()).isEqualTo(30);
    assertThat(refused.message()).contains("tenant 'acme'", "950 tokens of its 1000 tokens per day budget",
        "up to 60 tokens", "resets at 2026-11-26T00:00:00Z");
    assertThat(b.reserved(DAY)).isEqualTo(250); // the refusal reserved nothing
    h.settle(100, 10, 0);
    admitted(b.admit("acme", "m", 20, 40)); // the release made room
    admitted(b.admit("other", "m", 1_000_000, 1)); // a tenant without budget is never refused
  }

  @Test
  void anUnenforcedBudgetOnlyNotices() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    Budget soft = new Budget("acme", 100, null, Period.DAY, false);
    BudgetBook b = book(clock, TenantSpend.NONE, soft);
    admitted(b.admit("acme", "m", 500, 500)).settle(400, 400, 0);
    admitted(b.admit("acme", "m", 1, 1)).settle(1, 1, 0);
    assertThat(b.spent(soft)).isEqualTo(802);
    assertThat(notices).extracting(Notice::percent).containsExactly(50, 80, 100);
  }

  @Test
  void noticesAt50And80And100OncePerPeriodAndAgainInTheNext() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    BudgetBook b = book(clock, TenantSpend.NONE, DAY);
    admitted(b.admit("acme", "m", 0, 499)).settle(0, 499, 0);
    assertThat(notices).isEmpty();
    admitted(b.admit("acme", "m", 0, 1)).settle(0, 1, 0);
    assertThat(notices).extracting(Notice::percent).containsExactly(50);
    admitted(b.admit("acme", "m", 0, 10)).settle(0, 10, 0);
    assertThat(notices).hasSize(1);
    admitted(b.admit("acme", "m", 0, 490)).settle(0, 490, 0); // 1000: passes 80 and 100 at once
    assertThat(notices).extracting(Notice::percent).containsExactly(50, 80, 100);
    Notice last = notices.get(2);
    assertThat(last.used()).isEqualTo(1000);
    assertThat(last.resetsAt()).isEqualTo(Instant.parse("2026-11-26T00:00:00Z"));
    assertThat(last.line()).contains("tenant 'acme' reached 100% of its 1000 tokens per day budget (1000 tokens used)");
    assertThat(b.admit("acme", "m", 0, 0)).isInstanceOf(BudgetBook.Admission.Refused.class); // full

    clock.set("2026-11-26T00:00:00Z"); // UTC midnight: a new period
    admitted(b.admit("acme", "m", 0, 600)).settle(0, 600, 0);
    assertThat(notices).extracting(Notice::percent).containsExactly(50, 80, 100, 50);
    assertThat(b.spent(DAY)).isEqualTo(600);
  }

  @Test
  void aHoldFromAnEndedPeriodSettlesIntoIt() {
    FakeClock clock = new FakeClock("2026-11-30T23:59:59Z");
    BudgetBook b = book(clock, TenantSpend.NONE, DAY, MONTH_USD);
    BudgetBook.Hold h = admitted(b.admit("acme", "m", 100, 100));
    clock.set("2026-12-01T00:00:01Z"); // a new day and a new month
    assertThat(b.reserved(DAY)).isZero();
    assertThat(b.reserved(MONTH_USD)).isZero();
    h.settle(100, 100, 0.3);
    assertThat(b.spent(DAY)).isZero();
    assertThat(b.spent(MONTH_USD)).isZero();
    assertThat(gauge.get("acme/tokens")).isZero();
  }

  @Test
  void theSpendSoFarComesFromTheLedgerAndPassedThresholdsAreNotRepeated() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    List<Instant> asked = new ArrayList<>();
    BudgetBook b = new BudgetBook(List.of(DAY, MONTH_USD), clock, PRICER, (t, since) -> {
      asked.add(since);
      return new TenantSpend(850, 2.5);
    }, listener);
    assertThat(asked).containsExactly(Instant.parse("2026-11-25T00:00:00Z"), Instant.parse("2026-11-01T00:00:00Z"));
    assertThat(b.spent(DAY)).isEqualTo(850);
    assertThat(b.spent(MONTH_USD)).isEqualTo(2.5);
    assertThat(gauge.get("acme/tokens")).isEqualTo(0.85);
    admitted(b.admit("acme", "m", 0, 10)).settle(0, 10, 0.02);
    assertThat(notices).isEmpty(); // 50 and 80 were passed before the restart
  }

  @Test
  void theRestOfTheFleetsSpendReplacesItsLastValueAndCountsAtAdmission() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    BudgetBook b = book(clock, new TenantSpend(300, 0), DAY);
    assertThat(b.others(DAY)).isEqualTo(300);
    admitted(b.admit("acme", "m", 50, 50)).settle(50, 50, 0); // this proxy's own: 100
    assertThat(b.spent(DAY)).isEqualTo(400);
    BudgetBook.Reading r = b.toRead().getFirst();
    assertThat(r).isEqualTo(new BudgetBook.Reading(DAY, Instant.parse("2026-11-25T00:00:00Z")));
    assertThat(b.others(r, new TenantSpend(500, 0))).isTrue();
    assertThat(b.spent(DAY)).isEqualTo(600); // 500 replaces 300; this proxy's 100 stays
    assertThat(notices).extracting(Notice::percent).containsExactly(50); // the fleet passed 50%
    assertThat(gauge.get("acme/tokens")).isEqualTo(0.6);
    BudgetBook.Hold h = admitted(b.admit("acme", "m", 100, 200)); // 600 + 300 = 900
    b.others(r, new TenantSpend(650, 0)); // the others spent 150 more meanwhile: 750 + 300 held
    var refused = (BudgetBook.Admission.Refused) b.admit("acme", "m", 0, 1);
    assertThat(refused.used()).isEqualTo(1050);
    h.settle(100, 100, 0);
    assertThat(b.spent(DAY)).isEqualTo(950);
    assertThat(notices).extracting(Notice::percent).containsExactly(50, 80);
    assertThat(b.others(DAY)).isEqualTo(650);
  }

  @Test
  void aReadingOfAnEndedPeriodIsIgnoredAndARollOverForgetsTheOthers() {
    FakeClock clock = new FakeClock("2026-11-25T23:59:59Z");
    BudgetBook b = book(clock, new TenantSpend(900, 0), DAY);
    BudgetBook.Reading yesterday = b.toRead().getFirst();
    clock.set("2026-11-26T00:00:01Z");
    assertThat(b.others(yesterday, new TenantSpend(950, 0))).isFalse();
    assertThat(b.spent(DAY)).isZero();
    assertThat(b.others(DAY)).isZero();
    assertThat(b.toRead()).containsExactly(new BudgetBook.Reading(DAY, Instant.parse("2026-11-26T00:00:00Z")));
  }

  @Test
  void aMoneyBudgetReservesTheWorstCasePriceAndUnpricedModelsCountNothing() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    BudgetBook b = book(clock, TenantSpend.NONE, MONTH_USD);
    admitted(b.admit("acme", "m", 1000, 2000)); // $1 + $4
    assertThat(b.reserved(MONTH_USD)).isEqualTo(5.0);
    assertThat(b.admit("acme", "m", 1000, 2500)).isInstanceOf(BudgetBook.Admission.Refused.class); // 5 + 6 > 10
    admitted(b.admit("acme", "unpriced", 1_000_000, 1_000_000)).settle(5, 5, Double.NaN);
    assertThat(b.spent(MONTH_USD)).isZero();
  }

  /**
   * Many threads at the edge: each request reserves 100 and uses between 50 and 100 (its estimate
   * is an upper bound), so the settled spend never passes the limit; requests that use 20 more than
   * they reserved pass it by at most 20 × the requests in flight when the limit was reached.
   */
  @Test
  void concurrentRequestsAtTheEdgeOvershootByAtMostTheEstimateErrorInFlight() throws Exception {
    for (int error : new int[] {0, 20}) {
      FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
      Budget budget = new Budget("acme", 10_000, null, Period.DAY, true);
      BudgetBook b = book(clock, TenantSpend.NONE, budget);
      int threads = 16;
      AtomicInteger admittedCount = new AtomicInteger();
      AtomicInteger maxInFlight = new AtomicInteger();
      AtomicInteger inFlight = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      for (int t = 0; t < threads; t++) {
        int seed = t;
        pool.execute(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int i = 0; i < 200; i++) {
            if (b.admit("acme", "m", 40, 60) instanceof BudgetBook.Admission.Admitted a) {
              admittedCount.incrementAndGet();
              maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              Thread.yield();
              int used = 50 + (seed * 7 + i) % 51 + error; // 50..100, plus the estimate's error
              inFlight.decrementAndGet();
              a.hold().settle(40, used - 40, 0);
            }
          }
        });
      }
      go.countDown();
      pool.shutdown();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      assertThat(admittedCount.get()).isLessThan(threads * 200); // the edge was reached
      assertThat(b.reserved(budget)).isZero();
      double spent = b.spent(budget);
      assertThat(spent).as("error %d", error).isLessThanOrEqualTo(10_000 + (double) error * threads);
      if (error == 0) {
        assertThat(spent).isLessThanOrEqualTo(10_000).isGreaterThan(10_000 - 100 * threads - 100);
      }
    }
  }
}
