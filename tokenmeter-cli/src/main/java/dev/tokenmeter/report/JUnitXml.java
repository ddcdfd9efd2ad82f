package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.slo.SearchResult;
import dev.tokenmeter.core.slo.SloReport;
import java.io.StringWriter;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The SLO verdicts as JUnit XML ({@code --junit FILE}), in the shape Jenkins, GitHub and GitLab
 * test reporters read: {@code <testsuites>} holding one {@code <testsuite>} per run, one {@code
 * <testcase>} per stage × objective ({@code classname} the stage, {@code name} the objective), a
 * {@code <failure message="912 ms > 800 ms">} on each violation; {@code tests}, {@code failures},
 * {@code errors}, {@code skipped} and {@code time} (seconds) counted on both elements.
 *
 * <p>In a capacity search, a failed probe above the answer is expected: its failed checks are
 * {@code <skipped>}, and one more test case, {@code capacity search}, fails when no load met the
 * SLO. Pure: returns the text.
 */
public final class JUnitXml {
  private JUnitXml() {}

  /** The XML document for {@code a} (whose {@code slo} is set) over {@code stages}. */
  public static String render(RunAnalysis a, List<StageResult> stages, String target, Instant startedAt) {
    SloReport r = a.slo();
    SearchResult search = a.search();
    int tests = 0;
    int failures = 0;
    int skipped = 0;
    for (SloReport.StageVerdict v : r.stages()) {
      for (SloReport.Check c : v.checks()) {
        tests++;
        if (!c.passed()) {
          if (search != null) {
            skipped++;
          } else {
            failures++;
          }
        }
      }
    }
    if (search != null) {
      tests++;
      failures += search.found() ? 0 : 1;
    }
    double seconds = stages.stream().mapToLong(StageResult::stageLengthNanos).sum() / 1e9;
    StringWriter text = new StringWriter();
    try {
      XMLStreamWriter x = XMLOutputFactory.newFactory().createXMLStreamWriter(text);
      x.writeStartDocument("UTF-8", "1.0");
      x.writeCharacters("\n");
      x.writeStartElement("testsuites");
      x.writeAttribute("name", "tokenmeter");
      counts(x, tests, failures, skipped, seconds);
      x.writeCharacters("\n  ");
      x.writeStartElement("testsuite");
      x.writeAttribute("name", "tokenmeter SLO " + r.slo().text() + " on " + target);
      counts(x, tests, failures, skipped, seconds);
      x.writeAttribute("timestamp", DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
          startedAt.truncatedTo(ChronoUnit.SECONDS).atOffset(java.time.ZoneOffset.UTC)));
      x.writeCharacters("\n    ");
      x.writeStartElement("properties");
      property(x, "target", target);
      property(x, "slo", r.slo().text());
      x.writeEndElement();
      for (int i = 0; i < r.stages().size(); i++) {
        SloReport.StageVerdict v = r.stages().get(i);
        double stageSeconds = i < stages.size() ? stages.get(i).stageLengthNanos() / 1e9 : 0;
        for (SloReport.Check c : v.checks()) {
          x.writeCharacters("\n    ");
          x.writeStartElement("testcase");
          x.writeAttribute("classname", "stage " + (v.index() + 1) + " " + v.label());
          x.writeAttribute("name", c.objective().describe());
          x.writeAttribute("time", secs(stageSeconds / v.checks().size()));
          if (!c.passed()) {
            boolean probe = search != null;
            x.writeStartElement(probe ? "skipped" : "failure");
            x.writeAttribute("message", (probe ? "probe above the capacity found: " : "") + c.note());
            if (!probe) {
              x.writeAttribute("type", "SloViolation");
              x.writeCharacters(v.label() + ": " + c.objective().name() + " measured " + c.note()
                  + "; objective " + c.objective().describe());
            }
            x.writeEndElement();
          }
          x.writeEndElement();
        }
      }
      if (search != null) {
        x.writeCharacters("\n    ");
        x.writeStartElement("testcase");
        x.writeAttribute("classname", "capacity search");
        x.writeAttribute("name", "highest " + search.loadKind() + " meeting the SLO");
        x.writeAttribute("time", "0");
        if (!search.found()) {
          x.writeStartElement("failure");
          x.writeAttribute("message", search.statement());
          x.writeAttribute("type", "SloViolation");
          x.writeEndElement();
        } else {
          x.writeStartElement("system-out");
          x.writeCharacters(search.statement());
          x.writeEndElement();
        }
        x.writeEndElement();
      }
      x.writeCharacters("\n  ");
      x.writeEndElement();
      x.writeCharacters("\n");
      x.writeEndElement();
      x.writeCharacters("\n");
      x.writeEndDocument();
      x.close();
    } catch (XMLStreamException e) {
      throw new IllegalStateException("writing JUnit XML to a string failed", e);
    }
    return text.toString();
  }

  private static void counts(XMLStreamWriter x, int tests, int failures, int skipped, double seconds)
      throws XMLStreamException {
    x.writeAttribute("tests", Integer.toString(tests));
    x.writeAttribute("failures", Integer.toString(failures));
    x.writeAttribute("errors", "0");
    x.writeAttribute("skipped", Integer.toString(skipped));
    x.writeAttribute("time", secs(seconds));
  }

  private static void property(XMLStreamWriter x, String name, String value) throws XMLStreamException {
    x.writeEmptyElement("property");
    x.writeAttribute("name", name);
    x.writeAttribute("value", value);
  }

  private static String secs(double s) {
    return String.format(Locale.ROOT, "%.3f", s);
  }
}
