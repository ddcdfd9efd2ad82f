package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Exposition;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboards in docs/grafana/ are valid dashboards (panels with positions, targets,
 * the Prometheus data source as a variable) whose every PromQL expression names only series the
 * code exposes: the names are taken from real expositions of {@link BenchMetrics} and {@link
 * PrometheusProxyMetrics} after requests of every kind, not from a list kept by hand.
 */
class GrafanaDashboardTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** PromQL words that are not metric names: aggregation modifiers, set operators, keywords. */
  private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
      "group_right", "offset", "bool", "and", "or", "unless", "inf", "nan");
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(([a-zA-Z_:][a-zA-Z0-9_:]*),\\s*[a-zA-Z_][a-zA-Z0-9_]*\\)");
  private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

  @Test
  void theBenchDashboardUsesOnlyNamesBenchExposes() throws Exception {
    check("tokenmeter-bench.json", benchNames());
  }

  @Test
  void theProxyDashboardUsesOnlyNamesTheProxyExposes() throws Exception {
    check("tokenmeter-proxy.json", proxyNames());
  }

  @Test
  void metricNamesAreTakenFromAnExpressionAndNothingElse() {
    assertThat(metricNames("histogram_quantile(0.99, sum by (le, stage) (rate(a_bucket{x=~\"$v\",le!=\"1\"}[$__rate_interval])))"
        + " / on (stage) group_left b_total * 3600 > bool 0 or vector(1)"))
        .containsExactly("a_bucket", "b_total");
    assertThat(metricNames("sum(c) without (d) offset 5m")).containsExactly("c");
  }

  private static void check(String file, Set<String> exposed) throws Exception {
    JsonNode d = JSON.readTree(Path.of("docs/grafana", file).toFile());
    assertThat(d.path("uid").asText()).isNotBlank();
    assertThat(d.path("title").asText()).isNotBlank();
    assertThat(d.path("schemaVersion").isInt()).isTrue();
    JsonNode variables = d.path("templating").path("list");
    assertThat(variables.findValuesAsText("name")).contains("datasource");
    for (JsonNode v : variables) {
      if (v.path("name").asText().equals("datasource")) {
        assertThat(v.path("type").asText()).isEqualTo("datasource");
        assertThat(v.path("query").asText()).isEqualTo("prometheus");
      } else {
        assertThat(v.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
        Matcher labelValues = LABEL_VALUES.matcher(v.path("definition").asText());
        assertThat(labelValues.matches()).as(v.path("name").asText() + ": label_values(METRIC, LABEL)").isTrue();
        assertThat(exposed).as(v.path("name").asText()).contains(labelValues.group(1));
      }
    }
    JsonNode panels = d.path("panels");
    assertThat(panels.isArray()).isTrue();
    assertThat(panels.size()).isGreaterThanOrEqualTo(8);
    Set<Integer> ids = new HashSet<>();
    Set<String> used = new TreeSet<>();
    for (JsonNode p : panels) {
      String title = p.path("title").asText();
      assertThat(title).isNotBlank();
      assertThat(ids.add(p.path("id").asInt())).as("panel id unique: " + title).isTrue();
      assertThat(p.path("type").asText()).as(title).isIn("timeseries", "stat");
      JsonNode pos = p.path("gridPos");
      for (String k : new String[] {"h", "w", "x", "y"}) {
        assertThat(pos.path(k).isInt()).as(title + " gridPos." + k).isTrue();
      }
      assertThat(pos.path("x").asInt() + pos.path("w").asInt()).as(title + " fits 24 columns").isLessThanOrEqualTo(24);
      assertThat(p.path("datasource").path("uid").asText()).as(title).isEqualTo("${datasource}");
      JsonNode targets = p.path("targets");
      assertThat(targets.size()).as(title + " targets").isPositive();
      Set<String> refIds = new HashSet<>();
      for (JsonNode t : targets) {
        assertThat(refIds.add(t.path("refId").asText())).as(title + " refId unique").isTrue();
        String expr = t.path("expr").asText();
        Set<String> names = metricNames(expr);
        assertThat(names).as(title + ": " + expr).isNotEmpty();
        assertThat(exposed).as(title + ": names of " + expr).containsAll(names);
        used.addAll(names);
      }
    }
    assertThat(used).as("the dashboard shows token usage").anyMatch(n -> n.startsWith("gen_ai_client_token_usage"));
  }

  /** The metric names in a PromQL expression: identifiers outside label matchers, ranges and strings, not calls. */
  static Set<String> metricNames(String expr) {
    String s = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"") // strings
        .replaceAll("\\{[^}]*}", " ") // label matchers
        .replaceAll("\\[[^]]*]", " ") // ranges and subqueries
        .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ") // label lists
        .replaceAll("\\boffset\\s+\\S+", " ");
    Set<String> names = new LinkedHashSet<>();
    Matcher m = IDENTIFIER.matcher(s);
    while (m.find()) {
      String word = m.group();
      int after = m.end();
      while (after < s.length() && s.charAt(after) == ' ') {
        after++;
      }
      boolean call = after < s.length() && s.charAt(after) == '(';
      boolean number = m.start() > 0 && Character.isDigit(s.charAt(m.start() - 1));
      if (!call && !number && !KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
        names.add(word);
      }
    }
    return names;
  }

  /** Every series name in a bench exposition with every family populated. */
  private static Set<String> benchNames() throws Exception {
    try (BenchMetrics metrics = Populated.bench()) {
      return names(BenchMetricsTest.scrape(metrics));
    }
  }

  /** Every series name in a proxy exposition with every family populated. */
  private static Set<String> proxyNames() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Populated.proxy().scrape(out);
    return names(Exposition.parse(out.toString(StandardCharsets.UTF_8)));
  }

  private static Set<String> names(Exposition e) {
    Set<String> names = new TreeSet<>();
    e.samples().forEach(s -> names.add(s.name()));
    return names;
  }
}
