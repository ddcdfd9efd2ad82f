package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every API end to end over real sockets: {@code sim serve} answers each on its own path with the
 * same engine timing, and each adapter reads it back to the simulator's known truth (tokens,
 * usage, arrival after the server's write, finish reason, the in-stream error and HTTP errors).
 */
@Timeout(60)
class EveryApiIT {
  private static final int TOKENS = 5;

  @ParameterizedTest(name = "{0} stream={1}")
  @CsvSource({
    "ANTHROPIC, true", "ANTHROPIC, false", "RESPONSES, true", "RESPONSES, false", "GEMINI, true", "GEMINI, false",
    "TGI, true", "TGI, false", "OLLAMA, true", "OLLAMA, false", "OLLAMA_GENERATE, true", "OLLAMA_GENERATE, false"
  })
  void eachApiIsReadToTheSimulatorsTruth(Api api, boolean stream) {
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5))) {
      StageRun run = StageKit.run(StageKit.stage(sim).api(api).stream(stream).closed(2).requests(4).maxTokens(TOKENS));
      sim.awaitAllRecords(3_000);
      joined = run.join(sim);
    }
    assertThat(joined).hasSize(4);
    for (StageRun.Joined j : joined) {
      RequestTimeline t = j.timeline();
      RequestMetrics m = j.metrics();
      EmissionRecord truth = j.truth();
      assertThat(truth.request().api().name()).isEqualTo(api.name());
      assertThat(truth.request().stream()).isEqualTo(stream);
      assertThat(t.outcome()).as(j.describe()).isEqualTo(new Outcome.Completed("length"));
      assertThat(truth.tokenCount()).isEqualTo(TOKENS);
      assertThat(m.outputTokens()).isEqualTo(TOKENS);
      assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.USAGE);
      assertThat(m.usagePromptTokens()).isEqualTo(truth.request().promptTokens()).isPositive();
      long[] actual = truth.actualNanos();
      if (stream) {
        assertThat(t.chunkCount()).as(j.describe()).isEqualTo(TOKENS);
        for (int i = 0; i < TOKENS; i++) {
          assertThat(t.chunkNanos(i)).isGreaterThanOrEqualTo(actual[i]);
        }
        assertThat(m.ttftNanos()).isGreaterThanOrEqualTo(actual[0] - t.sentNanos());
      } else {
        assertThat(t.chunkCount()).isEqualTo(1);
        assertThat(t.firstTokenNanos()).isGreaterThanOrEqualTo(actual[TOKENS - 1]);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = Api.class, names = {"ANTHROPIC", "RESPONSES", "GEMINI", "TGI", "OLLAMA", "OLLAMA_GENERATE"})
  void aNaturalStopIsStopAndCountsTheEosToken(Api api) {
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2))) {
      StageRun run = StageKit.run(StageKit.stage(sim).api(api).extraBody(null).closed(1).requests(2).maxTokens(50));
      sim.awaitAllRecords(3_000);
      joined = run.join(sim);
    }
    for (StageRun.Joined j : joined) {
      assertThat(j.timeline().outcome()).as(j.describe()).isEqualTo(new Outcome.Completed("stop"));
      assertThat(j.metrics().outputTokens()).isEqualTo(j.truth().tokenCount()).isEqualTo(8);
      assertThat(j.timeline().content().length()).isPositive();
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "ANTHROPIC, ERROR_EVENT", "RESPONSES, ERROR_EVENT", "GEMINI, ERROR_EVENT", "TGI, ERROR_EVENT", "OLLAMA, ERROR_EVENT",
    "ANTHROPIC, HTTP_429", "GEMINI, HTTP_503", "OLLAMA_GENERATE, MALFORMED_CHUNK", "RESPONSES, DISCONNECT"
  })
  void faultsAreClassifiedInEveryApi(Api api, Fault fault) {
    Faults faults = Faults.none().with(fault, 1.0).withAfterTokens(2);
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5).faults(faults))) {
      StageRun run = StageKit.run(StageKit.stage(sim).api(api).closed(1).requests(2).maxTokens(TOKENS)
          .timeoutsMillis(2_000, 2_000, 5_000));
      sim.awaitAllRecords(3_000);
      joined = run.join(sim);
    }
    ErrorClass expected = switch (fault) {
      case ERROR_EVENT -> ErrorClass.STREAM_ERROR;
      case HTTP_429 -> ErrorClass.HTTP_429;
      case HTTP_503 -> ErrorClass.HTTP_5XX;
      case MALFORMED_CHUNK -> ErrorClass.PROTOCOL;
      default -> ErrorClass.TRUNCATED;
    };
    assertThat(joined).hasSize(2);
    for (StageRun.Joined j : joined) {
      Outcome o = j.timeline().outcome();
      assertThat(o.errorClass()).as(j.describe()).isEqualTo(expected);
      if (o instanceof Outcome.HttpError h && api == Api.ANTHROPIC) {
        assertThat(h.body()).startsWith("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"");
      }
      if (o instanceof Outcome.HttpError h && api == Api.GEMINI) {
        assertThat(h.body()).contains("\"status\":\"UNAVAILABLE\"");
      }
      if (fault == Fault.ERROR_EVENT) {
        assertThat(j.timeline().chunkCount()).isEqualTo(2);
      }
    }
  }

  @Test
  void benchRunsClaudeGeminiAndOllamaAgainstChatAsVariantsUnderOneSchedule(@TempDir Path tmp) throws IOException {
    Path out = tmp.resolve("apis");
    Cli.Result r;
    long generations;
    try (SimFixture sim = SimFixture.start(SimFixture.config(2, 1))) {
      r = Cli.run(
          "bench", "--url", sim.baseUrl(), "--concurrency", "4", "--duration", "500ms", "--warmup", "0s",
          "--cooldown", "0s", "--input-tokens", "32", "--output-tokens", "4", "--extra-body", "{\"ignore_eos\":true}",
          "--variant", "gpt", "--variant", "claude:api=anthropic", "--variant", "gemini:api=gemini",
          "--variant", "llama:api=ollama", "--out", out.toString(), "-q");
      generations = sim.server().stats().generations();
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).as(r.both()).contains("--model not given; using the server's first model 'tokenmeter-sim'");
    long requests = 0;
    for (String v : List.of("gpt", "claude", "gemini", "llama")) {
      JsonNode summary = new ObjectMapper().readTree(out.resolve(v + "/summary.json").toFile());
      assertThat(summary.path("target").path("api").asText()).isEqualTo(v.equals("gpt") ? "chat"
          : v.equals("claude") ? "anthropic" : v.equals("gemini") ? "gemini" : "ollama");
      List<String> lines = Files.readAllLines(out.resolve(v + "/requests.jsonl"));
      assertThat(lines).as(v).isNotEmpty();
      long ok = 0;
      for (String line : lines) {
        JsonNode req = new ObjectMapper().readTree(line);
        if (req.path("ok").asBoolean()) {
          ok++;
          assertThat(req.path("output_tokens_source").asText()).as(v + " " + line).isEqualTo("usage");
          assertThat(req.path("finish_reason").asText()).as(v + " " + line).isEqualTo("length");
        } else {
          assertThat(req.path("error_class").asText()).as(v + " " + line).isEqualTo("cancelled");
        }
      }
      assertThat(ok).as(v).isPositive();
      requests += lines.size();
    }
    assertThat(requests).isGreaterThanOrEqualTo(generations);
  }
}
