package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every fault the simulator injects ends up in its error class, and the stage goes on: with the
 * fault at probability 1, all 4 measured requests of a 2-user closed loop fail the same way (so at
 * least 2 were started after a failure), and a seeded mix classifies each request by the fault the
 * server says it injected.
 */
@Timeout(60)
class FaultsIT {
  private static final long MS = 1_000_000L;

  /** Mid-stream faults act when token 2 is due, after 2 tokens (of 5). */
  private static final int AFTER_TOKENS = 2;

  static Stream<Arguments> faults() {
    return Stream.of(
        Arguments.of(Fault.HTTP_429, ErrorClass.HTTP_429),
        Arguments.of(Fault.HTTP_500, ErrorClass.HTTP_5XX),
        Arguments.of(Fault.HTTP_503, ErrorClass.HTTP_5XX),
        Arguments.of(Fault.DISCONNECT, ErrorClass.TRUNCATED),
        Arguments.of(Fault.MALFORMED_CHUNK, ErrorClass.PROTOCOL),
        Arguments.of(Fault.ERROR_EVENT, ErrorClass.STREAM_ERROR),
        Arguments.of(Fault.STALL, ErrorClass.TIMEOUT_IDLE),
        Arguments.of(Fault.SLOW_HEADERS, ErrorClass.TIMEOUT_FIRST_TOKEN));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("faults")
  void eachFaultIsClassified(Fault fault, ErrorClass expected) {
    Faults faults =
        Faults.none()
            .with(fault, 1.0)
            .withAfterTokens(AFTER_TOKENS)
            .withStallNanos(3_000 * MS)
            .withSlowHeadersNanos(3_000 * MS);
    StageRun run;
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5).faults(faults))) {
      // Idle 600 ms < the 3 s stall; first token 600 ms < the 3 s header delay. Not shorter: on a
      // busy machine a new connection's first request reached the server 194 ms after it was sent.
      run =
          StageKit.run(
              StageKit.stage(sim)
                  .closed(2)
                  .requests(4)
                  .maxTokens(5)
                  .timeoutsMillis(600, 600, 8_000));
      sim.awaitAllRecords(5_000);
      joined = run.join(sim);
    }
    assertThat(run.measured()).extracting(f -> f.timeline().id()).containsExactly(0L, 1L, 2L, 3L);
    for (StageRun.Joined j : joined) {
      RequestTimeline t = j.timeline();
      EmissionRecord truth = j.truth();
      assertThat(j.metrics().errorClass()).as(j.describe()).isEqualTo(expected);
      assertThat(truth).as(j.describe()).isNotNull();
      assertThat(truth.fault()).isEqualTo(fault);
      switch (fault) {
        case HTTP_429, HTTP_500, HTTP_503 -> {
          assertThat(t.httpStatus()).isEqualTo(Integer.parseInt(fault.name().substring(5)));
          assertThat(t.chunkCount()).isZero();
        }
        case DISCONNECT, ERROR_EVENT -> {
          // Exactly the tokens the server wrote before the fault arrived, and no more.
          assertThat(truth.tokenCount()).isEqualTo(AFTER_TOKENS);
          assertThat(t.chunkCount()).isEqualTo(AFTER_TOKENS);
        }
        case MALFORMED_CHUNK -> assertThat(t.chunkCount()).isEqualTo(AFTER_TOKENS);
        case STALL -> {
          // Aborted 600 ms after the last token, give or take the 20 ms deadline sweep.
          assertThat(t.chunkCount()).isEqualTo(AFTER_TOKENS);
          assertThat(t.endNanos() - t.lastTokenNanos()).isBetween(600 * MS, 900 * MS);
          assertThat(truth.ending()).isEqualTo(EmissionRecord.Ending.CLIENT_DISCONNECT);
        }
        case SLOW_HEADERS -> {
          assertThat(t.httpStatus()).isEqualTo(-1);
          assertThat(t.endNanos() - t.sentNanos()).isBetween(600 * MS, 900 * MS);
          assertThat(truth.headersNanos()).isEqualTo(-1);
        }
        case NONE -> throw new AssertionError("not a fault");
      }
    }
    StageResult r = run.result();
    assertThat(r.requests().failed()).isEqualTo(4);
    assertThat(r.requests().completed()).isZero();
    assertThat(r.errors()).isEqualTo(Map.of(expected, 4L));
  }

  @Test
  void connectionRefusedIsConnect() {
    int port = SimFixture.closedPort();
    StageRun run =
        StageKit.run(StageKit.stage("http://127.0.0.1:" + port).closed(2).requests(4).maxTokens(5));
    assertThat(run.result().errors()).isEqualTo(Map.of(ErrorClass.CONNECT, 4L));
    assertThat(run.measured()).hasSize(4);
    assertThat(run.measured()).allSatisfy(f -> assertThat(f.timeline().sentNanos()).isEqualTo(-1));
  }

  @Test
  void aSeededMixIsClassifiedRequestByRequestAndTheRunGoesOn() {
    Faults faults =
        Faults.none().with(Fault.HTTP_429, 0.3).with(Fault.DISCONNECT, 0.3).withAfterTokens(1);
    StageRun run;
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2).faults(faults).seed(7))) {
      run = StageKit.run(StageKit.stage(sim).closed(2).requests(16).maxTokens(4));
      sim.awaitAllRecords(3_000);
      joined = run.join(sim);
    }
    Map<ErrorClass, Long> expected = new EnumMap<>(ErrorClass.class);
    boolean failedBefore = false;
    boolean succeededAfterAFailure = false;
    for (StageRun.Joined j : joined) {
      ErrorClass want =
          switch (j.truth().fault()) {
            case NONE -> null;
            case HTTP_429 -> ErrorClass.HTTP_429;
            case DISCONNECT -> ErrorClass.TRUNCATED;
            default -> throw new AssertionError("unexpected fault " + j.truth().fault());
          };
      assertThat(j.metrics().errorClass()).as(j.describe()).isEqualTo(want);
      if (want != null) {
        expected.merge(want, 1L, Long::sum);
        failedBefore = true;
      } else if (failedBefore) {
        succeededAfterAFailure = true;
      }
    }
    assertThat(run.result().errors()).isEqualTo(expected);
    // Seed 7 draws all three outcomes, and requests after a failure still succeed and count.
    assertThat(expected).containsKeys(ErrorClass.HTTP_429, ErrorClass.TRUNCATED);
    assertThat(succeededAfterAFailure).isTrue();
    long failed = expected.values().stream().mapToLong(Long::longValue).sum();
    assertThat(run.result().requests().completed()).isEqualTo(16 - failed);
  }
}
