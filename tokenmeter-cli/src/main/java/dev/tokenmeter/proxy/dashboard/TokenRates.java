package dev.tokenmeter.proxy.dashboard;

import dev.tokenmeter.ledger.MeteredRequest;

/**
 * Tokens in and out per wall-clock second (the last 15 minutes) and per minute (the last 24 hours),
 * from finished requests: bounded rings of buckets, 900 and 1,440 of them, whatever the traffic.
 *
 * <p>Where a request's tokens land: its input tokens at the moment it was sent upstream; its output
 * tokens at their arrival, the first at the first token and the other {@code n − 1} spread evenly
 * from the first token to the last ({@code firstToken + TPOT × (n − 1)}), since the record keeps
 * the request's TPOT and not each token's time. A response whose first token time is unknown (a
 * plain JSON body) lands whole at its end. A bucket therefore fills in after the fact, as the
 * requests that streamed through it end.
 *
 * <p>Not thread-safe: {@link LiveBoard} serialises access.
 */
final class TokenRates {
  /** 900 per-second buckets: 15 minutes. */
  static final int SECOND_BUCKETS = 900;
  /** 1,440 per-minute buckets: 24 hours. */
  static final int MINUTE_BUCKETS = 1_440;
  static final long SECOND_MILLIS = 1_000;
  static final long MINUTE_MILLIS = 60_000;

  final Ring seconds = new Ring(SECOND_BUCKETS, SECOND_MILLIS);
  final Ring minutes = new Ring(MINUTE_BUCKETS, MINUTE_MILLIS);

  /** Adds {@code r}'s tokens; parts older than a ring's reach are left out of that ring. */
  void add(MeteredRequest r, long nowMillis) {
    double sentMs = r.startedAtEpochMillis() + Math.max(0, r.proxyQueueNanos()) / 1e6;
    if (r.inputTokens() > 0) {
      spread(sentMs, sentMs, r.inputTokens(), true, nowMillis);
    }
    int n = r.outputTokens();
    if (n <= 0) {
      return;
    }
    if (r.ttftNanos() < 0) {
      double endMs = sentMs + Math.max(0, r.e2eNanos()) / 1e6;
      spread(endMs, endMs, n, false, nowMillis);
      return;
    }
    double firstMs = sentMs + r.ttftNanos() / 1e6;
    boolean paced = n >= 2 && Double.isFinite(r.tpotNanos()) && r.tpotNanos() > 0;
    double lastMs = paced ? firstMs + r.tpotNanos() * (n - 1) / 1e6 : firstMs;
    spread(firstMs, firstMs, 1, false, nowMillis);
    spread(firstMs, lastMs, n - 1, false, nowMillis);
  }

  private void spread(double fromMs, double toMs, double tokens, boolean input, long nowMillis) {
    seconds.spread(fromMs, toMs, tokens, input, nowMillis);
    minutes.spread(fromMs, toMs, tokens, input, nowMillis);
  }

  /** One ring of equal buckets, keyed by bucket number ({@code epochMillis / bucketMillis}). */
  static final class Ring {
    final int slots;
    final long bucketMillis;
    private final long[] key;
    private final double[] in;
    private final double[] out;

    Ring(int slots, long bucketMillis) {
      this.slots = slots;
      this.bucketMillis = bucketMillis;
      this.key = new long[slots];
      this.in = new double[slots];
      this.out = new double[slots];
      java.util.Arrays.fill(key, Long.MIN_VALUE);
    }

    long bucketOf(long epochMillis) {
      return Math.floorDiv(epochMillis, bucketMillis);
    }

    /**
     * Adds {@code tokens} spread evenly over {@code [fromMs, toMs]} (all in one bucket when the two
     * are equal); the share of buckets outside the ring's reach, or after now, is left out.
     */
    void spread(double fromMs, double toMs, double tokens, boolean input, long nowMillis) {
      if (tokens <= 0) {
        return;
      }
      long now = bucketOf(nowMillis);
      long first = (long) Math.floor(fromMs / bucketMillis);
      long last = (long) Math.floor(toMs / bucketMillis);
      double span = toMs - fromMs;
      for (long b = Math.max(first, now - slots + 1); b <= Math.min(last, now); b++) {
        double share = span <= 0
            ? tokens
            : tokens * (Math.min(toMs, (b + 1.0) * bucketMillis) - Math.max(fromMs, (double) b * bucketMillis)) / span;
        add(b, share, input);
      }
    }

    private void add(long bucket, double tokens, boolean input) {
      int i = (int) Math.floorMod(bucket, (long) slots);
      if (key[i] != bucket) {
        if (key[i] > bucket) {
          return; // the slot already holds a later bucket: this one has left the ring
        }
        key[i] = bucket;
        in[i] = 0;
        out[i] = 0;
      }
      if (input) {
        in[i] += tokens;
      } else {
        out[i] += tokens;
      }
    }

    /** Tokens in ({@code input}) or out of bucket {@code b}; 0 when it holds nothing or has left. */
    double tokens(long b, boolean input) {
      int i = (int) Math.floorMod(b, (long) slots);
      return key[i] != b ? 0 : input ? in[i] : out[i];
    }

    /** Tokens of the {@code count} buckets ending with bucket {@code last}, oldest first. */
    double[] series(long last, int count, boolean input) {
      double[] v = new double[count];
      for (int k = 0; k < count; k++) {
        v[k] = tokens(last - count + 1 + k, input);
      }
      return v;
    }
  }
}
