package dev.tokenmeter.governance;

import dev.tokenmeter.ledger.TenantSpend;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The tenants' budgets and what each has spent and holds in flight in its current period.
 *
 * <p>Race-free accounting: {@link #admit} reserves a request's worst case (its prompt estimate
 * plus its output limit, priced for a money budget) under one lock, and refuses it when an
 * enforced budget's {@code spent + reserved + worst case} would pass the limit; {@link Hold#settle}
 * replaces the reservation with the metered truth. The settled spend of a period therefore passes
 * the limit by at most the sum, over the requests admitted, of what each used beyond its
 * reservation: zero when every estimate is an upper bound.
 *
 * <p>A period rolls over at the first admission or settlement after it ends (UTC midnight, or the
 * month's first day): spend, reservations and notices start again from zero, and a hold taken in
 * the old period settles into it (gone), as the ledger counts a request in the period it started.
 *
 * <p><b>A fleet.</b> A budget's spend is this proxy's settlements plus what the rest of the fleet
 * spent, as last read from the ledger: at start (everything in the ledger), then by {@link
 * BudgetSync} through {@link #toRead} and {@link #others}, which replace that part and never add to
 * it. Reads happen off the lock; applying one takes it briefly.
 *
 * <p>Thread-safe; the listener is called under the lock and must not block.
 */
public final class BudgetBook {
  /** The thresholds a notice is raised at, in percent of the limit, once each per period. */
  static final int[] THRESHOLDS = {50, 80, 100};

  /** Prices a request; NaN when its model is not in the price table. */
  @FunctionalInterface
  public interface Pricer {
    double cost(String model, long inputTokens, long outputTokens);
  }

  /** What the book tells: each budget's use after a change, and each notice. */
  public interface Listener {
    void used(Budget budget, double ratio);

    void notice(Notice notice);
  }

  /** What came of an admission. */
  public sealed interface Admission {
    /** Let it through; settle {@code hold} when it ends. */
    record Admitted(Hold hold) implements Admission {}

    /** Refuse it: {@code budget} would pass its limit. */
    record Refused(Budget budget, double used, double asked, Instant now, Instant resetsAt) implements Admission {
      /** One sentence for the client, naming the tenant, the budget and the reset time. */
      public String message() {
        return "tokenmeter proxy: tenant '" + budget.tenant() + "' has used " + budget.amount(used) + " of its "
            + budget.describe() + " budget, and this request may need up to " + budget.amount(asked)
            + " more. The budget resets at " + resetsAt + ".";
      }

      /** Whole seconds until the reset, at least 1: the {@code Retry-After} header. */
      public long retryAfterSeconds() {
        long millis = Duration.between(now, resetsAt).toMillis();
        return Math.max(1, (millis + 999) / 1000);
      }
    }
  }

  private static final class Account {
    final Budget budget;
    Instant start;
    Instant end;
    /** Settled by this proxy in the period. */
    double spent;
    /** Spent by the rest of the fleet in the period, as last read from the ledger. */
    double others;
    double reserved;
    int noticed;

    Account(Budget budget) {
      this.budget = budget;
    }

    /** Spent in the period by the whole fleet, as far as this proxy knows. */
    double used() {
      return spent + others;
    }
  }

  private static double amount(Budget b, TenantSpend s) {
    return b.money() ? s.cost() : s.tokens();
  }

  private final Map<String, List<Account>> byTenant = new HashMap<>();
  private final InstantSource clock;
  private final Pricer pricer;
  private final Listener listener;

  /** A budget's current period, whose spend by the rest of the fleet is to be read from the ledger. */
  public record Reading(Budget budget, Instant since) {}

  /**
   * A book whose spend so far in each budget's current period is read from {@code spentSince}
   * (the ledger: at start, all of it is the rest of the fleet's); thresholds already passed then
   * count as noticed.
   */
  public BudgetBook(List<Budget> budgets, InstantSource clock, Pricer pricer,
      java.util.function.BiFunction<String, Instant, TenantSpend> spentSince, Listener listener) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.pricer = Objects.requireNonNull(pricer, "pricer");
    this.listener = Objects.requireNonNull(listener, "listener");
    Instant now = clock.instant();
    for (Budget b : budgets) {
      Account a = new Account(b);
      a.start = b.period().start(now);
      a.end = b.period().next(now);
      a.others = amount(b, spentSince.apply(b.tenant(), a.start));
      while (a.noticed < THRESHOLDS.length && a.used() * 100 >= THRESHOLDS[a.noticed] * b.limit()) {
        a.noticed++;
      }
      byTenant.computeIfAbsent(b.tenant(), t -> new ArrayList<>()).add(a);
      listener.used(b, a.used() / b.limit());
    }
  }

  /** Whether {@code tenant} has any budget. */
  public boolean governs(String tenant) {
    return byTenant.containsKey(tenant);
  }

  /**
   * Reserves a request's worst case in each of {@code tenant}'s budgets, or refuses it when an
   * enforced one would pass its limit (then nothing is reserved).
   *
   * @param promptTokens the estimate of its input tokens
   * @param maxOutputTokens its output limit
   */
  public synchronized Admission admit(String tenant, String model, long promptTokens, long maxOutputTokens) {
    List<Account> accounts = byTenant.get(tenant);
    if (accounts == null) {
      return new Admission.Admitted(Hold.NONE);
    }
    Instant now = clock.instant();
    double[] asks = new double[accounts.size()];
    for (int i = 0; i < asks.length; i++) {
      Account a = accounts.get(i);
      roll(a, now);
      asks[i] = worstCase(a.budget, model, promptTokens, maxOutputTokens);
      if (a.budget.enforce() && (a.used() + a.reserved + asks[i] > a.budget.limit() || a.used() >= a.budget.limit())) {
        return new Admission.Refused(a.budget, a.used() + a.reserved, asks[i], now, a.end);
      }
    }
    Instant[] starts = new Instant[asks.length];
    for (int i = 0; i < asks.length; i++) {
      accounts.get(i).reserved += asks[i];
      starts[i] = accounts.get(i).start;
    }
    return new Admission.Admitted(new Hold(this, accounts, asks, starts));
  }

  private double worstCase(Budget b, String model, long promptTokens, long maxOutputTokens) {
    if (!b.money()) {
      return promptTokens + maxOutputTokens;
    }
    double cost = pricer.cost(model, promptTokens, maxOutputTokens);
    return Double.isNaN(cost) ? 0 : cost; // unpriced: its cost is unknown, as in the ledger
  }

  private void roll(Account a, Instant now) {
    if (now.isBefore(a.end)) {
      return;
    }
    a.start = a.budget.period().start(now);
    a.end = a.budget.period().next(now);
    a.spent = 0;
    a.others = 0;
    a.reserved = 0;
    a.noticed = 0;
    listener.used(a.budget, 0);
  }

  private synchronized void settle(Hold h, double[] amounts) {
    Instant now = clock.instant();
    for (int i = 0; i < h.accounts.size(); i++) {
      Account a = h.accounts.get(i);
      roll(a, now);
      if (!a.start.equals(h.starts[i])) {
        continue; // taken in a period that has ended
      }
      a.reserved -= h.asks[i];
      a.spent += amounts[i];
      changed(a, now);
    }
  }

  /** Tells the listener an account's use, and each threshold it passed. */
  private void changed(Account a, Instant now) {
    Budget b = a.budget;
    listener.used(b, a.used() / b.limit());
    while (a.noticed < THRESHOLDS.length && a.used() * 100 >= THRESHOLDS[a.noticed] * b.limit()) {
      listener.notice(new Notice(b, THRESHOLDS[a.noticed], a.used(), now, a.end));
      a.noticed++;
    }
  }

  /** Every budget's current period, for reading the rest of the fleet's spend in it. */
  public synchronized List<Reading> toRead() {
    Instant now = clock.instant();
    List<Reading> out = new ArrayList<>();
    for (List<Account> accounts : byTenant.values()) {
      for (Account a : accounts) {
        roll(a, now);
        out.add(new Reading(a.budget, a.start));
      }
    }
    return out;
  }

  /**
   * Sets what the rest of the fleet spent in {@code reading}'s period (it replaces the last value);
   * ignored, and false, when that period has ended meanwhile. Notices thresholds passed.
   */
  public synchronized boolean others(Reading reading, TenantSpend spend) {
    Instant now = clock.instant();
    Account a = account(reading.budget());
    roll(a, now);
    if (!a.start.equals(reading.since())) {
      return false;
    }
    a.others = amount(a.budget, spend);
    changed(a, now);
    return true;
  }

  /** Spent in {@code budget}'s current period so far: settled here, plus the rest of the fleet as last read. */
  public synchronized double spent(Budget budget) {
    return account(budget).used();
  }

  /** The rest of the fleet's part of {@link #spent}, as last read from the ledger. */
  public synchronized double others(Budget budget) {
    return account(budget).others;
  }

  /** Reserved in {@code budget}'s current period by requests in flight. */
  public synchronized double reserved(Budget budget) {
    return account(budget).reserved;
  }

  private Account account(Budget budget) {
    for (Account a : byTenant.getOrDefault(budget.tenant(), List.of())) {
      if (a.budget.equals(budget)) {
        roll(a, clock.instant());
        return a;
      }
    }
    throw new IllegalArgumentException("not a budget of this book: " + budget);
  }

  /** A request's reservation, settled once: the first call of {@link #settle} or {@link #keep} counts. */
  public static final class Hold {
    /** The hold of a tenant without budgets: settling it does nothing. */
    public static final Hold NONE = new Hold(null, List.of(), new double[0], new Instant[0]);

    private final BudgetBook book;
    private final List<Account> accounts;
    private final double[] asks;
    private final Instant[] starts;
    private final java.util.concurrent.atomic.AtomicBoolean settled = new java.util.concurrent.atomic.AtomicBoolean();

    private Hold(BudgetBook book, List<Account> accounts, double[] asks, Instant[] starts) {
      this.book = book;
      this.accounts = accounts;
      this.asks = asks;
      this.starts = starts;
    }

    /**
     * Replaces the reservation with what the request used: its tokens in and out ({@code -1}:
     * unknown, then the reservation counts) and its cost (NaN: unknown, then the reservation counts).
     */
    public void settle(long inputTokens, long outputTokens, double cost) {
      if (book == null || !settled.compareAndSet(false, true)) {
        return;
      }
      double[] used = new double[asks.length];
      for (int i = 0; i < used.length; i++) {
        boolean money = accounts.get(i).budget.money();
        boolean known = money ? !Double.isNaN(cost) : inputTokens >= 0 && outputTokens >= 0;
        used[i] = !known ? asks[i] : money ? cost : inputTokens + outputTokens;
      }
      book.settle(this, used);
    }

    /** Counts the whole reservation as spent: the request's record was lost. */
    public void keep() {
      if (book == null || !settled.compareAndSet(false, true)) {
        return;
      }
      book.settle(this, asks.clone());
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "Hold%s", java.util.Arrays.toString(asks));
    }
  }
}
