package dev.tokenmeter.report;

import static dev.tokenmeter.core.analysis.ConstructedStages.dist;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ConstructedStages;
import dev.tokenmeter.core.analysis.LoadSearch;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.slo.Slo;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** JUnit XML parsed back with a DOM parser, the Markdown table and the terminal table. */
class SloOutputsTest {
  private static final Slo SLO = Slo.parse("ttft.p99<=800ms,errors<=1%");
  private static final Instant AT = Instant.parse("2025-03-01T10:00:00Z");

  /** c=1 passes both objectives; c=8 has TTFT p99 912 ms and 2% errors. */
  private static List<StageResult> stages() {
    return stages(8);
  }

  private static List<StageResult> stages(int c) {
    return List.of(
        ConstructedStages.closed(0, 1).requests(100, 0).tps(50).metric(Metric.TTFT, dist(100, 50, 80, 120)).build(),
        ConstructedStages.closed(1, c).requests(98, 2).tps(20).metric(Metric.TTFT, dist(98, 300, 500, 912)).build());
  }

  private static Document parse(String xml) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void junitHasOneTestCasePerStageAndObjectiveAndAFailurePerViolation() throws Exception {
    RunAnalysis a = RunAnalysis.of(stages(), 30, Double.NaN, SLO, null);
    Document doc = parse(JUnitXml.render(a, stages(), "http://127.0.0.1:8000", AT));
    Element suites = doc.getDocumentElement();
    assertThat(suites.getTagName()).isEqualTo("testsuites");
    NodeList suite = suites.getElementsByTagName("testsuite");
    assertThat(suite.getLength()).isEqualTo(1);
    Element s = (Element) suite.item(0);
    for (Element e : List.of(suites, s)) {
      assertThat(e.getAttribute("tests")).isEqualTo("4");
      assertThat(e.getAttribute("failures")).isEqualTo("2");
      assertThat(e.getAttribute("errors")).isEqualTo("0");
      assertThat(e.getAttribute("skipped")).isEqualTo("0");
      assertThat(e.getAttribute("time")).isEqualTo("20.000"); // two 10 s stages
    }
    assertThat(s.getAttribute("timestamp")).isEqualTo("2025-03-01T10:00:00");
    assertThat(s.getAttribute("name")).isEqualTo("tokenmeter SLO ttft.p99<=800ms,errors<=1% on http://127.0.0.1:8000");
    NodeList cases = s.getElementsByTagName("testcase");
    assertThat(cases.getLength()).isEqualTo(4);
    Element ttftAt8 = (Element) cases.item(2);
    assertThat(ttftAt8.getAttribute("classname")).isEqualTo("stage 2 c=8");
    assertThat(ttftAt8.getAttribute("name")).isEqualTo("ttft.p99 <= 800 ms");
    Element failure = (Element) ttftAt8.getElementsByTagName("failure").item(0);
    assertThat(failure.getAttribute("message")).isEqualTo("912 ms > 800 ms");
    assertThat(failure.getTextContent()).isEqualTo("c=8: ttft.p99 measured 912 ms > 800 ms; objective ttft.p99 <= 800 ms");
    assertThat(((Element) cases.item(3)).getElementsByTagName("failure").item(0).getAttributes()
        .getNamedItem("message").getNodeValue()).isEqualTo("2% > 1%");
    assertThat(((Element) cases.item(0)).getElementsByTagName("failure").getLength()).isZero();
  }

  @Test
  void inASearchFailedProbesAreSkippedAndTheSearchIsTheTest() throws Exception {
    RunAnalysis a = RunAnalysis.of(stages(2), 30, Double.NaN, SLO, new LoadSearch(1, 64, true, 0, 10));
    assertThat(a.sloViolated()).isFalse(); // c=1 met it
    Document doc = parse(JUnitXml.render(a, stages(2), "t", AT));
    Element s = (Element) doc.getElementsByTagName("testsuite").item(0);
    assertThat(s.getAttribute("tests")).isEqualTo("5");
    assertThat(s.getAttribute("failures")).isEqualTo("0");
    assertThat(s.getAttribute("skipped")).isEqualTo("2");
    NodeList cases = s.getElementsByTagName("testcase");
    Element search = (Element) cases.item(4);
    assertThat(search.getAttribute("classname")).isEqualTo("capacity search");
    assertThat(search.getTextContent())
        .isEqualTo("Highest load meeting the SLO: c=1 (goodput - req/s); c=2 failed ttft.p99 (912 ms > 800 ms), errors (2% > 1%).");
  }

  @Test
  void markdownAndConsoleTablesShowEveryCheck() {
    RunAnalysis a = RunAnalysis.of(stages(), 30, Double.NaN, SLO, null);
    assertThat(SloRender.markdown(a, "http://x"))
        .isEqualTo("""
            ### tokenmeter SLO ❌ violated

            Target `http://x`, SLO `ttft.p99<=800ms,errors<=1%`

            | load | ttft.p99 <= 800 ms | errors <= 1% | result |
            |---|---:|---:|---|
            | c=1 | ✅ 120 ms | ✅ 0% | ✅ pass |
            | c=8 | ❌ 912 ms | ❌ 2% | ❌ ttft.p99 (912 ms > 800 ms), errors (2% > 1%) |

            Knee: per-user decode TPS (p50) falls below 30 tok/s between c=1 (50 tok/s) and c=8 (20 tok/s), \
            at about c=5.7 by linear interpolation; the last load meeting it is c=1.
            """);
    assertThat(SloRender.console(a).lines().toList())
        .containsExactly(
            "SLO ttft.p99 <= 800 ms, errors <= 1%: VIOLATED (1 of 2 stages met every objective)",
            "  load                    ttft.p99 <= 800 ms  errors <= 1%  verdict",
            "  c=1                     ok 120.0            ok 0.00       pass",
            "  c=8                     FAIL 912.0          FAIL 2.00     FAIL: ttft.p99 (912 ms > 800 ms), errors (2% > 1%)");
  }
}
