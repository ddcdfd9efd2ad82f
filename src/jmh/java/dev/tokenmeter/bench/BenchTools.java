package dev.tokenmeter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Small helpers for the shell harnesses in {@code bench/}, so they need only a JDK and bash.
 *
 * <pre>
 * java -cp target/tokenmeter-jmh.jar dev.tokenmeter.bench.BenchTools get FILE.json PATH...
 *     prints the values at dotted PATHs (array indices as numbers), one per line
 * java -cp target/tokenmeter-jmh.jar dev.tokenmeter.bench.BenchTools fidelity REQUESTS.jsonl GROUND_TRUTH.jsonl SUMMARY.json
 *     joins the client's raw times (bench --raw-times) with the server's ground truth and prints
 *     TTFT and ITL as the server sent them, as the client measured them, and the differences
 * </pre>
 */
public final class BenchTools {
  private static final ObjectMapper JSON = new ObjectMapper();

  private BenchTools() {}

  public static void main(String[] args) throws IOException {
    if (args.length >= 3 && args[0].equals("get")) {
      JsonNode root = JSON.readTree(Path.of(args[1]).toFile());
      for (int i = 2; i < args.length; i++) {
        System.out.println(text(at(root, args[i])));
      }
    } else if (args.length == 4 && args[0].equals("fidelity")) {
      fidelity(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]));
    } else {
      System.err.println("usage: BenchTools get FILE PATH... | fidelity REQUESTS GROUND_TRUTH SUMMARY");
      System.exit(2);
    }
  }

  private static JsonNode at(JsonNode root, String dotted) {
    JsonNode n = root;
    for (String part : dotted.split("\\.")) {
      n = part.chars().allMatch(Character::isDigit) ? n.path(Integer.parseInt(part)) : n.path(part);
    }
    return n;
  }

  private static String text(JsonNode n) {
    return n.isMissingNode() || n.isNull() ? "null" : n.isValueNode() ? n.asText() : n.toString();
  }

  /** Server ground truth of one response: arrival and actual emission times, System.nanoTime. */
  private record Truth(long arrivalNanos, long[] actualNanos) {}

  private static void fidelity(Path requests, Path groundTruth, Path summary) throws IOException {
    Map<Long, Truth> truth = new HashMap<>();
    String token = null;
    try (BufferedReader r = Files.newBufferedReader(groundTruth)) {
      for (String line; (line = r.readLine()) != null; ) {
        JsonNode n = JSON.readTree(line);
        String id = n.path("client_request_id").asText("");
        int dash = id.lastIndexOf('-');
        if (!id.startsWith("tm-") || dash < 3) {
          continue;
        }
        String t = id.substring(3, dash);
        if (token != null && !token.equals(t)) {
          throw new IllegalArgumentException("ground truth holds two runs (" + token + ", " + t + "): restart the server per run");
        }
        token = t;
        JsonNode a = n.path("actual_ns");
        long[] actual = new long[a.size()];
        for (int i = 0; i < actual.length; i++) {
          actual[i] = a.get(i).asLong();
        }
        truth.put(Long.parseLong(id.substring(dash + 1)), new Truth(n.path("arrival_ns").asLong(), actual));
      }
    }
    Samples cTtft = new Samples(), sTtft = new Samples(), dTtft = new Samples();
    Samples cItl = new Samples(), sItl = new Samples(), dItl = new Samples(), delivery = new Samples();
    Samples transit = new Samples(), firstDelivery = new Samples();
    int joined = 0, mismatched = 0, missing = 0;
    try (BufferedReader r = Files.newBufferedReader(requests)) {
      for (String line; (line = r.readLine()) != null; ) {
        JsonNode n = JSON.readTree(line);
        if (!n.path("phase").asText().equals("measured") || !n.path("ok").asBoolean()) {
          continue;
        }
        if (!n.has("chunk_ns") || !n.has("sent_ns")) {
          throw new IllegalArgumentException(requests + " has no chunk_ns: run bench with --raw-times");
        }
        Truth t = truth.get(n.path("id").asLong());
        if (t == null) {
          missing++;
          continue;
        }
        JsonNode c = n.path("chunk_ns");
        if (c.size() != t.actualNanos().length || c.isEmpty()) {
          mismatched++; // several tokens in one chunk: no one-to-one pairing
          continue;
        }
        joined++;
        long[] a = t.actualNanos();
        long sent = n.path("sent_ns").asLong();
        long clientTtft = c.get(0).asLong() - sent;
        long serverTtft = a[0] - t.arrivalNanos();
        cTtft.add(clientTtft);
        sTtft.add(serverTtft);
        dTtft.add(clientTtft - serverTtft);
        // clientTtft - serverTtft = transit + firstDelivery: the client's TTFT also holds the time
        // the request took to be read by the server, which the server's own TTFT does not see.
        transit.add(t.arrivalNanos() - sent);
        firstDelivery.add(c.get(0).asLong() - a[0]);
        for (int i = 0; i < a.length; i++) {
          delivery.add(c.get(i).asLong() - a[i]);
          if (i > 0) {
            long cg = c.get(i).asLong() - c.get(i - 1).asLong();
            long sg = a[i] - a[i - 1];
            cItl.add(cg);
            sItl.add(sg);
            dItl.add(cg - sg);
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "joined %d measured requests (%d without ground truth, %d with chunk/token count mismatch)%n",
        joined, missing, mismatched);
    System.out.println("ms                                  mean        p50        p99        max");
    row("server TTFT (actual[0]-arrival)", sTtft);
    row("client TTFT (chunk[0]-sent)", cTtft);
    row("  paired diff client-server", dTtft);
    row("  = request transit (arrival-sent)", transit);
    row("  + first-token delivery", firstDelivery);
    row("server ITL (actual gaps)", sItl);
    row("client ITL (chunk gaps)", cItl);
    row("  paired diff client-server", dItl);
    row("delivery (chunk[i]-actual[i])", delivery);
    JsonNode m = JSON.readTree(summary.toFile()).path("stages").path(0).path("metrics");
    reported("reported TTFT (summary.json)", m.path("ttft_ms"));
    reported("reported ITL (summary.json)", m.path("itl_ms"));
    double[] server = {sTtft.mean(), sTtft.pct(50), sTtft.pct(99), sItl.mean(), sItl.pct(50), sItl.pct(99)};
    double[] rep = {
      m.path("ttft_ms").path("mean").asDouble(), m.path("ttft_ms").path("p50").asDouble(), m.path("ttft_ms").path("p99").asDouble(),
      m.path("itl_ms").path("mean").asDouble(), m.path("itl_ms").path("p50").asDouble(), m.path("itl_ms").path("p99").asDouble()
    };
    String[] names = {"TTFT mean", "TTFT p50", "TTFT p99", "ITL mean", "ITL p50", "ITL p99"};
    // Target: mean within 1 ms, p99 within 2 ms; p50 held to the mean's 1 ms.
    double[] limits = {1, 1, 2, 1, 1, 2};
    boolean all = true;
    StringBuilder v = new StringBuilder("reported - server:");
    for (int i = 0; i < names.length; i++) {
      double d = rep[i] - server[i];
      boolean ok = Math.abs(d) <= limits[i];
      all &= ok;
      v.append(String.format(Locale.ROOT, " %s %+.3f%s", names[i], d, ok ? "" : "(!)"));
    }
    System.out.println(v);
    System.out.println("verdict: " + (all ? "MET" : "NOT MET") + " (|mean diff| <= 1 ms, |p99 diff| <= 2 ms)");
  }

  private static void row(String name, Samples s) {
    System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f %10.3f %10.3f   (n=%d)%n",
        name, s.mean(), s.pct(50), s.pct(99), s.max(), s.size());
  }

  private static void reported(String name, JsonNode d) {
    System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f %10.3f %10.3f   (n=%d)%n",
        name, d.path("mean").asDouble(), d.path("p50").asDouble(), d.path("p99").asDouble(),
        d.path("max").asDouble(), d.path("count").asLong());
  }

  /** Nanosecond samples; statistics in milliseconds, exact percentiles (nearest rank). */
  private static final class Samples {
    private long[] v = new long[1024];
    private int n;
    private boolean sorted;

    void add(long nanos) {
      if (n == v.length) {
        v = Arrays.copyOf(v, n * 2);
      }
      v[n++] = nanos;
      sorted = false;
    }

    int size() {
      return n;
    }

    double mean() {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += v[i];
      }
      return n == 0 ? Double.NaN : sum / n / 1e6;
    }

    double pct(double p) {
      if (n == 0) {
        return Double.NaN;
      }
      if (!sorted) {
        Arrays.sort(v, 0, n);
        sorted = true;
      }
      int rank = (int) Math.ceil(p / 100.0 * n);
      return v[Math.max(0, Math.min(n - 1, rank - 1))] / 1e6;
    }

    double max() {
      return pct(100);
    }
  }
}
