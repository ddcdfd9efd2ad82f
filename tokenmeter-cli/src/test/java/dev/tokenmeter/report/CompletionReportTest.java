package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.Completions;
import dev.tokenmeter.report.html.HtmlReport;
import java.io.StringWriter;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** report.html's "Code completion" section, read back from summary.json's completion object. */
class CompletionReportTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aCompletionStageGetsItsSectionWithHowItsRequestsEnded() throws Exception {
    Histogram ttft = new Histogram(3);
    ttft.recordValueWithCount(30_000_000, 9);
    ttft.recordValue(90_000_000);
    Completions c = new Completions(40, 10, 24, 3, 1, 2, ttft, Completions.ServerStop.STOPPED);
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(w)) {
      g.writeStartObject();
      CompletionJsonWriter.write(g, c);
      g.writeEndObject();
    }
    ObjectNode run = (ObjectNode) JSON.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    ((ObjectNode) run.at("/stages/0")).setAll((ObjectNode) JSON.readTree(w.toString()));
    SavedSummary saved = SummaryJsonReader.read(run);

    SavedCompletion read = saved.stages().get(0).detail().completion();
    assertThat(read.sent()).isEqualTo(40);
    assertThat(read.cancelledShare()).isEqualTo(27 / 40.0);
    assertThat(saved.stages().get(1).detail().completion()).isNull();

    String page = HtmlReport.render(saved, null);
    int at = page.indexOf("id=\"completion-0\"");
    assertThat(at).isPositive();
    String section = page.substring(at, page.indexOf("</div>", at));
    assertThat(section).contains("<h4>Code completion</h4>")
        .contains(c.inWords().replace("'", "&#39;").substring(0, 40))
        .contains("<td>40</td><td>10</td><td>24</td><td>3</td><td>1</td><td>2</td><td>68%</td>")
        .contains("<td>stopped generating</td>");
    assertThat(page).doesNotContain("id=\"completion-1\"");
  }
}
