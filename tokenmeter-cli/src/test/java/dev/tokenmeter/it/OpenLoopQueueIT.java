package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.GenerationRequest;
import dev.tokenmeter.simulator.TimingModel;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coordinated omission under {@code --rate R --max-concurrency M}: a server that slows down mid-run
 * makes arrivals queue for a slot. Timed from the send, the slow requests look like the server's
 * 400 ms; timed from the schedule (the headline of an open loop) they show the queue the user
 * waited in, and a bare {@code ttft.p99} SLO follows the user.
 *
 * <p>Numbers: 20 requests/s, constant arrivals, at most 4 in flight, 4 s window. The first 30
 * requests get TTFT 20 ms (4 slots serve up to about 130/s); from the 31st, 400 ms (4 slots serve
 * about 9.4/s against 20 arriving): the queue grows by about 10 requests per second for the last
 * 2.5 s, so the last arrivals wait about 2.5 s for their send.
 */
@Timeout(60)
class OpenLoopQueueIT {
  private static final long MS = 1_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  /** TTFT 20 ms for the first {@code fast} requests the server accepts, 400 ms after; ITL 5 ms. */
  private static TimingModel slowingDown(int fast) {
    AtomicInteger accepted = new AtomicInteger();
    return new TimingModel() {
      @Override
      public long firstTokenDelayNanos(GenerationRequest r) {
        return accepted.incrementAndGet() <= fast ? 20 * MS : 400 * MS;
      }

      @Override
      public long interTokenDelayNanos(GenerationRequest r, int tokenIndex) {
        return 5 * MS;
      }
    };
  }

  @Test
  void theHeadlineAndABareTtftSloFollowTheQueueWhileTheSendBasedFigureDoesNot() throws Exception {
    Path out = tmp.resolve("run");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5).timing(slowingDown(30)))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--rate", "20", "--arrival", "constant",
          "--max-concurrency", "4", "--duration", "4s", "--warmup", "0s", "--cooldown", "0s",
          "--input-tokens", "16", "--output-tokens", "5", "--extra-body", "{\"ignore_eos\":true}",
          "--slo", "ttft.p99<=1s,ttft_sent.p99<=1s", "--out", out.toString());
    }
    assertThat(r.exitCode()).as(r.both()).isEqualTo(3); // the SLO is missed

    // Per request: from the send every slow TTFT is the server's 400 ms; from the schedule the last
    // arrivals waited seconds before that.
    List<JsonNode> measured = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode n = JSON.readTree(line);
      if ("measured".equals(n.path("phase").asText()) && n.path("ok").asBoolean()) {
        measured.add(n);
      }
    }
    measured.sort(Comparator.comparingDouble(n -> n.get("scheduled_at_ms").asDouble()));
    assertThat(measured).hasSizeBetween(76, 81);
    for (JsonNode n : measured) {
      assertThat(n.get("ttft_ms").asDouble()).as(n.toString()).isLessThan(700);
    }
    double early = measured.subList(0, 20).stream().mapToDouble(n -> n.get("ttft_from_scheduled_ms").asDouble()).max().orElseThrow();
    double late = measured.subList(measured.size() - 10, measured.size()).stream()
        .mapToDouble(n -> n.get("ttft_from_scheduled_ms").asDouble()).min().orElseThrow();
    assertThat(early).isLessThan(200);
    assertThat(late).isGreaterThan(1_500);

    // The stage: the headline is from the schedule, the verdicts follow each named origin.
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode stage = summary.at("/stages/0");
    assertThat(stage.get("headline_latency_from").asText()).isEqualTo("scheduled");
    double fromSchedule = stage.at("/metrics/ttft_from_scheduled_ms/p99").asDouble();
    double fromSend = stage.at("/metrics/ttft_ms/p99").asDouble();
    assertThat(fromSchedule).isGreaterThan(1_500);
    assertThat(fromSend).isLessThan(700);
    JsonNode point = summary.at("/sweep/points/0");
    assertThat(point.get("ttft_p99_ms").asDouble()).isEqualTo(fromSchedule);
    assertThat(point.get("ttft_sent_p99_ms").asDouble()).isEqualTo(fromSend);
    JsonNode checks = summary.at("/slo/stages/0/checks");
    assertThat(checks.get(0).get("passed").asBoolean()).isFalse();
    assertThat(checks.get(0).get("measured").asDouble()).isEqualTo(fromSchedule);
    assertThat(checks.get(1).get("passed").asBoolean()).isTrue();
    assertThat(checks.get(1).get("measured").asDouble()).isEqualTo(fromSend);

    // The console leads with the user's wait and says, in one line, that the send lag matters.
    assertThat(r.out()).contains("TTFT ms (from schedule)", "TTFT ms (from send)");
    assertThat(r.out().lines().filter(l -> l.contains("from schedule to send"))).hasSize(1);
  }
}
