package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.governance.LiveSlo;
import dev.tokenmeter.governance.SloScope;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import dev.tokenmeter.testkit.PrometheusServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus rules of the live SLOs: their PromQL, refusals, and promtool's verdict. */
class PrometheusRulesTest {
  private static final YAMLMapper YAML = new YAMLMapper();
  @TempDir Path dir;

  private static List<LiveSlo> slos(SloScope scope, String spec) {
    return Slo.parse(spec).objectives().stream().map(o -> LiveSlo.of(o, scope)).toList();
  }

  private static JsonNode rule(JsonNode rules, String key, String name, String slo) {
    for (JsonNode r : rules.get("groups").get(0).get("rules")) {
      if (r.path(key).asText().equals(name) && r.path("labels").path("slo").asText().equals(slo)) {
        return r;
      }
    }
    throw new AssertionError("no " + key + " " + name + " for " + slo + " in " + rules);
  }

  @Test
  void eachSloGetsABadShareRulePerWindowAndAPageAndATicketAlert() throws Exception {
    List<LiveSlo> slos = new ArrayList<>(slos(SloScope.ALL, "ttft.p99<=750ms,tps.p10>=30"));
    slos.addAll(slos(new SloScope("llama*", "h100", "acme"), "errors<=1%"));
    JsonNode rules = YAML.readTree(PrometheusRules.yaml(slos));
    assertThat(rules.get("groups").get(0).get("rules")).hasSize(3 * (5 + 2));
    assertThat(rule(rules, "record", "tokenmeter:slo_bad_ratio:rate5m", "ttft.p99<=750ms").get("expr").asText())
        .isEqualTo("1 - sum(rate(gen_ai_server_time_to_first_token_seconds_bucket{le=\"0.75\",gen_ai_request_model!=\"\"}[5m]))"
            + " / sum(rate(gen_ai_server_time_to_first_token_seconds_count{gen_ai_request_model!=\"\"}[5m]))");
    assertThat(rule(rules, "record", "tokenmeter:slo_bad_ratio:rate3d", "tps.p10>=30").get("expr").asText())
        .isEqualTo("sum(rate(tokenmeter_proxy_decode_speed_per_second_bucket{le=\"30.0\",gen_ai_request_model!=\"\"}[3d]))"
            + " / sum(rate(tokenmeter_proxy_decode_speed_per_second_count{gen_ai_request_model!=\"\"}[3d]))");
    String errors = "errors<=1% model=llama* upstream=h100 tenant=acme";
    String scope = "gen_ai_request_model=~\"llama.*\",upstream=\"h100\",tenant=\"acme\"";
    assertThat(rule(rules, "record", "tokenmeter:slo_bad_ratio:rate1h", errors).get("expr").asText())
        .isEqualTo("sum(rate(tokenmeter_proxy_requests_total{error_type!=\"\",error_type!=\"cancelled\"," + scope + "}[1h]))"
            + " / sum(rate(tokenmeter_proxy_requests_total{error_type!=\"cancelled\"," + scope + "}[1h]))");
    JsonNode page = rule(rules, "alert", "TokenmeterSloFastBurn", errors);
    String s = "{slo=\"" + errors + "\"}";
    assertThat(page.get("expr").asText()).isEqualTo(
        "(tokenmeter:slo_bad_ratio:rate1h" + s + " > 14.4 * 0.01 and tokenmeter:slo_bad_ratio:rate5m" + s + " > 14.4 * 0.01)"
            + " or (tokenmeter:slo_bad_ratio:rate6h" + s + " > 6 * 0.01 and tokenmeter:slo_bad_ratio:rate30m" + s
            + " > 6 * 0.01)");
    assertThat(page.get("labels").get("severity").asText()).isEqualTo("page");
    assertThat(rule(rules, "alert", "TokenmeterSloSlowBurn", "tps.p10>=30").get("expr").asText()).isEqualTo(
        "(tokenmeter:slo_bad_ratio:rate3d{slo=\"tps.p10>=30\"} > 1 * 0.1 and tokenmeter:slo_bad_ratio:rate6h{slo=\"tps.p10>=30\"}"
            + " > 1 * 0.1)");
  }

  @Test
  void theRulesReadTheNamesAndBucketsTheProxyExposes() throws Exception {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create();
    m.accept(MeteredRequestBuilder.chat("acme", "llama-3", "h100").times(1_000, 500_000_000L, 20e6, 2_000_000_000L).build());
    m.accept(MeteredRequestBuilder.chat("acme", "llama-3", "h100").failed(ErrorClass.HTTP_5XX, 503).build());
    m.sloBurnRate("ttft.p99<=750ms", "5m", 2.5);
    m.sloAlert("ttft.p99<=750ms", "page", true);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    m.scrape(out);
    List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
    List<LiveSlo> slos = slos(SloScope.ALL, "ttft.p99<=750ms,tps.p10>=30,e2e.p95<=2560ms,tpot.p90<=50ms,errors<=1%");
    int seen = 0;
    for (JsonNode r : YAML.readTree(PrometheusRules.yaml(slos)).get("groups").get(0).get("rules")) {
      Matcher sel = Pattern.compile("([a-z_]+)\\{([^}]*)\\}").matcher(r.has("record") ? r.get("expr").asText() : "");
      while (sel.find()) {
        String name = sel.group(1);
        Matcher le = Pattern.compile("le=\"([^\"]+)\"").matcher(sel.group(2));
        String bucket = le.find() ? "le=\"" + le.group(1) + "\"" : "";
        assertThat(lines).as(name + " " + bucket).anyMatch(l -> l.startsWith(name + "{") && l.contains(bucket));
        seen++;
      }
    }
    assertThat(seen).isEqualTo(5 * 5 * 2);
    assertThat(lines).contains("tokenmeter_proxy_slo_burn_rate{slo=\"ttft.p99<=750ms\",window=\"5m\"} 2.5",
        "tokenmeter_proxy_slo_alert{severity=\"page\",slo=\"ttft.p99<=750ms\"} 1.0");
  }

  @Test
  void aThresholdOffTheBucketsIsRefusedWithTheBucketsThatExist() {
    List<LiveSlo> slos = new ArrayList<>(slos(SloScope.ALL, "ttft.p99<=800ms,e2e.p99<=1280ms,tpot.p99<=60ms"));
    slos.addAll(slos(new SloScope(null, null, "acme"), "tps.p10>=30"));
    assertThatThrownBy(() -> PrometheusRules.yaml(slos)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("SLO 'ttft.p99<=800ms': 800 ms is not a bucket boundary of gen_ai_server_time_to_first_token_seconds;"
            + " pick one of (ms): 1, 5, 10, 20, 40, 60, 80, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000\n"
            + "SLO 'tpot.p99<=60ms': 60 ms is not a bucket boundary of gen_ai_server_time_per_output_token_seconds;"
            + " pick one of (ms): 1, 2.5, 5, 10, 25, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 2500\n"
            + "SLO 'tps.p10>=30 tenant=acme': tokenmeter_proxy_decode_speed_per_second has no tenant label;"
            + " scope it by model or upstream only");
  }

  @Test
  void promtoolAcceptsTheRulesAndItsUnitTestSeesTheFastBurnPage() throws Exception {
    PrometheusServer.assumeInstalled();
    List<LiveSlo> slos = new ArrayList<>(slos(SloScope.ALL, "ttft.p99<=750ms,tps.p10>=30,e2e.p95<=2560ms,tpot.p90<=50ms"));
    slos.addAll(slos(new SloScope("llama*", null, "acme"), "errors<=1%"));
    Path rules = dir.resolve("rules.yml");
    Files.writeString(rules, PrometheusRules.yaml(slos));
    PrometheusServer.ToolResult check = promtool("check", "rules", rules.toString());
    assertThat(check.exitCode()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: 35 rules found");

    Path test = dir.resolve("test.yml");
    Files.writeString(test, unitTest(YAML.readTree(rules.toFile()), "ttft.p99<=750ms"));
    PrometheusServer.ToolResult run = promtool("test", "rules", test.toString());
    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("SUCCESS");
  }

  /**
   * A promtool unit test: 100 requests a minute, half of them over 750 ms (burn rate 0.5 / 0.01 =
   * 50) pages and tickets at 10 min; all of them fast fires nothing.
   */
  private static String unitTest(JsonNode rules, String slo) throws Exception {
    ObjectNode root = YAML.createObjectNode();
    root.putArray("rule_files").add("rules.yml");
    root.put("evaluation_interval", "1m");
    ArrayNode tests = root.putArray("tests");
    for (boolean burning : new boolean[] {true, false}) {
      ObjectNode t = tests.addObject();
      t.put("interval", "1m");
      ArrayNode series = t.putArray("input_series");
      series.addObject().put("series", "gen_ai_server_time_to_first_token_seconds_bucket{le=\"0.75\",gen_ai_request_model=\"m\"}")
          .put("values", burning ? "0+50x30" : "0+100x30");
      series.addObject().put("series", "gen_ai_server_time_to_first_token_seconds_count{gen_ai_request_model=\"m\"}")
          .put("values", "0+100x30");
      ArrayNode checks = t.putArray("alert_rule_test");
      for (String alert : List.of("TokenmeterSloFastBurn", "TokenmeterSloSlowBurn")) {
        ObjectNode c = checks.addObject();
        c.put("eval_time", "10m");
        c.put("alertname", alert);
        ArrayNode expected = c.putArray("exp_alerts");
        if (burning) {
          JsonNode r = rule(rules, "alert", alert, slo);
          ObjectNode e = expected.addObject();
          e.set("exp_labels", r.get("labels"));
          e.set("exp_annotations", r.get("annotations"));
        }
      }
    }
    return YAML.writeValueAsString(root);
  }

  private PrometheusServer.ToolResult promtool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(PrometheusServer.PROMTOOL.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
    return new PrometheusServer.ToolResult(p.exitValue(), out);
  }
}
