package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerFixtures;
import dev.tokenmeter.ledger.LedgerKillChild;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a process writing the ledger loses nothing older than the writer's stated bound, and
 * leaves every row it kept intact: a child JVM writes records continuously, is killed with SIGKILL
 * ({@link Process#destroyForcibly()}) mid-stream, and the ledger is read back.
 */
class LedgerKillIT {
  @TempDir Path dir;

  @Test
  void killMinusNineLosesNothingOlderThanTheBound() throws Exception {
    Path file = dir.resolve("killed.db");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child =
        new ProcessBuilder(
                java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                LedgerKillChild.class.getName(), file.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    Map<Long, Long> acceptedAt = new ConcurrentHashMap<>();
    AtomicLong boundMillis = new AtomicLong(-1);
    CountDownLatch enough = new CountDownLatch(3_000);
    Thread reader = new Thread(() -> read(child, acceptedAt, boundMillis, enough));
    reader.start();
    long killedAtMillis;
    try {
      assertThat(enough.await(60, TimeUnit.SECONDS)).as("the child accepted 3,000 records").isTrue();
      killedAtMillis = System.currentTimeMillis();
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    reader.join(10_000);
    assertThat(child.exitValue()).as("SIGKILL").isEqualTo(137);
    assertThat(boundMillis.get()).isEqualTo(500);

    Ledger ledger = Ledgers.openExisting(file.toString(), Map.of());
    List<MeteredRequest> rows = LedgerFixtures.readAll(ledger);
    Map<Long, MeteredRequest> bySeq = new HashMap<>();
    for (MeteredRequest r : rows) {
      long seq = Long.parseLong(r.requestId().substring("req-".length()));
      assertThat(bySeq.put(seq, r)).as("no duplicate rows").isNull();
      assertThat(LedgerFixtures.same(LedgerFixtures.sample(seq, r.startedAtEpochMillis()), r)).as("row %d intact", seq).isTrue();
    }
    long cutoff = killedAtMillis - boundMillis.get();
    long old = 0;
    for (Map.Entry<Long, Long> e : acceptedAt.entrySet()) {
      if (e.getValue() < cutoff) {
        old++;
        assertThat(bySeq).as("record %d accepted %d ms before the kill", e.getKey(), killedAtMillis - e.getValue())
            .containsKey(e.getKey());
      }
    }
    assertThat(old).as("records older than the bound").isGreaterThan(1_000);
    assertThat(acceptedAt.size() - rows.size()).as("the kill came mid-stream: the newest records were not yet written")
        .isPositive();
    assertThat(LedgerFixtures.firstValue(ledger, "PRAGMA integrity_check")).isEqualTo("ok");
  }

  private static void read(Process child, Map<Long, Long> acceptedAt, AtomicLong boundMillis, CountDownLatch enough) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        String[] parts = line.split(" ");
        if (parts.length != 2) {
          continue;
        }
        if (parts[0].equals("ready")) {
          boundMillis.set(Long.parseLong(parts[1]));
        } else {
          acceptedAt.put(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
          enough.countDown();
        }
      }
    } catch (java.io.IOException | NumberFormatException e) {
      // the child died mid-line: what was read is what it printed
    }
  }
}
