package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read-batch events: one per loop turn that read, with its read count and stamp span. */
class ReadBatchProbeTest {
  private static final String EVENT = "dev.tokenmeter.ReadBatch";

  @TempDir Path dir;

  @Test
  void aTurnReportsItsReadsAndTheSpanOfTheirStamps() throws Exception {
    ReadBatchProbe probe = new ReadBatchProbe();
    List<RecordedEvent> events =
        recorded(
            () -> {
              probe.read(1_000);
              probe.read(1_150);
              probe.read(1_400);
              probe.endTurn();
              probe.endTurn(); // a turn without reads: nothing
              probe.read(7_000);
              probe.endTurn();
            });
    // Only this thread's: a loop of an earlier test may still be winding down.
    String me = Thread.currentThread().getName();
    events = events.stream().filter(e -> me.equals(e.getThread().getJavaName())).toList();
    assertThat(events).hasSize(2);
    assertThat(events.get(0).getInt("reads")).isEqualTo(3);
    assertThat(events.get(0).getDuration("spanNanos").toNanos()).isEqualTo(400);
    assertThat(events.get(1).getInt("reads")).isEqualTo(1);
    assertThat(events.get(1).getDuration("spanNanos").toNanos()).isZero();
  }

  @Test
  void theClientsLoopReportsEveryReadOfARun() throws Exception {
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 5))) {
      List<RecordedEvent> events =
          recorded(() -> StageKit.run(StageKit.stage(sim).closed(4).requests(8).maxTokens(5)));
      long reads = events.stream().mapToLong(e -> e.getInt("reads")).sum();
      // At least one read per response (each is requested after the last one ended); a loaded
      // machine can merge a response's headers and paced tokens into one read (13 seen for 8).
      assertThat(reads).isGreaterThanOrEqualTo(8);
      assertThat(events).allSatisfy(e -> assertThat(e.getDuration("spanNanos").toNanos()).isNotNegative());
    }
  }

  private List<RecordedEvent> recorded(Runnable action) throws Exception {
    Path file = Files.createTempFile(dir, "probe", ".jfr");
    try (Recording r = new Recording()) {
      r.enable(EVENT);
      r.start();
      action.run();
      r.stop();
      r.dump(file);
    }
    return RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().equals(EVENT))
        .toList();
  }
}
