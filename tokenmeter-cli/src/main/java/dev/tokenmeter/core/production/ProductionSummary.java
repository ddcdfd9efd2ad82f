package dev.tokenmeter.core.production;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A window of production traffic summed up for {@code proxy report}: the totals, the {@link
 * InFlightCurve}, tokens and spend per tenant, and errors over time. Immutable; computed by
 * {@link #of}, rendered by the report package.
 *
 * @param since start of the window (inclusive)
 * @param until end of the window (exclusive)
 * @param tenantOrNull the one tenant asked for, or null for all
 * @param modelOrNull the one model asked for, or null for all
 * @param total every request of the window as one bin (its concurrency 0: all of them)
 * @param errorsByClass failed requests by error class wire name, sorted
 * @param curve the requests by concurrency in flight at start, and the knee
 * @param tenants one row per tenant, sorted by name
 * @param bucketSeconds length of each bucket of {@code overTime}, seconds
 * @param overTime requests and errors per bucket of time, from {@code since}, empty buckets
 *     included
 */
public record ProductionSummary(
    Instant since,
    Instant until,
    String tenantOrNull,
    String modelOrNull,
    InFlightCurve.Bin total,
    Map<String, Long> errorsByClass,
    InFlightCurve curve,
    List<TenantRow> tenants,
    long bucketSeconds,
    List<TimeBucket> overTime) {

  /** Bucket lengths for errors over time, seconds: the shortest giving at most {@value #MAX_BUCKETS}. */
  static final long[] BUCKET_SECONDS = {1, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 86_400};

  static final int MAX_BUCKETS = 120;

  public ProductionSummary {
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(until, "until");
    errorsByClass = Collections.unmodifiableMap(new TreeMap<>(errorsByClass));
    tenants = List.copyOf(tenants);
    overTime = List.copyOf(overTime);
  }

  /**
   * One tenant's traffic.
   *
   * @param tenant its name
   * @param requests its requests, failed ones included
   * @param errors failed requests
   * @param inputTokens sum of known prompt tokens
   * @param outputTokens sum of known output tokens
   * @param spend summed cost by currency code, sorted
   * @param unpriced requests without a price
   */
  public record TenantRow(
      String tenant, long requests, long errors, long inputTokens, long outputTokens, Map<String, Double> spend,
      long unpriced) {
    public TenantRow {
      spend = Collections.unmodifiableMap(new TreeMap<>(spend));
    }
  }

  /**
   * One bucket of time.
   *
   * @param startEpochMillis start of the bucket
   * @param requests requests that started in it
   * @param errorsByClass failed ones by error class wire name, sorted
   */
  public record TimeBucket(long startEpochMillis, long requests, Map<String, Long> errorsByClass) {
    public TimeBucket {
      errorsByClass = Collections.unmodifiableMap(new TreeMap<>(errorsByClass));
    }

    /** Failed requests of the bucket. */
    public long errors() {
      return errorsByClass.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * Sums up {@code requests}, all of which started in {@code [since, until)}.
   *
   * @param thresholdTps the per-user decode TPS bar of the knee, tokens/s
   * @throws IllegalArgumentException when the window is empty or backwards
   */
  public static ProductionSummary of(List<ProductionRequest> requests, Instant since, Instant until,
      String tenantOrNull, String modelOrNull, double thresholdTps) {
    if (!until.isAfter(since)) {
      throw new IllegalArgumentException("the window ends (" + until + ") before it starts (" + since + ")");
    }
    InFlightCurve.Tally all = new InFlightCurve.Tally();
    Map<String, Long> errorsByClass = new TreeMap<>();
    Map<String, Tenant> tenants = new TreeMap<>();
    long bucketSeconds = bucketSeconds(until.toEpochMilli() - since.toEpochMilli());
    long bucketMillis = bucketSeconds * 1000;
    int buckets = (int) ((until.toEpochMilli() - since.toEpochMilli() + bucketMillis - 1) / bucketMillis);
    long[] perBucket = new long[buckets];
    List<Map<String, Long>> errorsPerBucket = new ArrayList<>();
    for (int i = 0; i < buckets; i++) {
      errorsPerBucket.add(new TreeMap<>());
    }
    for (ProductionRequest r : requests) {
      all.add(r);
      tenants.computeIfAbsent(r.tenant(), t -> new Tenant()).add(r);
      int b = (int) Math.min(buckets - 1, Math.max(0, (r.startedAtEpochMillis() - since.toEpochMilli()) / bucketMillis));
      perBucket[b]++;
      if (!r.ok()) {
        errorsByClass.merge(r.errorClassOrNull(), 1L, Long::sum);
        errorsPerBucket.get(b).merge(r.errorClassOrNull(), 1L, Long::sum);
      }
    }
    List<TimeBucket> overTime = new ArrayList<>(buckets);
    for (int i = 0; i < buckets; i++) {
      overTime.add(new TimeBucket(since.toEpochMilli() + i * bucketMillis, perBucket[i], errorsPerBucket.get(i)));
    }
    List<TenantRow> rows = new ArrayList<>();
    tenants.forEach((name, t) -> rows.add(t.row(name)));
    return new ProductionSummary(since, until, tenantOrNull, modelOrNull, all.bin(0), errorsByClass,
        InFlightCurve.of(requests, thresholdTps), rows, bucketSeconds, overTime);
  }

  /** The shortest of {@link #BUCKET_SECONDS} that cuts {@code windowMillis} into at most 120 buckets. */
  static long bucketSeconds(long windowMillis) {
    for (long s : BUCKET_SECONDS) {
      if (windowMillis <= s * 1000 * MAX_BUCKETS) {
        return s;
      }
    }
    return BUCKET_SECONDS[BUCKET_SECONDS.length - 1] * ((windowMillis / 1000 / 86_400 + MAX_BUCKETS - 1) / MAX_BUCKETS);
  }

  /** One tenant's sums; single-threaded. */
  private static final class Tenant {
    private long requests;
    private long errors;
    private long input;
    private long output;
    private final Map<String, Double> spend = new TreeMap<>();
    private long unpriced;

    void add(ProductionRequest r) {
      requests++;
      errors += r.ok() ? 0 : 1;
      input += Math.max(0, r.inputTokens());
      output += Math.max(0, r.outputTokens());
      if (Double.isNaN(r.cost())) {
        unpriced++;
      } else {
        spend.merge(r.currencyOrNull() == null ? "" : r.currencyOrNull(), r.cost(), Double::sum);
      }
    }

    TenantRow row(String name) {
      return new TenantRow(name, requests, errors, input, output, spend, unpriced);
    }
  }
}
