package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.TenantSpend;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Reading the rest of a fleet's spend: one query per tenant and period, outages, and a fleet's bound. */
class BudgetSyncTest {
  private static final BudgetBook.Pricer PRICER = (model, in, out) -> (in + out) / 1000.0;
  private static final BudgetBook.Listener QUIET = new BudgetBook.Listener() {
    @Override
    public void used(Budget budget, double ratio) {}

    @Override
    public void notice(Notice notice) {}
  };

  @Test
  void readsOncePerTenantAndPeriodAndHandsEveryBudgetItsValue() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    Budget tokensDay = new Budget("acme", 1000, null, Period.DAY, true);
    Budget usdDay = new Budget("acme", 10, "USD", Period.DAY, true);
    Budget usdMonth = new Budget("acme", 100, "USD", Period.MONTH, false);
    Budget other = new Budget("zeta", 50, null, Period.DAY, true);
    BudgetBook book = new BudgetBook(List.of(tokensDay, usdDay, usdMonth, other), clock, PRICER,
        (t, since) -> TenantSpend.NONE, QUIET);
    List<String> asked = new ArrayList<>();
    BudgetSync sync = new BudgetSync(book, (tenant, since) -> {
      asked.add(tenant + "@" + since);
      return since.equals(Instant.parse("2026-11-01T00:00:00Z")) ? new TenantSpend(9000, 42.5)
          : tenant.equals("acme") ? new TenantSpend(700, 3.25) : new TenantSpend(20, 0);
    }, line -> {}, () -> 0);
    assertThat(sync.syncOnce()).isTrue();
    assertThat(asked).containsExactlyInAnyOrder("acme@2026-11-25T00:00:00Z", "acme@2026-11-01T00:00:00Z",
        "zeta@2026-11-25T00:00:00Z");
    assertThat(book.others(tokensDay)).isEqualTo(700);
    assertThat(book.others(usdDay)).isEqualTo(3.25);
    assertThat(book.others(usdMonth)).isEqualTo(42.5);
    assertThat(book.others(other)).isEqualTo(20);
  }

  @Test
  void aFailedReadKeepsTheLastValuesAndAnOutageIsOneLineAtEachEnd() {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    Budget day = new Budget("acme", 1000, null, Period.DAY, true);
    BudgetBook book = new BudgetBook(List.of(day), clock, PRICER, (t, since) -> new TenantSpend(100, 0), QUIET);
    AtomicLong nanos = new AtomicLong();
    Deque<Object> answers = new ArrayDeque<>(List.<Object>of(new TenantSpend(300, 0),
        new IllegalStateException("cannot read the ledger jdbc:postgresql://db/x: Connection refused"),
        new IllegalStateException("cannot read the ledger jdbc:postgresql://db/x: Connection refused"),
        new IllegalStateException("cannot read the ledger jdbc:postgresql://db/x: timeout"), new TenantSpend(450, 0)));
    List<String> log = new ArrayList<>();
    BudgetSync sync = new BudgetSync(book, (tenant, since) -> {
      Object next = answers.poll();
      if (next instanceof RuntimeException e) {
        throw e;
      }
      return (TenantSpend) next;
    }, log::add, nanos::get);
    assertThat(sync.syncOnce()).isTrue();
    assertThat(book.others(day)).isEqualTo(300);
    for (int i = 0; i < 3; i++) {
      nanos.addAndGet(1_000_000_000L);
      assertThat(sync.syncOnce()).isFalse();
      assertThat(book.others(day)).as("the last value read is kept").isEqualTo(300);
    }
    assertThat(sync.failures()).isEqualTo(3);
    assertThat(log).containsExactly("budgets cannot read the rest of the fleet's spend from the ledger (cannot read"
        + " the ledger jdbc:postgresql://db/x: Connection refused); they keep the last values read, add this proxy's"
        + " own spend, and retry every interval (tokenmeter_proxy_budget_sync_failures_total)");
    nanos.addAndGet(1_000_000_000L);
    assertThat(sync.syncOnce()).isTrue();
    assertThat(book.others(day)).isEqualTo(450);
    assertThat(log).hasSize(2);
    assertThat(log.get(1)).isEqualTo("budgets read the rest of the fleet's spend again after about 3 s");
  }

  /**
   * Two proxies of a fleet, one enforced budget, in steps: each proxy is offered one request a step
   * (reserves 100, uses 100), which ends {@code FLIGHT} steps later, when its row is committed. With
   * a read every {@code EVERY} steps, the fleet's spend passes the limit by at most what one proxy
   * could not see at its last admission: the other's requests in flight ({@code FLIGHT}) and
   * settled since its last read ({@code EVERY}), 100 each. Without reads each proxy spends the
   * whole limit on its own.
   */
  @Test
  void aFleetOfTwoPassesTheLimitByAtMostWhatOneCouldNotSeeAndByFarMoreWithoutReads() {
    int limit = 10_000;
    int flight = 3;
    int every = 2;
    long synced = fleetSpend(limit, flight, every);
    assertThat(synced).isLessThanOrEqualTo(limit + (flight + every) * 100L).isGreaterThan(limit - 2 * 100L * flight);
    long blind = fleetSpend(limit, flight, Integer.MAX_VALUE);
    assertThat(blind).isEqualTo(2L * limit);
  }

  /** The fleet's settled spend after 400 steps, reading the other's spend every {@code every} steps. */
  private static long fleetSpend(int limit, int flight, int every) {
    FakeClock clock = new FakeClock("2026-11-25T10:00:00Z");
    Budget day = new Budget("acme", limit, null, Period.DAY, true);
    long[] committed = new long[2]; // the ledger: each proxy's committed rows
    List<BudgetBook> books = new ArrayList<>();
    List<BudgetSync> syncs = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      int other = 1 - p;
      BudgetBook book = new BudgetBook(List.of(day), clock, PRICER, (t, since) -> new TenantSpend(committed[other], 0),
          QUIET);
      books.add(book);
      syncs.add(new BudgetSync(book, (t, since) -> new TenantSpend(committed[other], 0), line -> {}, () -> 0));
    }
    List<Deque<BudgetBook.Hold>> inFlight = List.of(new ArrayDeque<>(), new ArrayDeque<>());
    List<Deque<Integer>> endsAt = List.of(new ArrayDeque<>(), new ArrayDeque<>());
    for (int step = 0; step < 400; step++) {
      for (int p = 0; p < 2; p++) {
        while (!endsAt.get(p).isEmpty() && endsAt.get(p).peek() <= step) {
          endsAt.get(p).poll();
          inFlight.get(p).poll().settle(50, 50, 0);
          committed[p] += 100;
        }
        if (step % every == (p == 0 ? 0 : every / 2)) {
          syncs.get(p).syncOnce();
        }
        if (books.get(p).admit("acme", "m", 50, 50) instanceof BudgetBook.Admission.Admitted a) {
          inFlight.get(p).add(a.hold());
          endsAt.get(p).add(step + flight);
        }
      }
    }
    return committed[0] + committed[1];
  }
}
