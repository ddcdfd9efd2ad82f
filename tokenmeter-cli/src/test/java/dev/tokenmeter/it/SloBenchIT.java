package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.cli.Main;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * {@code bench --slo} over real sockets against the embedded server with a fixed schedule (TTFT 30
 * ms, ITL 5 ms): an SLO the server cannot meet exits 3 with the JUnit and Markdown files written,
 * one it meets exits 0, and goodput counts exactly the requests that met the per-request objective.
 */
@Timeout(60)
class SloBenchIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private static Cli.Result bench(SimFixture sim, Path out, String slo) {
    return Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "2", "--requests", "6", "--warmup", "0s",
        "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "5", "--extra-body", "{\"ignore_eos\":true}",
        "--slo", slo, "--junit", out.resolve("junit.xml").toString(), "--markdown",
        out.resolve("slo.md").toString(), "--out", out.toString(), "-q");
  }

  @Test
  void anSloTheServerMissesExits3AndWritesEveryFile() throws Exception {
    Path out = tmp.resolve("miss");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(30, 5))) {
      r = bench(sim, out, "ttft.p99<=10ms,errors<=1%");
    }
    assertThat(r.exitCode()).as(r.both()).isEqualTo(Main.EXIT_SLO_VIOLATED);
    assertThat(r.out()).contains("VIOLATED (0 of 1 stages met every objective)");
    assertThat(r.err()).doesNotContain("Exception");
    Element suite = (Element) DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(out.resolve("junit.xml").toFile()).getElementsByTagName("testsuite").item(0);
    assertThat(suite.getAttribute("tests")).isEqualTo("2");
    assertThat(suite.getAttribute("failures")).isEqualTo("1");
    Element failure = (Element) suite.getElementsByTagName("failure").item(0);
    assertThat(failure.getAttribute("message")).matches("[0-9.]+ ms > 10 ms");
    assertThat(Files.readString(out.resolve("slo.md"))).startsWith("### tokenmeter SLO ❌ violated")
        .contains("| c=2 | ❌ ").contains("| ✅ 0% |");
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(summary.at("/slo/violated").asBoolean()).isTrue();
    // No request had its first token within 10 ms: goodput is 0 (the window is open, so not null).
    assertThat(summary.at("/stages/0/throughput/goodput_requests_per_s").asDouble()).isZero();
  }

  @Test
  void anSloTheServerMeetsExits0WithGoodputEqualToTheRequestRate() throws Exception {
    Path out = tmp.resolve("meet");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(30, 5))) {
      r = bench(sim, out, "ttft.p99<=5s,tpot.p99<=1s,tps.p10>=1");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("met (1 of 1 stages met every objective)");
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode t = summary.at("/stages/0/throughput");
    assertThat(t.get("goodput_requests_per_s").asDouble()).isPositive().isEqualTo(t.get("requests_per_s").asDouble());
    assertThat(summary.at("/slo/stages/0/checks/0/measured").asDouble()).isBetween(30.0, 5000.0);
  }
}
