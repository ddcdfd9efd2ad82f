package dev.tokenmeter.telemetry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.slo.SloMetric;
import dev.tokenmeter.governance.BurnWindow;
import dev.tokenmeter.governance.LiveSlo;
import dev.tokenmeter.governance.Severity;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The Prometheus alerting rules equivalent to the proxy's live SLO alerts, over the proxy's own
 * {@code /metrics}: per SLO, one recording rule per {@link BurnWindow} for the share of bad
 * requests ({@code tokenmeter:slo_bad_ratio:rate5m{slo="..."}}), and the page and ticket alerts of
 * {@link Severity} over them. A latency or speed threshold must be a bucket boundary of its
 * histogram, since a histogram counts requests at or below each boundary and nothing finer.
 * Stateless.
 */
public final class PrometheusRules {
  /** The recording rule of the bad share over a window: {@code tokenmeter:slo_bad_ratio:rate5m}. */
  public static final String RECORD_PREFIX = "tokenmeter:slo_bad_ratio:rate";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private PrometheusRules() {}

  /** A histogram of the proxy: its name without suffix, its boundaries and the scale of a threshold to them. */
  private record Source(String name, double[] bounds, double perThresholdUnit, boolean hasTenant, String extra) {}

  /**
   * The rules file for {@code slos}, YAML.
   *
   * @throws IllegalArgumentException every SLO that cannot be written as rules, one line each
   */
  public static String yaml(List<LiveSlo> slos) {
    List<String> errors = new ArrayList<>();
    ArrayNode rules = NODES.arrayNode();
    for (LiveSlo s : slos) {
      String badRatio = badRatioOrNull(s, errors);
      if (badRatio == null) {
        continue;
      }
      for (BurnWindow w : BurnWindow.values()) {
        ObjectNode r = rules.addObject();
        r.put("record", RECORD_PREFIX + w.label());
        r.put("expr", badRatio.replace("[W]", "[" + w.label() + "]"));
        r.putObject("labels").put("slo", s.name());
      }
      for (Severity sev : Severity.values()) {
        rules.add(alert(s, sev));
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", errors));
    }
    ObjectNode root = NODES.objectNode();
    ObjectNode group = root.putArray("groups").addObject();
    group.put("name", "tokenmeter-slo");
    group.set("rules", rules);
    try {
      // one line per expression: folded double-quoted lines are valid YAML but unreadable
      return new YAMLMapper(YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).disable(YAMLGenerator.Feature.SPLIT_LINES).build()).writeValueAsString(root);
    } catch (IOException e) {
      throw new IllegalStateException("a tree of strings always serializes", e);
    }
  }

  /** {@code TokenmeterSloFastBurn} (page) or {@code TokenmeterSloSlowBurn} (ticket). */
  public static String alertName(Severity s) {
    return s == Severity.PAGE ? "TokenmeterSloFastBurn" : "TokenmeterSloSlowBurn";
  }

  private static ObjectNode alert(LiveSlo s, Severity sev) {
    String slo = "{slo=\"" + escape(s.name()) + "\"}";
    String budget = number(s.budget());
    List<String> terms = new ArrayList<>();
    for (Severity.Condition c : sev.conditions()) {
      String limit = number(c.rate()) + " * " + budget;
      terms.add("(" + RECORD_PREFIX + c.longWindow().label() + slo + " > " + limit + " and " + RECORD_PREFIX
          + c.shortWindow().label() + slo + " > " + limit + ")");
    }
    ObjectNode a = NODES.objectNode();
    a.put("alert", alertName(sev));
    a.put("expr", String.join(" or ", terms));
    ObjectNode labels = a.putObject("labels");
    labels.put("severity", sev.label());
    labels.put("slo", s.name());
    ObjectNode notes = a.putObject("annotations");
    notes.put("summary", "SLO " + s.name() + ": error budget burning ("
        + (sev == Severity.PAGE ? "fast burn, page" : "slow burn, ticket") + ")");
    notes.put("description", "Error budget " + number(s.budget() * 100) + "% of requests; SLI: " + s.sli() + "; "
        + sev.conditions().stream().map(c -> "burn rate above " + number(c.rate()) + " over " + c.longWindow().label()
            + " and " + c.shortWindow().label()).collect(Collectors.joining(", or ")) + ".");
    return a;
  }

  /** The PromQL of the bad share over {@code [W]}, or null with the reason added to {@code errors}. */
  private static String badRatioOrNull(LiveSlo s, List<String> errors) {
    Slo.Objective o = s.objective();
    String scope = scope(s);
    if (o.metric() == SloMetric.ERRORS) {
      String c = "tokenmeter_proxy_requests_total";
      String counted = join("error_type!=\"cancelled\"", scope); // a client's cancel is not the service failing
      return "sum(rate(" + c + "{" + join("error_type!=\"\"", counted) + "}[W])) / sum(rate(" + c + "{" + counted + "}[W]))";
    }
    Source src = source(o.metric());
    if (!src.hasTenant() && s.scope().tenantOrNull() != null) {
      errors.add("SLO '" + s.name() + "': " + src.name() + " has no tenant label; scope it by model or upstream only");
      return null;
    }
    double threshold = o.threshold() * src.perThresholdUnit();
    double bound = Arrays.stream(src.bounds()).filter(b -> Math.abs(b - threshold) <= 1e-9 * Math.max(1, b))
        .findFirst().orElse(Double.NaN);
    if (Double.isNaN(bound)) {
      errors.add("SLO '" + s.name() + "': " + Slo.number(o.threshold()) + " " + o.metric().unit()
          + " is not a bucket boundary of " + src.name() + "; pick one of (" + o.metric().unit() + "): "
          + Arrays.stream(src.bounds()).mapToObj(b -> Slo.number(b / src.perThresholdUnit()))
              .collect(Collectors.joining(", ")));
      return null;
    }
    String sel = join(src.extra(), scope);
    String good = "sum(rate(" + src.name() + "_bucket{" + join("le=\"" + Double.toString(bound) + "\"", sel) + "}[W]))";
    String all = "sum(rate(" + src.name() + "_count{" + sel + "}[W]))";
    boolean upper = o.op() == Slo.Op.LE || o.op() == Slo.Op.LT;
    return upper ? "1 - " + good + " / " + all : good + " / " + all;
  }

  private static Source source(SloMetric m) {
    return switch (m) {
      case TTFT, TTFT_SENT -> new Source("gen_ai_server_time_to_first_token_seconds",
          MetricFamilies.TTFT_BUCKETS_SECONDS, 1e-3, true, "");
      case TPOT -> new Source("gen_ai_server_time_per_output_token_seconds",
          MetricFamilies.TPOT_BUCKETS_SECONDS, 1e-3, true, "");
      case E2E, E2E_SENT -> new Source("gen_ai_client_operation_duration_seconds",
          MetricFamilies.DURATION_BUCKETS_SECONDS, 1e-3, true, "error_type=\"\"");
      case TPS -> new Source("tokenmeter_proxy_decode_speed_per_second", MetricFamilies.DECODE_SPEED_BUCKETS, 1,
          false, "");
      default -> throw new IllegalArgumentException("not a live SLO metric: " + m.wireName());
    };
  }

  /** The label matchers of the SLO's scope; inference requests only (a model named). */
  private static String scope(LiveSlo s) {
    List<String> m = new ArrayList<>();
    String glob = s.scope().modelGlobOrNull();
    m.add(glob == null ? MetricFamilies.MODEL + "!=\"\""
        : MetricFamilies.MODEL + "=~\"" + escape(dev.tokenmeter.governance.SloScope.globToRegex(glob)) + "\"");
    if (s.scope().upstreamOrNull() != null) {
      m.add(MetricFamilies.UPSTREAM + "=\"" + escape(s.scope().upstreamOrNull()) + "\"");
    }
    if (s.scope().tenantOrNull() != null) {
      m.add(MetricFamilies.TENANT + "=\"" + escape(s.scope().tenantOrNull()) + "\"");
    }
    return String.join(",", m);
  }

  private static String join(String a, String b) {
    return a.isEmpty() ? b : b.isEmpty() ? a : a + "," + b;
  }

  private static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static String number(double v) {
    String s = String.format(Locale.ROOT, "%.10f", v).replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
