package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.simulator.engine.BatchEngine;
import dev.tokenmeter.simulator.engine.CostTotals;
import dev.tokenmeter.simulator.engine.EngineConfig;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * A load run straight on the {@link BatchEngine}, without bench's stage runner: the accuracy
 * study's thousands of simulations, each of up to millions of tokens, in seconds. Metrics as
 * docs/METRICS.md defines them, from the engine's token times (no network, so "sent" is the
 * arrival): TTFT = first token − arrival, TPOT = (last − first) / (n − 1), ITL = the gaps between
 * a request's tokens, output throughput = tokens / (last token − first arrival).
 * {@code EngineRunTest} checks it against {@code Simulation}, the path {@code tokenmeter simulate}
 * takes, on the same setups. Single use, not thread-safe.
 */
final class EngineRun implements BatchEngine.Listener {
  /** ITL histogram buckets: 0.5% wide, from 1 µs. */
  private static final double BUCKET = Math.log(1.005);

  private final BatchEngine engine;
  private final int[] input;
  private final int[] output;
  private final long[] arrival;
  private final long[] first;
  private final long[] last;
  private final long[] itl = new long[6000];
  private long tokens;
  private long endNanos;
  private int completed;

  /**
   * @param lengths request i's prompt and output lengths: {@code lengths.applyAsLong(i)} returns
   *     input × 2^32 + output
   */
  private EngineRun(EngineConfig config, int requests, LongUnaryOperator lengths) {
    this.engine = new BatchEngine(config, this);
    this.input = new int[requests];
    this.output = new int[requests];
    for (int i = 0; i < requests; i++) {
      long l = lengths.applyAsLong(i);
      input[i] = (int) (l >>> 32);
      output[i] = (int) l;
    }
    this.arrival = new long[requests];
    this.first = new long[requests];
    this.last = new long[requests];
  }

  /** What a run measured. Latencies in milliseconds. */
  record Result(
      double ttftMean,
      double ttftP50,
      double ttftP99,
      double tpotMean,
      double tpotP99,
      double itlP50,
      double outputTps,
      double windowSeconds,
      CostTotals costs) {}

  /** {@code users} users, each sending its next request when its last ends, {@code requests} in all. */
  static Result closed(EngineConfig c, int users, int requests, LongUnaryOperator lengths) {
    EngineRun r = new EngineRun(c, requests, lengths);
    int sent = 0;
    for (; sent < Math.min(users, requests); sent++) {
      r.submit(sent, 0);
    }
    while (r.completed < requests) {
      int before = r.completed;
      long end = r.engine.step().endNanos();
      for (int done = before; done < r.completed && sent < requests; done++) {
        r.submit(sent++, end); // each completion frees a user, who sends at once
      }
    }
    return r.result();
  }

  /** {@code requests} arriving at {@code ratePerSecond}, exponential gaps from {@code seed}. */
  static Result poisson(EngineConfig c, double ratePerSecond, int requests, long seed,
      LongUnaryOperator lengths) {
    EngineRun r = new EngineRun(c, requests, lengths);
    SplittableRandom random = new SplittableRandom(seed);
    double t = 0;
    int next = 0;
    while (r.completed < requests) {
      long due = next < requests ? Math.round(t) : Long.MAX_VALUE;
      if (next < requests && (!r.engine.hasWork() || due <= r.engine.nextStartNanos())) {
        r.submit(next++, due);
        t += -Math.log(1 - random.nextDouble()) / ratePerSecond * 1e9;
      } else {
        r.engine.step();
      }
    }
    return r.result();
  }

  private void submit(int id, long atNanos) {
    arrival[id] = atNanos;
    engine.submit(id, input[id], output[id], atNanos);
  }

  @Override
  public void token(long id, int index, long atNanos) {
    int i = (int) id;
    if (index == 0) {
      first[i] = atNanos;
    } else {
      long gap = Math.max(1, (atNanos - last[i]) / 1000);
      itl[Math.min(itl.length - 1, (int) (Math.log(gap) / BUCKET))]++;
    }
    last[i] = atNanos;
    tokens++;
    endNanos = Math.max(endNanos, atNanos);
    if (index == output[i] - 1) {
      completed++;
    }
  }

  private Result result() {
    int n = input.length;
    double[] ttft = new double[n];
    double[] tpot = new double[n];
    int decoding = 0;
    for (int i = 0; i < n; i++) {
      ttft[i] = (first[i] - arrival[i]) / 1e6;
      if (output[i] > 1) {
        tpot[decoding++] = (last[i] - first[i]) / 1e6 / (output[i] - 1);
      }
    }
    double[] tp = Arrays.copyOf(tpot, decoding);
    double window = endNanos / 1e9;
    return new Result(mean(ttft), AccuracyStudy.percentile(ttft, 0.5),
        AccuracyStudy.percentile(ttft, 0.99), decoding == 0 ? Double.NaN : mean(tp),
        decoding == 0 ? Double.NaN : AccuracyStudy.percentile(tp, 0.99), itlMedianMs(),
        tokens / window, window, engine.costs());
  }

  private double itlMedianMs() {
    long total = Arrays.stream(itl).sum();
    long seen = 0;
    for (int b = 0; b < itl.length; b++) {
      seen += itl[b];
      if (total > 0 && seen * 2 >= total) {
        return Math.exp((b + 0.5) * BUCKET) / 1000;
      }
    }
    return Double.NaN;
  }

  private static double mean(double[] v) {
    return Arrays.stream(v).average().orElse(Double.NaN);
  }
}
