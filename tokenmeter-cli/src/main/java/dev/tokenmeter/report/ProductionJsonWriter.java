package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.Version;
import dev.tokenmeter.core.production.InFlightCurve;
import dev.tokenmeter.core.production.ProductionSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * Writes production.json, the production report's counterpart of summary.json: the answer in
 * words, the window, the totals, the curve by concurrency in flight with its knee, tenants and
 * errors over time (docs/PROXY.md, "Production reports"). Distributions as summary.json writes
 * them (ms, tokens/s; NaN as null). Stateless.
 */
public final class ProductionJsonWriter {
  /** The file's name in the report folder. */
  public static final String FILE_NAME = "production.json";

  /** Version of this file's layout. */
  public static final String SCHEMA_VERSION = "1";

  private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ProductionJsonWriter() {}

  /** Writes {@code s} into {@code dir/production.json} atomically; returns the file. */
  public static Path write(Path dir, ProductionSummary s, String ledger) throws IOException {
    Path out = dir.resolve(FILE_NAME);
    Path tmp = dir.resolve(FILE_NAME + ".tmp");
    MAPPER.writeValue(tmp.toFile(), tree(s, ledger));
    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return out;
  }

  /** The file's content. */
  public static ObjectNode tree(ProductionSummary s, String ledger) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("schema_version", SCHEMA_VERSION);
    root.put("tool", "tokenmeter " + Version.VERSION);
    ArrayNode answer = root.putArray("answer");
    ProductionWords.sentences(s).forEach(answer::add);
    root.put("ledger", ledger);
    ObjectNode window = root.putObject("window");
    window.put("since", ProductionWords.instant(s.since()));
    window.put("until", ProductionWords.instant(s.until()));
    window.put("since_epoch_ms", s.since().toEpochMilli());
    window.put("until_epoch_ms", s.until().toEpochMilli());
    window.put("tenant", s.tenantOrNull());
    window.put("model", s.modelOrNull());
    root.set("total", bin(s.total(), false));
    counts(root.putObject("errors_by_class"), s.errorsByClass());
    root.put("threshold_tps", s.curve().thresholdTokensPerSecond());
    ObjectNode knee = root.putObject("knee");
    InFlightCurve.Knee k = s.curve().knee();
    knee.put("status", k.status().wireName());
    knee.put("last_meeting_concurrency", k.lastMeeting() < 0 ? null : k.lastMeeting());
    knee.put("first_below_concurrency", k.firstBelow() < 0 ? null : k.firstBelow());
    knee.put("min_requests_per_bin", InFlightCurve.MIN_KNEE_VALUES);
    knee.put("statement", ProductionWords.knee(s.curve()));
    ArrayNode curve = root.putArray("curve");
    s.curve().bins().forEach(b -> curve.add(bin(b, true)));
    ArrayNode tenants = root.putArray("tenants");
    for (ProductionSummary.TenantRow t : s.tenants()) {
      ObjectNode o = tenants.addObject();
      o.put("tenant", t.tenant());
      o.put("requests", t.requests());
      o.put("errors", t.errors());
      o.put("input_tokens", t.inputTokens());
      o.put("output_tokens", t.outputTokens());
      ObjectNode spend = o.putObject("spend");
      t.spend().forEach(spend::put);
      o.put("unpriced_requests", t.unpriced());
    }
    ObjectNode overTime = root.putObject("errors_over_time");
    overTime.put("bucket_seconds", s.bucketSeconds());
    ArrayNode buckets = overTime.putArray("buckets");
    for (ProductionSummary.TimeBucket b : s.overTime()) {
      ObjectNode o = buckets.addObject();
      o.put("start_epoch_ms", b.startEpochMillis());
      o.put("requests", b.requests());
      o.put("errors", b.errors());
      counts(o.putObject("by_class"), b.errorsByClass());
    }
    return root;
  }

  private static ObjectNode bin(InFlightCurve.Bin b, boolean withConcurrency) {
    ObjectNode o = MAPPER.createObjectNode();
    if (withConcurrency) {
      o.put("concurrency", b.concurrency());
      o.put("label", b.label());
      o.put("in_knee_search", b.enoughForKnee());
    }
    o.put("requests", b.requests());
    o.put("errors", b.errors());
    o.set("decode_tps", StageMerger.distribution(b.decodeTps()));
    o.set("ttft_ms", StageMerger.distribution(b.ttftMs()));
    o.set("tpot_ms", StageMerger.distribution(b.tpotMs()));
    return o;
  }

  private static void counts(ObjectNode o, Map<String, Long> counts) {
    counts.forEach(o::put);
  }
}
