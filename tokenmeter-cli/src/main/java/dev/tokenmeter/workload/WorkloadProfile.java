package dev.tokenmeter.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An observed workload, as {@code tokenmeter proxy export-workload} writes it and {@code bench} and
 * {@code simulate} read it with {@code --workload FILE} (docs/TRACES.md, "Exporting the workload"):
 * input and output lengths as 101 quantiles each (p0..p100), the arrival rate overall and by UTC
 * hour of day, the model mix, the share of prompt tokens the server reported as cached, and, when
 * clients sent conversation keys, the conversations' turns, think times and cached share by turn.
 * Immutable.
 *
 * @param since start of the window asked for
 * @param until end of the window (when the profile was made)
 * @param requests completed requests the lengths were taken from
 * @param input input lengths' quantiles, tokens
 * @param output output lengths' quantiles, tokens
 * @param meanRatePerSecond arrivals per second: the gaps between requests (their count less one)
 *     over the span from the first one's start to the last one's; NaN with fewer than two requests
 * @param ratePerSecondByHourUtc per UTC hour of day (index 0 = 00:00-01:00): requests that started
 *     in that hour over the seconds of that hour the span covered; NaN for hours it did not cover
 * @param models share of requests per model
 * @param cachedTokenShare cached prompt tokens over prompt tokens, among requests whose server
 *     reported cached tokens; NaN when none did
 * @param conversationsOrNull the conversations, or null when no request carried a conversation key
 */
public record WorkloadProfile(Instant since, Instant until, long requests, LengthSpec.Empirical input,
    LengthSpec.Empirical output, double meanRatePerSecond, double[] ratePerSecondByHourUtc, Map<String, Double> models,
    double cachedTokenShare, ConversationProfile conversationsOrNull) {

  /** The value of the {@code format} field this version writes and reads. */
  public static final String FORMAT = "tokenmeter-workload-profile/1";

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final int QUANTILES = 101;
  private static final String FIX = "; write one with 'tokenmeter proxy export-workload --out FILE' (docs/PROXY.md)";

  public WorkloadProfile {
    models = Map.copyOf(models);
  }

  /** A profile without conversations. */
  public WorkloadProfile(Instant since, Instant until, long requests, LengthSpec.Empirical input,
      LengthSpec.Empirical output, double meanRatePerSecond, double[] ratePerSecondByHourUtc, Map<String, Double> models,
      double cachedTokenShare) {
    this(since, until, requests, input, output, meanRatePerSecond, ratePerSecondByHourUtc, models, cachedTokenShare,
        null);
  }

  /** The profile as JSON (the documented form). */
  public String toJson() {
    ObjectNode o = JSON.createObjectNode();
    o.put("format", FORMAT);
    ObjectNode w = o.putObject("window");
    w.put("since", since.toString());
    w.put("until", until.toString());
    o.put("requests", requests);
    quantiles(o.putObject("input_tokens"), input);
    quantiles(o.putObject("output_tokens"), output);
    ObjectNode a = o.putObject("arrivals");
    number(a, "mean_rate_per_s", meanRatePerSecond);
    ArrayNode hours = a.putArray("rate_per_s_by_hour_utc");
    for (double r : ratePerSecondByHourUtc) {
      if (Double.isNaN(r)) {
        hours.addNull();
      } else {
        hours.add(r);
      }
    }
    ObjectNode m = o.putObject("models");
    models.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> m.put(e.getKey(), e.getValue()));
    ObjectNode p = o.putObject("prefix");
    number(p, "cached_token_share", cachedTokenShare);
    p.put("note", "cached prompt tokens as the server reported them: prefix-cache hits, a lower bound of prefix sharing;"
        + " bench and simulate do not replay it (use --shared-prefix-tokens)");
    if (conversationsOrNull != null) {
      conversationsOrNull.write(o.putObject("conversations"));
    }
    try {
      return JSON.writeValueAsString(o) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  private static void quantiles(ObjectNode node, LengthSpec.Empirical spec) {
    node.put("mean", spec.mean());
    spec.quantiles().forEach(node.putArray("quantiles")::add);
  }

  private static void number(ObjectNode node, String field, double v) {
    if (Double.isNaN(v)) {
      node.putNull(field);
    } else {
      node.put(field, v);
    }
  }

  /**
   * Reads a profile file.
   *
   * @throws WorkloadException naming the file, what is wrong and how to get a good one
   */
  public static WorkloadProfile read(Path file) {
    JsonNode o;
    try {
      o = JSON.readTree(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      throw new WorkloadException("--workload " + file + ": no such file" + FIX);
    } catch (JsonProcessingException e) {
      throw new WorkloadException("--workload " + file + ": not JSON (" + e.getOriginalMessage() + ")" + FIX);
    } catch (IOException e) {
      throw new WorkloadException("--workload " + file + ": cannot read it (" + e.getMessage() + ")" + FIX);
    }
    if (o == null || !FORMAT.equals(o.path("format").asText())) {
      throw new WorkloadException("--workload " + file + ": not a workload profile (its \"format\" is not \"" + FORMAT + "\")" + FIX);
    }
    try {
      JsonNode a = o.path("arrivals");
      double[] hours = new double[24];
      Arrays.fill(hours, Double.NaN);
      JsonNode h = a.path("rate_per_s_by_hour_utc");
      for (int i = 0; i < Math.min(24, h.size()); i++) {
        hours[i] = h.get(i).isNumber() ? h.get(i).asDouble() : Double.NaN;
      }
      Map<String, Double> models = new LinkedHashMap<>();
      o.path("models").properties().forEach(e -> models.put(e.getKey(), e.getValue().asDouble()));
      return new WorkloadProfile(instant(o, "since"), instant(o, "until"), o.path("requests").asLong(),
          spec(o, "input_tokens"), spec(o, "output_tokens"), numberOrNaN(a.path("mean_rate_per_s")), hours, models,
          numberOrNaN(o.path("prefix").path("cached_token_share")),
          ConversationProfile.read(o.get("conversations")));
    } catch (IllegalArgumentException e) {
      throw new WorkloadException("--workload " + file + ": " + e.getMessage() + FIX);
    }
  }

  private static Instant instant(JsonNode o, String field) {
    String text = o.path("window").path(field).asText();
    try {
      return Instant.parse(text);
    } catch (java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException("window." + field + " '" + text + "' is not a UTC time like 2026-11-25T10:00:00Z", e);
    }
  }

  private static LengthSpec.Empirical spec(JsonNode o, String field) {
    JsonNode q = o.path(field).path("quantiles");
    if (!q.isArray()) {
      throw new IllegalArgumentException(field + ".quantiles is missing");
    }
    List<Integer> values = new ArrayList<>();
    for (JsonNode v : q) {
      if (!v.canConvertToInt() || !v.isIntegralNumber()) {
        throw new IllegalArgumentException(field + ".quantiles holds '" + v + "', not a whole number of tokens");
      }
      values.add(v.asInt());
    }
    try {
      return new LengthSpec.Empirical(values);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage(), e);
    }
  }

  private static double numberOrNaN(JsonNode n) {
    return n.isNumber() ? n.asDouble() : Double.NaN;
  }

  /** Collects observed requests and makes the profile. Not thread-safe. */
  public static final class Builder {
    private final List<Integer> in = new ArrayList<>();
    private final List<Integer> out = new ArrayList<>();
    private final Map<String, Long> models = new LinkedHashMap<>();
    private final long[] byHour = new long[24];
    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;
    private long all;
    private long cached;
    private long cachedOf;
    private final ConversationProfile.Builder conversations = new ConversationProfile.Builder();

    /**
     * Adds one request that started at {@code atEpochMillis}. Every request that names a model
     * counts in the arrival rates (one that names none, a model listing, is left out); lengths and
     * models only of completed ones with a prompt and an output count.
     */
    public Builder add(long atEpochMillis, String model, boolean ok, int inputTokens, int outputTokens, int cachedTokens) {
      return add(atEpochMillis, model, ok, inputTokens, outputTokens, cachedTokens, null, -1);
    }

    /**
     * Adds one request as {@link #add(long, String, boolean, int, int, int)} does, with the
     * conversation it belongs to (null: none) and when its answer ended (-1: unknown). Add in order
     * of start: a conversation's turns are numbered in that order.
     */
    public Builder add(long atEpochMillis, String model, boolean ok, int inputTokens, int outputTokens, int cachedTokens,
        String conversationOrNull, long endedAtEpochMillis) {
      if (model == null) {
        return this;
      }
      all++;
      first = Math.min(first, atEpochMillis);
      last = Math.max(last, atEpochMillis);
      byHour[(int) Math.floorMod(atEpochMillis / 3_600_000L, 24L)]++;
      if (ok && inputTokens > 0 && outputTokens > 0) {
        in.add(inputTokens);
        out.add(outputTokens);
        models.merge(model, 1L, Long::sum);
        if (cachedTokens >= 0) {
          cached += cachedTokens;
          cachedOf += inputTokens;
        }
        conversations.add(conversationOrNull, atEpochMillis, endedAtEpochMillis, inputTokens, outputTokens, cachedTokens);
      }
      return this;
    }

    /** Completed requests added so far. */
    public int completed() {
      return in.size();
    }

    /** The profile of what was added. @throws IllegalStateException when no request completed */
    public WorkloadProfile build(Instant since, Instant until) {
      if (in.isEmpty()) {
        throw new IllegalStateException("no completed request");
      }
      double span = (last - first) / 1000.0;
      Map<String, Double> shares = new LinkedHashMap<>();
      models.forEach((m, n) -> shares.put(m, n / (double) in.size()));
      return new WorkloadProfile(since, until, in.size(), quantiles(in), quantiles(out),
          all < 2 || span <= 0 ? Double.NaN : (all - 1) / span, hourly(span), shares,
          cachedOf == 0 ? Double.NaN : cached / (double) cachedOf, conversations.build());
    }

    private double[] hourly(double span) {
      double[] covered = new double[24]; // seconds of each hour of day inside [first, last]
      for (long h = first / 3_600_000L; h * 3_600_000L <= last; h++) {
        long lo = Math.max(first, h * 3_600_000L);
        long hi = Math.min(last, (h + 1) * 3_600_000L);
        covered[(int) Math.floorMod(h, 24L)] += (hi - lo) / 1000.0;
      }
      double[] rates = new double[24];
      for (int i = 0; i < 24; i++) {
        rates[i] = span <= 0 || covered[i] <= 0 ? Double.NaN : byHour[i] / covered[i];
      }
      return rates;
    }

    /** p0, p1, ..., p100 by linear interpolation between order statistics (R's type 7), rounded. */
    static LengthSpec.Empirical quantiles(List<Integer> values) {
      int[] s = values.stream().mapToInt(Integer::intValue).sorted().toArray();
      List<Integer> q = new ArrayList<>(QUANTILES);
      for (int k = 0; k < QUANTILES; k++) {
        double h = (s.length - 1) * k / (double) (QUANTILES - 1);
        int lo = (int) Math.floor(h);
        int hi = Math.min(lo + 1, s.length - 1);
        q.add((int) Math.round(s[lo] + (h - lo) * (s[hi] - s[lo])));
      }
      return new LengthSpec.Empirical(q);
    }
  }
}
