package dev.tokenmeter.proxy.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoardJsonTest {
  @Test
  void theFeedIsSnakeCaseJsonWithNullForMissingFigures() throws Exception {
    LiveBoard b = new LiveBoard(LiveBoard.Setup.of(List.of("a"), n -> 2),
        InstantSource.fixed(Instant.ofEpochMilli(LiveBoardTest.T0)));
    JsonNode j = new ObjectMapper().readTree(BoardJson.write(b.view(300)));
    assertThat(j.get("window_seconds").asLong()).isEqualTo(300);
    assertThat(j.at("/ttft_ms/p50").isNull()).isTrue();
    assertThat(j.at("/decode_tps/fluid_tps").asDouble()).isEqualTo(30);
    assertThat(j.at("/rates/seconds/output").size()).isEqualTo(300);
    assertThat(j.at("/upstreams/0/in_flight").asInt()).isEqualTo(2);
    assertThat(j.at("/upstreams/0/warm_up/state").asText()).isEqualTo("idle");
    assertThat(j.at("/slo/configured").asBoolean()).isFalse();
    assertThat(j.at("/slo/objectives").isArray()).isTrue();
    assertThat(j.at("/ledger/state").asText()).isEqualTo("none");
  }

  @Test
  void theFeedSaysWhileTheLedgerFailsAndWhatItDropped() throws Exception {
    LiveBoard b = new LiveBoard(LiveBoard.Setup.of(List.of("a"), n -> 0),
        InstantSource.fixed(Instant.ofEpochMilli(LiveBoardTest.T0)));
    b.ledgerHealth(() -> new BoardView.Ledger("failing", 12L, 6, 340, 300, "database is locked"));
    JsonNode l = new ObjectMapper().readTree(BoardJson.write(b.view(300))).get("ledger");
    assertThat(l.get("state").asText()).isEqualTo("failing");
    assertThat(l.get("failing_for_seconds").asLong()).isEqualTo(12);
    assertThat(l.get("failed_commits").asLong()).isEqualTo(6);
    assertThat(l.get("dropped_records").asLong()).isEqualTo(340);
    assertThat(l.get("dropped_this_outage").asLong()).isEqualTo(300);
    assertThat(l.get("last_error").asText()).isEqualTo("database is locked");
    b.ledgerHealth(() -> new BoardView.Ledger("ok", null, 6, 340, 0, null));
    l = new ObjectMapper().readTree(BoardJson.write(b.view(300))).get("ledger");
    assertThat(l.get("state").asText()).isEqualTo("ok");
    assertThat(l.get("failing_for_seconds").isNull()).isTrue();
  }

  @Test
  void thePageIsSelfContained() {
    String page = new String(BoardJson.page(), StandardCharsets.UTF_8);
    assertThat(page).startsWith("<!DOCTYPE html>").contains("/dashboard/data").contains("no SLOs configured")
        .contains("id=\"ledger-banner\"");
    // nothing loaded from elsewhere: no src or href attributes, no address but the SVG namespace
    assertThat(page).doesNotContainPattern("(?i)\\s(src|href)\\s*=");
    assertThat(page.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://").doesNotContain("https://");
  }
}
