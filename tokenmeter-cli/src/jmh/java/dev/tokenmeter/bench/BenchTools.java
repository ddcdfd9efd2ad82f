package dev.tokenmeter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
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
 * java -cp target/tokenmeter-jmh.jar dev.tokenmeter.bench.BenchTools clock
 *     prints CLOCK_REALTIME minus CLOCK_MONOTONIC in nanoseconds (Instant.now() - System.nanoTime())
 * java -cp target/tokenmeter-jmh.jar dev.tokenmeter.bench.BenchTools wire CAPTURE.pcap REQUESTS.jsonl GROUND_TRUTH.jsonl OFFSET_NS
 *     the same join against a third clock, the kernel's: when each request and each token crossed
 *     the loopback device (tcpdump's capture, WireCapture), and who of the two sides added what
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
    } else if (args.length == 1 && args[0].equals("clock")) {
      System.out.println(realtimeMinusMonotonic());
    } else if (args.length == 5 && args[0].equals("wire")) {
      wire(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), Long.parseLong(args[4]));
    } else {
      System.err.println("usage: BenchTools get FILE PATH... | fidelity REQUESTS GROUND_TRUTH SUMMARY"
          + " | clock | wire CAPTURE.pcap REQUESTS GROUND_TRUTH OFFSET_NS");
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

  /** The server's ground truth by client request id (the number after {@code tm-RUN-}). */
  private static Map<Long, Truth> truth(Path groundTruth) throws IOException {
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
    return truth;
  }

  /** The measured, successful requests of a requests.jsonl written with {@code bench --raw-times}. */
  private static List<JsonNode> measured(Path requests) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(requests)) {
      for (String line; (line = r.readLine()) != null; ) {
        JsonNode n = JSON.readTree(line);
        if (!n.path("phase").asText().equals("measured") || !n.path("ok").asBoolean()) {
          continue;
        }
        if (!n.has("chunk_ns") || !n.has("sent_ns")) {
          throw new IllegalArgumentException(requests + " has no chunk_ns: run bench with --raw-times");
        }
        out.add(n);
      }
    }
    return out;
  }

  private static void fidelity(Path requests, Path groundTruth, Path summary) throws IOException {
    Map<Long, Truth> truth = truth(groundTruth);
    Samples cTtft = new Samples(), sTtft = new Samples(), dTtft = new Samples();
    Samples cItl = new Samples(), sItl = new Samples(), dItl = new Samples(), delivery = new Samples();
    Samples transit = new Samples(), firstDelivery = new Samples();
    int joined = 0, mismatched = 0, missing = 0;
    for (JsonNode n : measured(requests)) {
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
    System.out.printf(Locale.ROOT, "joined %d measured requests (%d without ground truth, %d with chunk/token count mismatch)%n",
        joined, missing, mismatched);
    System.out.println("ms                                      mean        p50        p99        max");
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

  /** CLOCK_REALTIME minus CLOCK_MONOTONIC (what System.nanoTime reads on Linux), in nanoseconds. */
  private static long realtimeMinusMonotonic() {
    long best = Long.MAX_VALUE;
    long offset = 0;
    for (int i = 0; i < 1000; i++) { // the pair read closest together
      long before = System.nanoTime();
      java.time.Instant now = java.time.Instant.now();
      long after = System.nanoTime();
      if (after - before < best) {
        best = after - before;
        offset = now.getEpochSecond() * 1_000_000_000L + now.getNano() - (before + (after - before) / 2);
      }
    }
    return offset;
  }

  /** One request as the capture saw it: when its bytes crossed the device, and each token's. */
  private static final class WireRequest {
    long requestNanos;
    boolean answered;
    long[] tokenNanos = new long[256];
    int tokens;

    void token(long nanos) {
      if (tokens == tokenNanos.length) {
        tokenNanos = Arrays.copyOf(tokenNanos, tokens * 2);
      }
      tokenNanos[tokens++] = nanos;
    }
  }

  private static final byte[] POST = "POST ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] REQUEST_ID = "\r\nx-request-id: tm-".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] CONTENT = "\"delta\":{\"content\":\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /**
   * Joins the client's raw times, the server's ground truth and a capture of the loopback device:
   * the kernel stamps every segment when the sender's write hands it to the device, a clock neither
   * process reads. A request's wire time is its last segment before the server answered; a token's
   * is the segment that carried its {@code "delta":{"content":"...} (non-empty) event. Then: client
   * TTFT = wire TTFT + (wire request - sent) + (chunk[0] - wire token 0); the two brackets are the
   * client's own error, the server's likewise. The capture's clock is CLOCK_REALTIME, the programs'
   * CLOCK_MONOTONIC; {@code offsetNanos} (BenchTools clock, read beside the run) converts.
   */
  private static void wire(Path capture, Path requests, Path groundTruth, long offsetNanos) throws IOException {
    Map<Long, Truth> truth = truth(groundTruth);
    Map<Integer, Integer> portCounts = new HashMap<>();
    WireCapture.forEach(capture, s -> {
      portCounts.merge(s.sourcePort(), 1, Integer::sum);
      portCounts.merge(s.destinationPort(), 1, Integer::sum);
    });
    int serverPort = portCounts.entrySet().stream().max(Map.Entry.comparingByValue())
        .orElseThrow(() -> new IllegalArgumentException(capture + " holds no TCP payload")).getKey();
    Map<Integer, WireRequest> current = new HashMap<>(); // by client port
    Map<Long, WireRequest> byId = new HashMap<>();
    long[] segmentCount = {0};
    WireCapture.forEach(capture, s -> {
      segmentCount[0]++;
      byte[] p = s.payload();
      long mono = s.realtimeNanos() - offsetNanos;
      if (s.destinationPort() == serverPort) {
        if (startsWith(p, POST)) {
          WireRequest w = new WireRequest();
          w.requestNanos = mono;
          current.put(s.sourcePort(), w);
          int at = indexOf(p, REQUEST_ID, 0);
          if (at >= 0) {
            int dash = at + REQUEST_ID.length;
            while (dash < p.length && p[dash] != '-') {
              dash++;
            }
            long id = 0;
            int i = dash + 1;
            for (; i < p.length && p[i] >= '0' && p[i] <= '9'; i++) {
              id = id * 10 + (p[i] - '0');
            }
            if (i > dash + 1) {
              byId.put(id, w);
            }
          }
        } else {
          WireRequest w = current.get(s.sourcePort());
          if (w != null && !w.answered) {
            w.requestNanos = mono; // the request's body, written after its head
          }
        }
      } else if (s.sourcePort() == serverPort) {
        WireRequest w = current.get(s.destinationPort());
        if (w == null) {
          return;
        }
        w.answered = true;
        for (int at = indexOf(p, CONTENT, 0); at >= 0; at = indexOf(p, CONTENT, at + CONTENT.length)) {
          int next = at + CONTENT.length;
          if (next < p.length && p[next] != '"') {
            w.token(mono);
          }
        }
      }
    });
    Samples wTtft = new Samples(), wItl = new Samples();
    Samples send = new Samples(), firstRead = new Samples(), read = new Samples(), cTtftErr = new Samples(), cItlErr = new Samples();
    Samples arrive = new Samples(), firstWrite = new Samples(), write = new Samples(), sTtftErr = new Samples(), sItlErr = new Samples();
    Samples sumErr = new Samples();
    int joined = 0, mismatched = 0, missing = 0, partial = 0;
    for (JsonNode n : measured(requests)) {
      long id = n.path("id").asLong();
      Truth t = truth.get(id);
      WireRequest w = byId.get(id);
      if (t == null || w == null) {
        missing++;
        continue;
      }
      JsonNode c = n.path("chunk_ns");
      long[] a = t.actualNanos();
      if (c.isEmpty() || a.length == 0 || w.tokens == 0) {
        mismatched++;
        continue;
      }
      joined++;
      long sent = n.path("sent_ns").asLong();
      long wireTtft = w.tokenNanos[0] - w.requestNanos;
      long clientTtft = c.get(0).asLong() - sent;
      long serverTtft = a[0] - t.arrivalNanos();
      wTtft.add(wireTtft);
      send.add(w.requestNanos - sent);
      firstRead.add(c.get(0).asLong() - w.tokenNanos[0]);
      cTtftErr.add(clientTtft - wireTtft);
      arrive.add(t.arrivalNanos() - w.requestNanos);
      firstWrite.add(w.tokenNanos[0] - a[0]);
      sTtftErr.add(serverTtft - wireTtft);
      sumErr.add(clientTtft - serverTtft);
      if (c.size() != a.length || w.tokens != a.length) {
        partial++; // tokens past the snap length, or several in one chunk: TTFT only
        continue;
      }
      for (int i = 0; i < a.length; i++) {
        read.add(c.get(i).asLong() - w.tokenNanos[i]);
        write.add(w.tokenNanos[i] - a[i]);
        if (i > 0) {
          long wg = w.tokenNanos[i] - w.tokenNanos[i - 1];
          wItl.add(wg);
          cItlErr.add(c.get(i).asLong() - c.get(i - 1).asLong() - wg);
          sItlErr.add(a[i] - a[i - 1] - wg);
        }
      }
    }
    System.out.printf(Locale.ROOT, "capture: %d segments with payload, server port %d, %d requests seen%n",
        segmentCount[0], serverPort, byId.size());
    System.out.printf(Locale.ROOT, "joined %d measured requests (%d not in the capture or ground truth, %d without a token);"
        + " tokens paired one to one in %d (the rest: TTFT only)%n", joined, missing, mismatched, joined - partial);
    System.out.println("ms                                      mean        p50        p99        max");
    row("wire TTFT (token 0 - request)", wTtft);
    row("wire ITL (token gaps)", wItl);
    System.out.println("client, against the wire:");
    row("  request write (wire - sent)", send);
    row("  first-token read (chunk[0] - wire)", firstRead);
    row("  token read (chunk[i] - wire)", read);
    row("  TTFT error (client - wire)", cTtftErr);
    row("  ITL error (client - wire)", cItlErr);
    System.out.println("server, against the wire:");
    row("  request read (arrival - wire)", arrive);
    row("  first-token write (wire - actual[0])", firstWrite);
    row("  token write (wire - actual[i])", write);
    row("  TTFT error (server - wire)", sTtftErr);
    row("  ITL error (server - wire)", sItlErr);
    row("client TTFT - server TTFT", sumErr);
  }

  private static boolean startsWith(byte[] p, byte[] prefix) {
    if (p.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (p[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** First index of {@code needle} in {@code p} at or after {@code from}, ASCII case-insensitive; -1 if none. */
  private static int indexOf(byte[] p, byte[] needle, int from) {
    outer:
    for (int i = from; i <= p.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (Character.toLowerCase(p[i + j]) != Character.toLowerCase(needle[j])) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static void row(String name, Samples s) {
    System.out.printf(Locale.ROOT, "%-38s %10.3f %10.3f %10.3f %10.3f   (n=%d)%n",
        name, s.mean(), s.pct(50), s.pct(99), s.max(), s.size());
  }

  private static void reported(String name, JsonNode d) {
    System.out.printf(Locale.ROOT, "%-38s %10.3f %10.3f %10.3f %10.3f   (n=%d)%n",
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
